package boardfile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/testclock"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// seedBoard fills s with predictions by several agents: one open with a
// body that needs escaping and notes that need one line, one resolved
// without resolution criteria or date, one void.
func seedBoard(t *testing.T, s *board.Store, c *testclock.Clock) {
	t.Helper()
	ctx := context.Background()
	p := func(v float64) *float64 { return &v }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	setClock(c, time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC))
	a, err := s.CreatePrediction(ctx, board.NewPrediction{
		AgentID: "alice", Title: "Will the transit levy pass by June?",
		Body:       "Council vote expected in May.\r\n\n# Not a question\n- id: not-a-key\n  * indented bullet   \n```\ncode\n```\n\\ backslash\n",
		Confidence: p(0.62), Timeframe: "by June 2026", Domain: "politics",
		Resolves: "yes if the council minutes record a passing vote", ResolveBy: "2026-06-30",
	})
	must(err)
	c.Advance(26 * time.Hour)
	_, err = s.Forecast(ctx, a.ID, board.NewForecast{AgentID: "bob", P: json.RawMessage(`0.4`), Note: "polling flat;\nsee  the ·survey·"})
	must(err)
	c.Advance(3 * time.Hour)
	_, err = s.Forecast(ctx, a.ID, board.NewForecast{AgentID: "carol.v2", P: json.RawMessage(`"55.5%"`)})
	must(err)
	c.Advance(24 * time.Hour)
	_, err = s.Forecast(ctx, a.ID, board.NewForecast{AgentID: "alice", P: json.RawMessage(`0.7`), Note: "whip count"})
	must(err)

	setClock(c, time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC))
	b, err := s.CreatePrediction(ctx, board.NewPrediction{
		AgentID: "bob", Title: "Open-weights model tops the leaderboard", Body: "Open-weights model tops the leaderboard",
		Confidence: p(0.3), Timeframe: "this quarter", Domain: "AI",
	})
	must(err)
	c.Advance(time.Hour)
	_, err = s.Forecast(ctx, b.ID, board.NewForecast{AgentID: "carol.v2", P: json.RawMessage(`0.45`)})
	must(err)
	c.Advance(48 * time.Hour)
	_, err = s.Resolve(ctx, b.ID, board.NewResolution{Outcome: board.OutcomeYes})
	must(err)

	setClock(c, time.Date(2026, 2, 10, 17, 5, 0, 0, time.UTC))
	v, err := s.CreatePrediction(ctx, board.NewPrediction{
		AgentID: "carol.v2", Title: "Launch window holds", Body: "Depends on weather.",
		Confidence: p(0.9), Timeframe: "March", Domain: "space", ResolveBy: "2026-03-15",
	})
	must(err)
	c.Advance(time.Hour)
	_, err = s.Resolve(ctx, v.ID, board.NewResolution{Outcome: board.OutcomeVoid})
	must(err)
	setClock(c, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// stableIDs replaces the board's random prediction ids in text by
// prediction-1, prediction-2, ... in order of appearance, for the golden
// file.
func stableIDs(text string) string {
	return uuidRE.ReplaceAllStringFunc(text, stableNamer())
}

// stableNamer names each id it is given prediction-1, prediction-2, ...
// in the order it first sees them.
func stableNamer() func(id string) string {
	names := map[string]string{}
	return func(id string) string {
		if names[id] == "" {
			names[id] = fmt.Sprintf("prediction-%d", len(names)+1)
		}
		return names[id]
	}
}

// findings returns the checker's findings on text, as the board's import
// checks (forecastfile.Options.BoardImport) when forImport is set.
func findings(t *testing.T, text string, forImport bool) []forecastfile.Diagnostic {
	t.Helper()
	f, err := forecastfile.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var out []forecastfile.Diagnostic
	opt := forecastfile.Options{Now: func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }, BoardImport: forImport}
	for _, d := range forecastfile.Check(f, opt) {
		if d.Severity == forecastfile.Finding {
			out = append(out, d)
		}
	}
	return out
}

// TestExportImportRoundTrip exports a board (golden file), checks the file,
// imports it into a fresh board, exports that (the same text) and imports
// it twice more (nothing changes).
func TestExportImportRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		c := newClock()
		src := open(board.Options{Now: c.Now})
		seedBoard(t, src, c)
		got := export(t, src, board.FeedQuery{})

		golden := filepath.Join("testdata", "export.md")
		if *update {
			if err := os.WriteFile(golden, []byte(stableIDs(got)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), stableIDs(got)); diff != "" {
			t.Errorf("Export mismatch (-want +got):\n%s", diff)
		}
		if fs := findings(t, got, true); len(fs) > 0 {
			t.Errorf("the exported file has findings for the board's import: %v", fs)
		}
		// The format asks every question for resolves and resolve_by: the
		// two predictions that state none are rule-1 findings, which
		// say so, rather than placeholders that read as criteria.
		name := stableNamer()
		uuidRE.ReplaceAllStringFunc(got, name) // names the ids in the golden file's order
		var missing []string
		for _, d := range findings(t, got, false) {
			if d.Rule != 1 || !strings.Contains(d.Message, "does not say") {
				t.Errorf("the exported file has the finding %v, want only rule 1's for what a prediction does not state", d)
			}
			missing = append(missing, name(d.QuestionID))
		}
		if diff := cmp.Diff([]string{"prediction-1", "prediction-2", "prediction-2"}, missing); diff != "" {
			t.Errorf("questions with rule-1 findings (-want +got):\n%s", diff)
		}
		for _, placeholder := range []string{boardfile.NoResolves, boardfile.NoResolveBy} {
			if strings.Contains(got, placeholder) {
				t.Errorf("the exported file holds the placeholder %q", placeholder)
			}
		}

		dst := open(board.Options{Now: c.Now})
		res, err := boardfile.Import(ctx, dst, strings.NewReader(got))
		if err != nil {
			t.Fatalf("Import: %v", err)
		}
		if len(res.Created) != 3 || res.Forecasts != 7 || len(res.Existing) != 0 {
			t.Errorf("Import = %+v, want 3 created with 7 forecasts", res)
		}
		if diff := cmp.Diff([]string{"alice", "bob", "carol.v2"}, res.NewAgents); diff != "" {
			t.Errorf("NewAgents mismatch (-want +got):\n%s", diff)
		}
		again := export(t, dst, board.FeedQuery{})
		if diff := cmp.Diff(got, again); diff != "" {
			t.Errorf("export of the imported board mismatch (-want +got):\n%s", diff)
		}

		// The imported board agrees with the source beyond the file: the
		// community forecasts, the statistics, the scores.
		for _, id := range []string{"alice", "bob", "carol.v2"} {
			a, err := src.Agent(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			b, err := dst.Agent(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if a.Predictions != b.Predictions || a.Forecasts != b.Forecasts || a.Scored != b.Scored || a.Resolved != b.Resolved {
				t.Errorf("agent %s: source %+v, imported %+v", id, a, b)
			}
		}
		feed, err := dst.Feed(ctx, board.FeedQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range feed.Predictions {
			if m, err := dst.CommunityMismatches(ctx, p.ID); err != nil || len(m) > 0 {
				t.Errorf("community of %s: %v %v", p.ID, m, err)
			}
			orig, err := src.Prediction(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if orig.Community.P != p.Community.P || orig.Status != p.Status || orig.Outcome != p.Outcome || orig.Domain != p.Domain ||
				orig.Resolves != p.Resolves || orig.ResolveBy != p.ResolveBy {
				t.Errorf("prediction %s: source %+v, imported %+v", p.ID, orig, p)
			}
		}

		// Importing again, into either board, changes nothing.
		before, err := dst.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		agentsBefore, err := dst.Agents(ctx, board.AgentQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*board.Store{dst, src} {
			res, err := boardfile.Import(ctx, s, strings.NewReader(again))
			if err != nil {
				t.Fatalf("Import again: %v", err)
			}
			if len(res.Created) != 0 || len(res.Existing) != 3 || res.Forecasts != 0 || len(res.NewAgents) != 0 {
				t.Errorf("Import again = %+v, want 3 existing and nothing created", res)
			}
		}
		if diff := cmp.Diff(again, export(t, dst, board.FeedQuery{})); diff != "" {
			t.Errorf("export after a second import mismatch (-want +got):\n%s", diff)
		}
		after, err := dst.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("Stats after a second import mismatch (-want +got):\n%s", diff)
		}
		agentsAfter, err := dst.Agents(ctx, board.AgentQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(agentsBefore, agentsAfter); diff != "" {
			t.Errorf("Agents after a second import mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestExportFilters(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		c := newClock()
		s := open(board.Options{Now: c.Now})
		seedBoard(t, s, c)
		tests := []struct {
			q    board.FeedQuery
			want []string // titles in order
		}{
			{board.FeedQuery{}, []string{"Launch window holds", "Open-weights model tops the leaderboard", "Will the transit levy pass by June?"}},
			{board.FeedQuery{Domain: "ai"}, []string{"Open-weights model tops the leaderboard"}},
			{board.FeedQuery{Sort: board.SortConfidence, Limit: 2}, []string{"Launch window holds", "Will the transit levy pass by June?"}},
			{board.FeedQuery{Offset: 2}, []string{"Will the transit levy pass by June?"}},
		}
		for _, tt := range tests {
			f, err := forecastfile.Parse([]byte(export(t, s, tt.q)))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range f.Questions {
				got = append(got, q.Title)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Export(%+v) titles mismatch (-want +got):\n%s", tt.q, diff)
			}
		}
		for _, q := range []board.FeedQuery{{Domain: "nope"}, {Sort: "nope"}, {Limit: -1}, {Offset: -1}} {
			var ve *board.ValidationError
			if err := boardfile.Export(context.Background(), s, &bytes.Buffer{}, q); !errors.As(err, &ve) {
				t.Errorf("Export(%+v) = %v, want a *ValidationError", q, err)
			}
		}
	})
}

// TestImportRefused: a file with findings is refused with every finding
// and its line, and nothing is written.
func TestImportRefused(t *testing.T) {
	const good = "# Good question\n\n- id: good\n- resolves: yes if so\n- resolve_by: 2026-06-30\n- status: open\n\n## Forecasts\n\n- 2026-01-05 · agent:alice · 60%\n"
	tests := []struct {
		name string
		text string
		want []int // lines of the findings
	}{
		{"forecast line", good + "\n# Bad\n\n- id: bad\n- resolves: yes\n- resolve_by: 2026-06-30\n- status: open\n\n## Forecasts\n\n- 2026-01-05 · agent:bob\n", []int{21}},
		{"resolved without outcome (no resolves is only a warning)", good + "\n# Bad\n\n- id: bad\n- resolve_by: 2026-06-30\n- status: resolved\n\n## Forecasts\n\n- 2026-01-05 · bob · 20%\n", []int{12}},
		{"unreadable resolve_by", good + "\n# Bad\n\n- id: bad\n- resolve_by: soon\n- status: open\n\n## Forecasts\n\n- 2026-01-05 · bob · 20%\n", []int{15}},
		{"no forecasts", good + "\n# Bad\n\n- id: bad\n- resolves: yes\n- resolve_by: 2026-06-30\n- status: open\n", []int{12}},
		{"bad id", strings.Replace(good, "id: good", "id: good one/2", 1), []int{3}},
		{"forecaster", strings.Replace(good, "agent:alice", "agent:ø", 1), []int{10}},
		{"title too long", strings.Replace(good, "Good question", strings.Repeat("long ", 50), 1), []int{1}},
		{"not UTF-8", good + "\xff\n", []int{11}},
	}
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		s := open(board.Options{})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := boardfile.Import(context.Background(), s, strings.NewReader(tt.text))
				var ie *boardfile.ImportError
				if !errors.As(err, &ie) || !errors.Is(err, board.ErrInvalid) {
					t.Fatalf("Import = %v, want an *ImportError wrapping ErrInvalid", err)
				}
				var lines []int
				for _, d := range ie.Findings {
					lines = append(lines, d.Line)
					if d.Severity != forecastfile.Finding || d.Message == "" {
						t.Errorf("finding %+v: want severity finding and a message", d)
					}
				}
				if diff := cmp.Diff(tt.want, lines); diff != "" {
					t.Errorf("finding lines mismatch (-want +got):\n%s\n%v", diff, err)
				}
				if !strings.Contains(err.Error(), "nothing was imported") {
					t.Errorf("Error() = %q, want it to say nothing was imported", err)
				}
			})
		}
		st, err := s.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Predictions != 0 || st.Agents != 0 {
			t.Errorf("after refused imports Stats = %+v, want an empty board", st)
		}
	})
}

// TestImportForecasters: who becomes an agent, forecasts are ordered by
// date, the standing forecasts make the community forecast.
func TestImportForecasters(t *testing.T) {
	const text = `# Hand-written question

- id: hand-1
- resolves: yes if it happens
- resolve_by: 2026-06-30
- status: open
- tags: local, science

## Forecasts

- 2026-01-07 · person · 50% · second
- 2026-01-05 09:00 · Jane Doe · 30% · first
- 2026-01-08 · agent:Jane Doe · 40%
- 2026-01-09 · agent:bot-1 · 70%
- 2026-01-10 · person · 60%
`
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{Now: func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }})
		res, err := boardfile.Import(ctx, s, strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"Jane-Doe", "bot-1", "person"}, res.NewAgents); diff != "" {
			t.Errorf("NewAgents mismatch (-want +got):\n%s", diff)
		}
		p, err := s.Prediction(ctx, "hand-1")
		if err != nil {
			t.Fatal(err)
		}
		if p.AgentID != "Jane-Doe" || p.AgentName != "Jane Doe" || p.Confidence != 0.3 || p.Domain != "Science" ||
			p.Body != "Hand-written question" || p.Timeframe != "by 2026-06-30" || p.Community.Forecasters != 3 {
			t.Errorf("imported prediction = %+v", p)
		}
		if !p.CreatedAt.Equal(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)) {
			t.Errorf("CreatedAt = %v, want the first forecast's time", p.CreatedAt)
		}
		st, err := s.Standing(ctx, "hand-1")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, f := range st {
			got[f.AgentID] = f.P
		}
		if diff := cmp.Diff(map[string]float64{"Jane-Doe": 0.4, "bot-1": 0.7, "person": 0.6}, got); diff != "" {
			t.Errorf("standing forecasts mismatch (-want +got):\n%s", diff)
		}
		if m, err := s.CommunityMismatches(ctx, "hand-1"); err != nil || len(m) > 0 {
			t.Errorf("CommunityMismatches = %v, %v", m, err)
		}
	})
}

// FuzzImport: any text is imported or refused with an *ImportError; an
// imported text imports again without change, and its export imports into
// a fresh board as the same text.
func FuzzImport(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "export.md"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(golden))
	f.Add("# Q\n\n- id: q\n- resolves: yes\n- resolve_by: 2026-06-30\n- status: resolved\n- outcome: no\n\n## Forecasts\n\n- 2026-01-05 · person · 60%\n- 2026-01-04 · agent:x · 0%\n")
	f.Add("# Q\n\n- id: q\n- resolves: yes\n- resolve_by: 2026-06-30\n- status: open\n")
	now := func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }
	f.Fuzz(func(t *testing.T, text string) {
		ctx := context.Background()
		s := mustOpen(t, boardtest.SQLite(t), board.Options{Now: now})
		res, err := boardfile.Import(ctx, s, strings.NewReader(text))
		var ie *boardfile.ImportError
		if err != nil {
			if !errors.As(err, &ie) || len(ie.Findings) == 0 {
				t.Fatalf("Import = %v, want nil or an *ImportError with findings", err)
			}
			return
		}
		again, err := boardfile.Import(ctx, s, strings.NewReader(text))
		if err != nil || len(again.Created) != 0 {
			t.Fatalf("second Import = %+v, %v; want nothing created", again, err)
		}
		for _, p := range res.Created {
			if m, err := s.CommunityMismatches(ctx, p.ID); err != nil || len(m) > 0 {
				t.Errorf("community of %s: %v %v", p.ID, m, err)
			}
		}
		out := export(t, s, board.FeedQuery{})
		if fs := findings(t, out, true); len(fs) > 0 {
			t.Fatalf("export has findings %v:\n%s", fs, out)
		}
		fresh := mustOpen(t, boardtest.SQLite(t), board.Options{Now: now})
		if _, err := boardfile.Import(ctx, fresh, strings.NewReader(out)); err != nil {
			t.Fatalf("Import of the export: %v\n%s", err, out)
		}
		if diff := cmp.Diff(out, export(t, fresh, board.FeedQuery{})); diff != "" {
			t.Errorf("export round trip mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestImportConcurrent: two imports of the same file at once create each
// prediction once, and both succeed.
func TestImportConcurrent(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "export.md"))
	if err != nil {
		t.Fatal(err)
	}
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		s := open(board.Options{})
		const n = 4
		errs := make(chan error, n)
		created := make(chan int, n)
		for range n {
			go func() {
				res, err := boardfile.Import(context.Background(), s, bytes.NewReader(text))
				errs <- err
				created <- len(res.Created)
			}()
		}
		total := 0
		for range n {
			if err := <-errs; err != nil {
				t.Errorf("Import: %v", err)
			}
			total += <-created
		}
		if total != 3 {
			t.Errorf("the imports created %d predictions in all, want 3", total)
		}
	})
}
