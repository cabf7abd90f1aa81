package skillsettings

import (
	"net/url"
	"strings"
	"testing"
)

const benchQuery = "preset=team&pool=mean&floor_pct=2&min_forecasters=3&share=unset&bins=10"

// BenchmarkParseQueryBaseline is the cost of url.ParseQuery alone, which an
// HTTP adapter pays anyway: the baseline for BenchmarkResolveQuery.
func BenchmarkParseQueryBaseline(b *testing.B) {
	for b.Loop() {
		if _, err := url.ParseQuery(benchQuery); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolveQuery(b *testing.B) {
	q, _ := url.ParseQuery(benchQuery)
	for b.Loop() {
		ResolveQuery(q)
	}
}

// BenchmarkCopyBaseline copies a text as long as the skill file: the
// baseline for BenchmarkSkill.
func BenchmarkCopyBaseline(b *testing.B) {
	s, _ := Resolve(map[string]string{"preset": "team"})
	text := s.Skill(Options{Tools: testTools})
	for b.Loop() {
		var sb strings.Builder
		sb.WriteString(text)
		_ = sb.String()
	}
}

func BenchmarkSkill(b *testing.B) {
	s, _ := Resolve(map[string]string{"preset": "team"})
	for b.Loop() {
		s.Skill(Options{Tools: testTools})
	}
}
