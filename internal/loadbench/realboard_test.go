package loadbench

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
)

// TestRealQuestionsShape: the generator writes the same bytes for the
// same questions whatever the chunks, a file forecastfile accepts, and
// the PredictionBook shape: n resolved questions and realOpen open ones,
// about 8 forecasts a question, one question of realBigForecasters
// forecasters, a heavy-tailed activity (the most active forecaster in
// many more questions than the median one).
func TestRealQuestionsShape(t *testing.T) {
	const n = 2000
	var whole, a, b bytes.Buffer
	if err := writeRealQuestions(&whole, n, 0, n+realOpen); err != nil {
		t.Fatal(err)
	}
	if err := writeRealQuestions(&a, n, 0, 700); err != nil {
		t.Fatal(err)
	}
	if err := writeRealQuestions(&b, n, 700, n+realOpen); err != nil {
		t.Fatal(err)
	}
	f, err := forecastfile.Parse(whole.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	fa, err := forecastfile.Parse(a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	fb, err := forecastfile.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(fa.Questions) + len(fb.Questions); got != len(f.Questions) {
		t.Fatalf("chunks hold %d questions, whole %d", got, len(f.Questions))
	}
	var again bytes.Buffer
	if err := writeRealQuestions(&again, n, 0, n+realOpen); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), whole.Bytes()) {
		t.Error("two runs of the generator differ")
	}
	for i, q := range fb.Questions {
		if q.ID != f.Questions[700+i].ID || len(q.Forecasts) != len(f.Questions[700+i].Forecasts) {
			t.Fatalf("question %d differs between the chunked and the whole file: %s, %s", 700+i, q.ID, f.Questions[700+i].ID)
		}
	}
	for _, d := range forecastfile.Check(f, forecastfile.Options{BoardImport: true}) {
		if d.Severity == forecastfile.Finding {
			t.Errorf("finding: line %d: %s", d.Line, d.Message)
		}
	}
	resolved, open, forecasts, big := 0, 0, 0, 0
	per := map[string]int{}
	for _, q := range f.Questions {
		if q.Status == forecastfile.StatusResolved {
			resolved++
			forecasts += len(q.Forecasts)
		} else {
			open++
		}
		who := map[string]bool{}
		for _, fc := range q.Forecasts {
			who[fc.Who] = true
			per[fc.Who]++
		}
		if len(who) == realBigForecasters {
			big++
			if q.ID != realBigID(n) {
				t.Errorf("question %s has %d forecasters, want %s to", q.ID, len(who), realBigID(n))
			}
		}
	}
	if resolved != n || open != realOpen || big != 1 {
		t.Errorf("%d resolved, %d open, %d with %d forecasters; want %d, %d, 1", resolved, open, big, realBigForecasters, n, realOpen)
	}
	if mean := float64(forecasts) / n; mean < 7.5 || mean > 8.6 {
		t.Errorf("%.2f forecasts a resolved question, want about 8", mean)
	}
	if len(per) > realForecasters(n) {
		t.Errorf("%d forecasters, want at most %d", len(per), realForecasters(n))
	}
	if top := per["agent:"+realAgent(0)]; top < 20*per["agent:"+realAgent(realForecasters(n)/2)] || top < 100 {
		t.Errorf("the most active forecaster made %d forecasts, the median-ranked one %d: want a heavy tail", top, per["agent:"+realAgent(realForecasters(n)/2)])
	}
}

// TestImportReal imports a board of 300 questions and reads it back
// through the store: the question of realBigForecasters forecasters,
// resolved, and an open question for the writes.
func TestImportReal(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "real.db")
	if err := importReal(ctx, path, 300, nil); err != nil {
		t.Fatal(err)
	}
	s, err := board.Open(ctx, path, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Prediction(ctx, realBigID(300))
	if err != nil {
		t.Fatal(err)
	}
	if p.Community.Forecasters != realBigForecasters || p.Status != board.StatusResolved {
		t.Errorf("%s: %d forecasters, status %s; want %d, resolved", p.ID, p.Community.Forecasters, p.Status, realBigForecasters)
	}
	open, err := s.Prediction(ctx, realOpenID(0))
	if err != nil {
		t.Fatal(err)
	}
	if open.Status != board.StatusOpen {
		t.Errorf("%s: status %s, want open (the writes forecast on it)", open.ID, open.Status)
	}
}

// TestRealScenarios runs the real-size group on boards of 300 and 100
// generated questions, a second each: every read and the writes beside
// their reader answer without errors on both boards, each large-board
// row carries its ratio to the small board and its goal, and the large
// server's memory has its row with the goal.
func TestRealScenarios(t *testing.T) {
	needLoad(t)
	cfg := testConfig(t, 4)
	cfg.Real = true
	cfg.SeedDir = t.TempDir()
	cfg.Filter = regexp.MustCompile(`questions$`)
	rep := mustRun(t, cfg)
	var want []string
	small, large := realScenarios(100, 0, realDepth(100)), realScenarios(300, 100, realDepth(100))
	for i := range large {
		want = append(want, small[i].name, large[i].name)
	}
	var got []string
	for _, row := range rep.Rows {
		got = append(got, row.Scenario)
		if row.Errors != 0 || row.Requests == 0 {
			t.Errorf("%s: %d requests, %d errors %q", row.Scenario, row.Requests, row.Errors, row.ErrorText)
		}
		if strings.HasSuffix(row.Scenario, realSuffix(300)) && (row.Met == nil || row.Ratio <= 0 || !strings.HasPrefix(row.Baseline, "100 questions: ")) {
			t.Errorf("%s: ratio %v to %q, met %v: want a ratio to the small board and a goal", row.Scenario, row.Ratio, row.Baseline, row.Met)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if len(rep.Memory) != 1 || rep.Memory[0].LimitMB != RealMemoryMB || rep.Memory[0].Met == nil {
		t.Errorf("memory rows %+v, want one for the large board with its goal", rep.Memory)
	}
	// A second run reuses both boards.
	cfg.Filter = regexp.MustCompile(`^agent page`)
	again := mustRun(t, cfg)
	if len(again.Seeding) != 2 || !strings.Contains(again.Seeding[0], "reused") || !strings.Contains(again.Seeding[1], "reused") {
		t.Errorf("second run seeded %q, want both boards reused", again.Seeding)
	}
}
