package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runForecastCmd runs a subcommand in-process with the given standard input.
func runForecastCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &cmdEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code = run(context.Background(), env, args)
	return code, out.String(), errOut.String()
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	cleanFile = "# Will it ship?\n- id: ship\n- resolves: the tag is published\n- resolve_by: 2026-02-15\n- status: resolved\n- outcome: yes\n" +
		"## Forecasts\n- 2026-01-10 · agent:a · 70%\n- 2026-01-12 · agent:b · 60%\n\n" +
		"# Will it rain?\n- id: rain\n- resolves: the weather service reports rain\n- resolve_by: 2026-01-31\n- status: resolved\n- outcome: no\n" +
		"## Forecasts\n- 2026-01-10 · agent:a · 20%\n- 2026-01-11 · agent:b · 45%\n"
	warnFile    = "# Will it pass?\n- id: pass\n- resolves: minutes record a vote\n- resolve_by: 2026-06-30\n- status: open\n## Forecasts\n- 2026-02-01 · agent:a · 100%\n"
	findingFile = "# Will it pass?\n- id: pass\n- status: open\n## Forecasts\n- 2026-02-01 · agent:a\n"
)

func TestCheckCommand(t *testing.T) {
	clean := writeTemp(t, "clean.md", cleanFile)
	warn := writeTemp(t, "warn.md", warnFile)
	bad := writeTemp(t, "bad.md", findingFile)
	missing := filepath.Join(t.TempDir(), "missing.md")
	binary := writeTemp(t, "binary.md", "# q\x00")
	line := regexp.MustCompile(`^[^:]+:\d+: (rule \d: .+|score \S+ \((yes|no)\) .+: baseline -?\d+\.\d\d, peer -?\d+\.\d\d, coverage \d+\.\d%)$`)
	tests := []struct {
		name      string
		args      []string
		stdin     string
		wantCode  int
		wantLines int // lines on stdout, each FILE:LINE: rule N: message or a forecaster's scores; -1 for the usage
	}{
		{"clean: the scores of two forecasters on two resolved questions", []string{"check", "--today", "2026-03-01", clean}, "", 0, 4},
		{"warnings only", []string{"check", "--today", "2026-03-01", warn}, "", 0, 1},
		{"findings", []string{"check", "--today", "2026-03-01", warn, bad}, "", 1, 4},
		{"unreadable wins", []string{"check", "--today", "2026-03-01", bad, missing}, "", 2, 3},
		{"binary", []string{"check", "--today", "2026-03-01", binary}, "", 2, 0},
		{"stdin", []string{"check", "--today", "2026-03-01", "-"}, findingFile, 1, 3},
		{"no file", []string{"check"}, "", 2, 0},
		{"bad today", []string{"check", "--today", "tomorrow", clean}, "", 2, 0},
		{"help (on standard output, not lines)", []string{"check", "--help"}, "", 0, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runForecastCmd(t, tt.stdin, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit status = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			if tt.wantLines < 0 { // help: usage on standard output
				if !strings.HasPrefix(out, "Usage: predictions check") {
					t.Errorf("stdout = %q, want the usage", out)
				}
				return
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if out == "" {
				lines = nil
			}
			if len(lines) != tt.wantLines {
				t.Errorf("got %d output lines, want %d:\n%s", len(lines), tt.wantLines, out)
			}
			if tt.stdin != "" && len(lines) > 0 && !strings.HasPrefix(lines[0], "<stdin>:") {
				t.Errorf("standard input is not named <stdin>: %q", lines[0])
			}
			for _, l := range lines {
				if !line.MatchString(l) {
					t.Errorf("line %q is not FILE:LINE: rule N: message, nor FILE:LINE: score ...", l)
				}
			}
		})
	}
}

func TestCheckCommandToday(t *testing.T) {
	warn := writeTemp(t, "warn.md", warnFile)
	_, out, _ := runForecastCmd(t, "", "check", "--today", "2026-07-01", warn)
	if !strings.Contains(out, ":4: rule 6: warning: ") {
		t.Errorf("with --today after resolve_by, want a rule-6 warning on line 4; got:\n%s", out)
	}
}

// TestCheckCommandScores: check prints each forecaster's time-averaged
// scores on the resolved questions, in text and JSON.
func TestCheckCommandScores(t *testing.T) {
	clean := writeTemp(t, "clean.md", cleanFile)
	code, out, _ := runForecastCmd(t, "", "check", "--today", "2026-03-01", clean)
	// ship: open at the earliest forecast (Jan 10), close at the end of
	// resolve_by (Feb 16 00:00): 37 days. a stands at 70% all along:
	// 100·log2(1.4) = 48.54. b at 60% from Jan 12, 35 days: 100·log2(1.2)
	// · 35/37 = 24.88. Peer over those 35 days, N = 2: a gets
	// 200·ln(0.7/√0.42) · 35/37 = 14.58, b the opposite.
	for _, want := range []string{
		clean + ":1: score ship (yes) agent:a: baseline 48.54, peer 14.58, coverage 100.0%\n",
		clean + ":1: score ship (yes) agent:b: baseline 24.88, peer -14.58, coverage 94.6%\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("check: status %d, output lacks %q:\n%s", code, want, out)
		}
	}
	code, out, _ = runForecastCmd(t, "", "check", "--json", "--today", "2026-03-01", clean)
	var got checkOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || len(got.Files) != 1 {
		t.Fatalf("check --json: status %d, %v:\n%s", code, err, out)
	}
	type row struct {
		ID, Who        string
		Baseline, Peer float64
		Assumed        int
	}
	var rows []row
	for _, q := range got.Files[0].Scored {
		for _, e := range q.Scores {
			rows = append(rows, row{q.ID, e.Who, math.Round(e.BaselineScore*100) / 100, math.Round(e.PeerScore*100) / 100, len(q.Assumed)})
		}
	}
	want := []row{{"ship", "agent:a", 48.54, 14.58, 3}, {"ship", "agent:b", 24.88, -14.58, 3}, {"rain", "agent:a", 67.81, 35.77, 3}, {"rain", "agent:b", 13.13, -35.77, 3}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("check --json scores (-want +got):\n%s", diff)
	}
}

func TestCheckCommandJSON(t *testing.T) {
	warn := writeTemp(t, "warn.md", warnFile)
	bad := writeTemp(t, "bad.md", findingFile)
	code, out, _ := runForecastCmd(t, "", "check", "--json", "--today", "2026-03-01", warn, bad)
	if code != 1 {
		t.Errorf("exit status = %d, want 1", code)
	}
	var got checkOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	type summary struct {
		File               string
		OK                 bool
		Findings, Warnings []int // rules
	}
	var sums []summary
	for _, f := range got.Files {
		s := summary{File: filepath.Base(f.File), OK: f.OK}
		for _, d := range f.Findings {
			s.Findings = append(s.Findings, d.Rule)
		}
		for _, d := range f.Warnings {
			s.Warnings = append(s.Warnings, d.Rule)
		}
		sums = append(sums, s)
	}
	want := []summary{
		{File: "warn.md", OK: true, Warnings: []int{4}},
		{File: "bad.md", OK: false, Findings: []int{1, 1, 2}},
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("check --json (-want +got):\n%s", diff)
	}
	if got.Findings != 3 || got.Warnings != 1 {
		t.Errorf("totals = %d findings, %d warnings, want 3 and 1", got.Findings, got.Warnings)
	}
}

func TestScoreCommand(t *testing.T) {
	clean := writeTemp(t, "clean.md", cleanFile)
	code, out, errOut := runForecastCmd(t, "", "score", "--bins", "5", clean)
	if code != 0 {
		t.Fatalf("exit status = %d, stderr:\n%s", code, errOut)
	}
	// Brier of agent:a: ((0.7-1)² + (0.2-0)²)/2 = (0.09+0.04)/2 = 0.065.
	// agent:b: ((0.6-1)² + 0.45²)/2 = (0.16+0.2025)/2 = 0.18125 (0.1813 printed).
	// The time-averaged scores: see TestCheckCommandScores.
	for _, want := range []string{"agent:a     2          1    0.0650", "agent:b     2          1    0.181", "Calibration (all forecasters, 5 bins)", "60–80%",
		"\nship (yes, open 2026-01-10 00:00 to 2026-02-16 00:00 UTC; assumed: opens_at, close_at, closed_at)\nforecaster  baseline  peer    coverage\nagent:a     48.54     14.58   100.0%\nagent:b     24.88     -14.58  94.6%\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("score output lacks %q:\n%s", want, out)
		}
	}
	// The tables are aligned: in every row the second column starts where
	// its table's header's second column does; no line ends in a space.
	col, tables := -1, 0
	for _, r := range strings.Split(out, "\n") {
		if strings.HasSuffix(r, " ") {
			t.Errorf("line %q ends in a space", r)
		}
		if strings.HasPrefix(r, "forecaster ") {
			col = len(r) - len(strings.TrimLeft(r[len("forecaster"):], " ")) // where the second column starts
			tables++
		}
		if strings.HasPrefix(r, "agent:") || strings.HasPrefix(r, "all ") {
			if col < 0 || len(r) <= col || r[col-1] != ' ' || r[col] == ' ' {
				t.Errorf("row %q is not aligned with the header (column %d)", r, col)
			}
		}
	}
	if tables != 3 {
		t.Errorf("%d tables of forecasters, want 3 (the scores, and the time-averaged scores of two questions)", tables)
	}

	code, _, _ = runForecastCmd(t, "", "score", "--bins", "50", clean)
	if code != 2 {
		t.Errorf("--bins 50: exit status = %d, want 2", code)
	}
	code, out, _ = runForecastCmd(t, warnFile, "score", "-")
	if code != 0 || !strings.Contains(out, "No resolved question") {
		t.Errorf("score of a file without resolved questions: status %d, output:\n%s", code, out)
	}
	code, out, _ = runForecastCmd(t, "", "score", "--json", clean)
	var rep struct {
		Scores struct{ Overall struct{ N int } }
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Scores.Overall.N != 4 {
		t.Errorf("score --json: status %d, err %v, overall n %d, want 0, nil, 4", code, err, rep.Scores.Overall.N)
	}
}
