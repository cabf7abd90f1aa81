package tools

import (
	"regexp"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// declaredPatterns are the patterns of the tools' input schemas.
func declaredPatterns() []string {
	var out []string
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if s.Pattern != "" {
			out = append(out, s.Pattern)
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		for _, b := range s.AnyOf {
			walk(b)
		}
	}
	for _, t := range All() {
		walk(t.InputSchema)
	}
	return out
}

// patternShapes are patterns of other shapes: some are matched by lookup,
// the others by their regular expression.
var patternShapes = []string{
	`^\s*(?i:yes|no)\s*$`, `^ *(a|b) *$`, `^\s*( a|b)\s*$`, `^\s*(k|s)\s*$`, `^(?i)\s*(k|s)\s*$`, `^\s*([0-9]|x)\s*$`,
	`^\s*(100(\.0+)?|[0-9]{1,2}(\.[0-9]+)?)\s*%\s*$`, `^[A-Za-z0-9._-]{1,64}$`, `^\s*()\s*$`, `^\s*(a|\x{FFFD})\s*$`,
}

// FuzzPatternMatchesRegexp checks that every compiled pattern, whether it
// matches by lookup or not, matches exactly what its regular expression
// matches.
func FuzzPatternMatchesRegexp(f *testing.F) {
	patterns := append(declaredPatterns(), patternShapes...)
	if len(patterns) == len(patternShapes) {
		f.Fatal("no tool declares a pattern: the outcome's is expected")
	}
	for _, s := range []string{"yes", " YES ", "No", "\tfalse\n", "1", "0", "10", "", " ", "yes no", "\u00a0yes", "ſ", "K", "\u212a",
		"y\u0065s", "\xffyes", "yes\v", "50 %", "100.0%", "ab_c", " a", "\x00", "TRUE", "tRuE", "fAlSe ", "s", "\ufffd"} {
		f.Add(s)
	}
	compiled := make([]func(string) bool, len(patterns))
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		compiled[i], res[i] = compilePattern(p), regexp.MustCompile(p)
	}
	if _, ok := paddedWords(declaredPatterns()[0]); !ok {
		f.Fatalf("the outcome's pattern %q is not matched by lookup", declaredPatterns()[0])
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, p := range patterns {
			if got, want := compiled[i](s), res[i].MatchString(s); got != want {
				t.Fatalf("pattern %q on %q: %v, regexp says %v", p, s, got, want)
			}
		}
	})
}
