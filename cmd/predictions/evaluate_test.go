package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/evaluate"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/pool"
)

// TestEvaluateCommand runs the binary on testdata/evaluate: a.md and b.md
// hold package evaluate's fixture split in two (b.md line 21 cannot be
// read), nul.md is not a text file.
func TestEvaluateCommand(t *testing.T) {
	bin := buildBinary(t)
	a, b := "testdata/evaluate/a.md", "testdata/evaluate/b.md"
	aText, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	unreadable := "testdata/evaluate/b.md:21: forecast line cannot be read and is left out; run predictions check testdata/evaluate/b.md\n"
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // a piece of standard output; "" for package evaluate's report on the files
		stderr string // standard error, or a piece of it
	}{
		{name: "text", args: []string{a, b}, stderr: unreadable},
		{name: "warmup", args: []string{"--warmup", "0.5", a, b}, stdout: "Evaluated 2 of 3 question(s) replayed", stderr: unreadable},
		{name: "standard input", stdin: string(aText), args: []string{"-"}, stdout: "Evaluated 2 of 2 question(s) replayed"},
		{name: "missing file", args: []string{a, "testdata/evaluate/missing.md"}, code: 2, stderr: "predictions evaluate: open testdata/evaluate/missing.md: no such file or directory\n"},
		{name: "not a text file", args: []string{a, "testdata/evaluate/nul.md"}, code: 2, stderr: "predictions evaluate: testdata/evaluate/nul.md: line 4: forecastfile: text contains a NUL byte"},
		{name: "warmup 1", args: []string{"--warmup", "1", a}, code: 2, stderr: "predictions evaluate: --warmup: evaluate: warmup must be a fraction"},
		{name: "not a number", args: []string{"--warmup", "half", a}, code: 2, stderr: `invalid value "half" for flag -warmup`},
		{name: "no file", args: nil, code: 2, stderr: "Usage: predictions evaluate [--warmup F] [--json] FILE..."},
		{name: "one file", args: []string{b}, stdout: "Evaluated 1 of 1 question(s) replayed", stderr: unreadable},
		{name: "nothing to evaluate", stdin: "# Void\n\n- id: v\n- resolves: yes\n- status: void\n", args: []string{"-"}, code: 2, stderr: "predictions evaluate: evaluate: no question to evaluate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runBin(t, bin, tt.stdin, append([]string{"evaluate"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("predictions evaluate %q: exit %d, want %d; stderr:\n%s", tt.args, code, tt.code, stderr)
			}
			if tt.stdout == "" && tt.code == 0 {
				if diff := cmp.Diff(reportText(t, tt.args...), stdout); diff != "" {
					t.Errorf("predictions evaluate %q: standard output is not the report (-want +got):\n%s", tt.args, diff)
				}
			} else if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("predictions evaluate %q: standard output lacks %q:\n%s", tt.args, tt.stdout, stdout)
			}
			if strings.HasSuffix(tt.stderr, "\n") && stderr != tt.stderr || !strings.Contains(stderr, tt.stderr) || tt.stderr == "" && stderr != "" {
				t.Errorf("predictions evaluate %q: standard error %q, want %q", tt.args, stderr, tt.stderr)
			}
		})
	}
}

// TestEvaluateCommandJSON: --json prints package evaluate's report.
func TestEvaluateCommandJSON(t *testing.T) {
	bin := buildBinary(t)
	code, stdout, stderr := runBin(t, bin, "", "evaluate", "--json", "--warmup", "0.5", "testdata/evaluate/a.md", "testdata/evaluate/b.md")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var rep evaluate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("standard output is not a report: %v\n%s", err, stdout)
	}
	var methods []pool.Method
	for _, p := range rep.Pools {
		methods = append(methods, p.Method)
	}
	got := []any{rep.Questions, rep.WarmupQuestions, rep.Evaluated, rep.Forecasts, rep.Resamples, methods}
	want := []any{3, 1, 2, 6, evaluate.DefaultResamples, pool.Methods()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// reportText is package evaluate's text report on the files.
func reportText(t *testing.T, paths ...string) string {
	t.Helper()
	var files []*forecastfile.File
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := forecastfile.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	rep, err := evaluate.Run(files, evaluate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
