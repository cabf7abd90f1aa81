package boardfile_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/testclock"
)

// lifeBoard fills a board with predictions over their whole life on a
// clock that moves by odd microseconds: some resolved before close_at,
// some after, some without a close_at, one corrected, one void, some
// open and closed; forecasts by several agents at random times.
func lifeBoard(t *testing.T, s *board.Store, clk *testclock.Clock, seed uint64) []string {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 7))
	agents := []string{"alice", "bob", "carol", "dave", "erin"}
	var ids []string
	for i := range 12 {
		clk.Advance(time.Duration(1+rng.IntN(5_000_000)) * time.Microsecond)
		np := board.NewPrediction{AgentID: agents[i%len(agents)], Title: fmt.Sprintf("Question %d", i),
			Body: "Release cadence suggests a launch within the year.", Confidence: ptr(float64(1+rng.IntN(99)) / 100),
			Timeframe: "by 2026-12-31", Domain: "ai"}
		if i%4 != 3 {
			np.CloseAt = clk.Now().Add(time.Duration(60+rng.IntN(600)) * time.Second).Format(time.RFC3339Nano)
		}
		p, err := s.CreatePrediction(ctx, np)
		if err != nil {
			t.Fatalf("CreatePrediction(%+v): %v", np, err)
		}
		ids = append(ids, p.ID)
		for range 2 + rng.IntN(6) {
			clk.Advance(time.Duration(1+rng.IntN(30_000_000)) * time.Microsecond)
			a := agents[rng.IntN(len(agents))]
			_, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: a, P: raw(fmt.Sprintf("%g", float64(rng.IntN(1001))/1000))})
			if err != nil && !strings.Contains(err.Error(), "close_at") {
				t.Fatalf("Forecast: %v", err)
			}
		}
	}
	clk.Advance(5 * time.Minute) // some have closed
	for i, id := range ids {
		var o board.Outcome
		switch i % 6 {
		case 0, 1, 3:
			o = board.OutcomeYes
		case 2:
			o = board.OutcomeNo
		case 4:
			o = board.OutcomeVoid
		default:
			continue // left open (or closed)
		}
		clk.Advance(time.Duration(1+rng.IntN(1_000_000)) * time.Microsecond)
		if _, err := s.Resolve(ctx, id, board.NewResolution{Outcome: o}); err != nil {
			t.Fatal(err)
		}
		if i == 1 { // a correction
			clk.Advance(time.Hour)
			if _, err := s.Resolve(ctx, id, board.NewResolution{Outcome: board.OutcomeNo, By: "dana"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ids
}

// TestScoresRoundTrip: a board's export, imported into a fresh board,
// gives every score again to 1e-9, and the forecast file's report of the
// export (what check_forecast_md and predictions check say) gives the
// board's baseline, peer and coverage for every forecaster of every
// resolved question.
func TestScoresRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		clk := newClock()
		src := open(board.Options{Now: clk.Now})
		ids := lifeBoard(t, src, clk, 1)
		var file bytes.Buffer
		if err := boardfile.Export(ctx, src, &file, board.FeedQuery{}); err != nil {
			t.Fatal(err)
		}
		dst := open(board.Options{Now: clk.Now})
		res, err := boardfile.Import(ctx, dst, bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatalf("Import of the export: %v\n%s", err, file.String())
		}
		if len(res.Created) != len(ids) || len(res.Notes) != 0 {
			t.Fatalf("Import created %d of %d, notes %v", len(res.Created), len(ids), res.Notes)
		}

		f, err := forecastfile.Parse(file.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := f.Report(forecastfile.Options{Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		reported := map[string]map[string]forecastfile.ScoredEntry{}
		for _, q := range rep.Items {
			reported[q.ID] = map[string]forecastfile.ScoredEntry{}
			for _, e := range q.Scored {
				reported[q.ID][strings.TrimPrefix(e.Who, "agent:")] = e
			}
		}

		// scores are a prediction's scores by agent.
		scores := func(s *board.Store, id string) map[string]board.Score {
			tab, err := s.Scores(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			byAgent := make(map[string]board.Score, len(tab.Scores))
			for _, sc := range tab.Scores {
				byAgent[sc.AgentID] = sc
			}
			return byAgent
		}
		scored := 0
		for _, id := range ids {
			want, got := scores(src, id), scores(dst, id)
			if len(got) != len(want) {
				t.Errorf("%s: %d scores after the round trip, want %d", id, len(got), len(want))
			}
			for agent, w := range want {
				g := got[agent]
				r, ok := reported[id][agent]
				if !ok {
					t.Errorf("%s: the report scores no %s", id, agent)
				}
				for _, c := range []struct {
					what           string
					want, got, rep float64
				}{
					{"baseline", w.BaselineScore, g.BaselineScore, r.BaselineScore},
					{"peer", w.PeerScore, g.PeerScore, r.PeerScore},
					{"coverage", w.Coverage, g.Coverage, r.Coverage},
					{"brier", w.Brier, g.Brier, r.Brier},
					{"log", w.LogScore, g.LogScore, r.LogScore},
				} {
					if math.Abs(c.got-c.want) > 1e-9 || math.Abs(c.rep-c.want) > 1e-9 {
						t.Errorf("%s %s %s: board %v, after the round trip %v, in the report %v", id, agent, c.what, c.want, c.got, c.rep)
					}
				}
				scored++
			}
		}
		if scored < 15 {
			t.Errorf("only %d scores compared", scored)
		}
		// Agents' statistics follow the scores.
		for _, a := range []string{"alice", "bob", "carol", "dave", "erin"} {
			wa, err1 := src.Agent(ctx, a)
			ga, err2 := dst.Agent(ctx, a)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if (wa.PeerScore == nil) != (ga.PeerScore == nil) || wa.PeerScore != nil && math.Abs(*wa.PeerScore-*ga.PeerScore) > 1e-9 {
				t.Errorf("agent %s: peer score %v on the board, %v after the round trip", a, wa.PeerScore, ga.PeerScore)
			}
		}
		// The export of the imported board is the same text.
		var again bytes.Buffer
		if err := boardfile.Export(ctx, dst, &again, board.FeedQuery{}); err != nil {
			t.Fatal(err)
		}
		if again.String() != file.String() {
			t.Errorf("the export of the imported board differs:\n%s\n---\n%s", file.String(), again.String())
		}
	})
}

// TestImportAddsForecasts: forecast lines added to a question the board
// already has are stored once, keyed by forecaster and time; those the
// board cannot take (before its latest forecast, at or after the close,
// on a resolved prediction, in the future) are named in notes; a second
// import changes nothing.
func TestImportAddsForecasts(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		clk := newClock() // 2026-03-01 12:00
		s := open(board.Options{Now: clk.Now})
		const head = `# Will it rain?

- id: rain
- resolves: yes if it rains
- resolve_by: 2026-03-10
- status: open

## Forecasts

- 2026-03-01 09:00 · agent:alice · 60%
`
		if _, err := boardfile.Import(ctx, s, strings.NewReader(head)); err != nil {
			t.Fatal(err)
		}
		done := strings.ReplaceAll(strings.ReplaceAll(head, "rain", "sun"), "- status: open", "- status: resolved\n- outcome: no")
		if _, err := boardfile.Import(ctx, s, strings.NewReader(done)); err != nil {
			t.Fatal(err)
		}
		more := head + `- 2026-03-01 10:00:01.5 · agent:bob · 40%
- 2026-03-01 08:00 · agent:carol · 50%
- 2026-03-11 00:00 · agent:dave · 50%
- 2026-03-02 10:00 · agent:erin · 50%
` + done + "- 2026-03-01 10:00 · agent:bob · 40%\n"
		res, err := boardfile.Import(ctx, s, strings.NewReader(more))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Updated) != 1 || res.Updated[0].ID != "rain" || res.Updated[0].Forecasts != 1 || res.Forecasts != 1 {
			t.Errorf("updated %+v, %d forecasts; want one added to rain", res.Updated, res.Forecasts)
		}
		for _, want := range []string{
			"the forecast by carol at 2026-03-01 08:00 is not stored: it is before the prediction's latest forecast",
			"the forecast by dave at 2026-03-11 00:00 is not stored: it is at or after the prediction's close_at",
			"the forecast by erin at 2026-03-02 10:00 is not stored: it is in the future",
			"question sun, line",
		} {
			if !strings.Contains(strings.Join(res.Notes, "\n"), want) {
				t.Errorf("notes lack %q:\n%s", want, strings.Join(res.Notes, "\n"))
			}
		}
		fp, err := s.Forecasts(ctx, "rain", board.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if fp.Total != 2 || fp.Forecasts[1].AgentID != "bob" || !fp.Forecasts[1].CreatedAt.Equal(time.Date(2026, 3, 1, 10, 0, 1, 500000000, time.UTC)) {
			t.Errorf("rain's forecasts: %+v", fp.Forecasts)
		}
		again, err := boardfile.Import(ctx, s, strings.NewReader(more))
		if err != nil {
			t.Fatal(err)
		}
		if again.Forecasts != 0 || len(again.Updated) != 0 {
			t.Errorf("second import added %d forecasts: %+v", again.Forecasts, again.Updated)
		}
	})
}

// TestUnstatedRoundTrip: an open prediction posted with neither resolves,
// resolve_by nor close_at is exported without those keys, and imported
// back as the same prediction: still none of them, still taking forecasts.
// A file written by an earlier Export, with the placeholders it wrote
// (boardfile.NoResolves, boardfile.NoResolveBy), imports as the same board.
func TestUnstatedRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		c := newClock()
		src := open(board.Options{Now: c.Now})
		p, err := src.CreatePrediction(ctx, board.NewPrediction{AgentID: "alice", Title: "Rain in Paris on Sunday", Body: "The forecast says so.",
			Confidence: ptr(0.6), Timeframe: "this week", Domain: "Science"})
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Hour)
		if _, err := src.Forecast(ctx, p.ID, board.NewForecast{AgentID: "bob", P: raw("0.3")}); err != nil {
			t.Fatal(err)
		}
		text := export(t, src, board.FeedQuery{})
		for _, key := range []string{"- resolves:", "- resolve_by:", "- close_at:", boardfile.NoResolves, boardfile.NoResolveBy} {
			if strings.Contains(text, key) {
				t.Errorf("the export holds %q:\n%s", key, text)
			}
		}

		old := strings.Replace(text, "- id: "+p.ID+"\n", "- id: "+p.ID+"\n- resolves: "+boardfile.NoResolves+"\n- resolve_by: "+boardfile.NoResolveBy+"\n", 1)
		if old == text {
			t.Fatalf("no id line to add the placeholders after:\n%s", text)
		}
		for name, file := range map[string]string{"export": text, "earlier export": old} {
			dst := open(board.Options{Now: c.Now})
			if _, err := boardfile.Import(ctx, dst, strings.NewReader(file)); err != nil {
				t.Fatalf("Import of the %s: %v", name, err)
			}
			got, err := dst.Prediction(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Resolves != "" || got.ResolveBy != "" || got.CloseAt != nil || got.Status != board.StatusOpen || got.Community.Forecasters != 2 {
				t.Errorf("imported from the %s: resolves %q, resolve_by %q, close_at %v, status %s, %d forecasters; want none of them, open, 2", name, got.Resolves, got.ResolveBy, got.CloseAt, got.Status, got.Community.Forecasters)
			}
			if again := export(t, dst, board.FeedQuery{}); again != text {
				t.Errorf("export of the board imported from the %s differs (-want +got):\n%s", name, cmp.Diff(text, again))
			}
			if _, err := dst.Forecast(ctx, p.ID, board.NewForecast{AgentID: "carol", P: raw("0.5")}); err != nil {
				t.Errorf("a forecast on the prediction imported from the %s: %v", name, err)
			}
		}
	})
}
