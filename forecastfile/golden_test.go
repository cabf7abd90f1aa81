package forecastfile

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// pinned is the "today" of the golden tests.
var pinned = Options{Now: func() time.Time { return time.Date(2026, 3, 1, 15, 4, 5, 0, time.UTC) }}

// TestGolden checks each testdata/*.md: its report (*.report.json) and its
// canonical form (*.canonical.md). Regenerate with go test -update.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".canonical.md") {
			inputs = append(inputs, f)
		}
	}
	if len(inputs) < 5 {
		t.Fatalf("found %d forecast files in testdata, want at least 5", len(inputs))
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			rep, err := f.Report(pinned)
			if err != nil {
				t.Fatalf("Report: %v", err)
			}
			got, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSuffix(in, ".md")
			golden(t, base+".report.json", append(got, '\n'))
			golden(t, base+".canonical.md", Format(f))
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s mismatch (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

// TestGoldenExpectations pins what the golden files must contain, so that a
// regenerated golden file cannot silently drop a rule.
func TestGoldenExpectations(t *testing.T) {
	tests := []struct {
		file          string
		findingRules  []int // rules that must appear among findings
		warningRules  []int
		wantFindings0 bool // true: no findings at all
	}{
		{file: "clean.md", wantFindings0: true},
		{file: "every-rule.md", findingRules: []int{0, 1, 2, 3}, warningRules: []int{4, 5, 6, 7, 8}},
		{file: "edge-cases.md", findingRules: []int{0, 1, 2, 3}, warningRules: []int{0, 5}},
		{file: "empty.md", wantFindings0: true, warningRules: []int{0}},
		{file: "times.md", findingRules: []int{0, 1, 2}, warningRules: []int{7}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := f.Report(pinned)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantFindings0 && len(rep.Findings) > 0 {
				t.Errorf("findings = %v, want none", rep.Findings)
			}
			has := func(ds []Diagnostic, rule int) bool {
				for _, d := range ds {
					if d.Rule == rule {
						return true
					}
				}
				return false
			}
			for _, r := range tt.findingRules {
				if !has(rep.Findings, r) {
					t.Errorf("no finding for rule %d", r)
				}
			}
			for _, r := range tt.warningRules {
				if !has(rep.Warnings, r) {
					t.Errorf("no warning for rule %d", r)
				}
			}
			for _, d := range append(rep.Findings, rep.Warnings...) {
				if d.Line < 1 {
					t.Errorf("diagnostic without a line: %+v", d)
				}
			}
		})
	}
}
