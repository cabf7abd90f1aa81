package board_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// crowdQuestion is one question forecast once by each of n forecasters
// (f00000, f00001, ...), a second apart from 2026-01-01, closing at the
// end of January; resolved yes on 2026-01-30 when resolved is true.
func crowdQuestion(id string, n int, resolved bool) board.LoadQuestion {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := board.LoadQuestion{ID: id, OpensAt: t0, CloseAt: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)}
	for i := range n {
		p := fmt.Sprintf("%g", float64(5+(i*37)%91)/100)
		q.Forecasts = append(q.Forecasts, board.LoadForecast{NewForecast: board.NewForecast{AgentID: fmt.Sprintf("f%05d", i), P: raw(p)},
			At: t0.Add(time.Duration(i) * time.Second)})
	}
	q.Prediction = board.NewPrediction{AgentID: "f00000", Title: "Crowd " + id, Body: "A crowd forecasts.", Confidence: ptr(0.05),
		Timeframe: "by 2026-01-31", Domain: "science", Resolves: "the crowd says so", ResolveBy: "2026-01-31"}
	if resolved {
		q.Outcome, q.ClosedAt = board.OutcomeYes, time.Date(2026, 1, 30, 0, 0, 0, 0, time.UTC)
	}
	return q
}

// TestLoadStatements checks that the statements a load runs do not grow
// with the forecasters of a question: loading 2,000 forecasters runs at
// most a few more statements than loading 500 (rows go in multi-row
// statements), where it used to run several for each forecast.
func TestLoadStatements(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		count := map[int]int64{}
		for _, n := range []int{500, 2000} {
			s := open(board.Options{Now: now})
			writes := board.CountWrites(s)
			res, err := s.Load(context.Background(), []board.LoadQuestion{crowdQuestion("crowd", n, true)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Questions[0].Forecasts != n {
				t.Fatalf("Load stored %d forecasts, want %d", res.Questions[0].Forecasts, n)
			}
			count[n] = writes()
		}
		// Seven statements take a row a forecaster (forecasts,
		// standings, agents, scores, and the agents' score sums over
		// all, over the domain and in calibration bins): 3 more
		// statements of 500 rows each.
		if extra := count[2000] - count[500]; extra > 7*3 {
			t.Errorf("load of 500 forecasters ran %d statements, of 2,000 ran %d: %d more, want at most 21",
				count[500], count[2000], extra)
		}
	})
}

// TestLoad: a load creates what the board lacks, and the same load again
// changes nothing; forecasts added to a prediction the board has are
// stored when they could have been made there and reported as skipped,
// with the reason and its bound, when not.
func TestLoad(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC) }
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{Now: now})
		open3, done := crowdQuestion("open", 3, false), crowdQuestion("done", 2, true)
		res, err := s.Load(ctx, []board.LoadQuestion{open3, done})
		if err != nil {
			t.Fatal(err)
		}
		want := board.LoadResult{Questions: []board.LoadedQuestion{
			{Created: true, Status: board.StatusOpen, Forecasts: 3},
			{Created: true, Status: board.StatusResolved, Forecasts: 2},
		}, NewAgents: []string{"f00000", "f00001", "f00002"}}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("Load mismatch (-want +got):\n%s", diff)
		}
		before, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err = s.Load(ctx, []board.LoadQuestion{open3, done})
		if err != nil {
			t.Fatal(err)
		}
		want = board.LoadResult{Questions: []board.LoadedQuestion{
			{Status: board.StatusOpen}, {Status: board.StatusResolved},
		}, NewAgents: []string{}}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("Load again mismatch (-want +got):\n%s", diff)
		}
		if after, err := s.Stats(ctx); err != nil || !cmp.Equal(before, after) {
			t.Errorf("Stats after loading again: %+v, %v; want %+v", after, err, before)
		}

		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		add := func(q board.LoadQuestion, agent string, at time.Time) board.LoadQuestion {
			q.Forecasts = append(q.Forecasts, board.LoadForecast{NewForecast: board.NewForecast{AgentID: agent, P: raw("0.5")}, At: at})
			return q
		}
		more := add(add(add(open3, "late", t0.Add(30*time.Second)), "early", t0.Add(time.Second/2)), "future", t0.Add(time.Hour))
		more = add(more, "after", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
		res, err = s.Load(ctx, []board.LoadQuestion{more, add(done, "x", t0.Add(10*time.Second))})
		if err != nil {
			t.Fatal(err)
		}
		want = board.LoadResult{Questions: []board.LoadedQuestion{
			{Status: board.StatusOpen, Forecasts: 1, Skipped: []board.SkippedForecast{
				{Index: 4, Reason: board.SkipBeforeLatest, Bound: t0.Add(30 * time.Second)},
				{Index: 5, Reason: board.SkipFuture},
				{Index: 6, Reason: board.SkipAfterClose, Bound: open3.CloseAt},
			}},
			{Status: board.StatusResolved, Skipped: []board.SkippedForecast{{Index: 2, Reason: board.SkipNotOpen}}},
		}, NewAgents: []string{}}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("Load of added forecasts mismatch (-want +got):\n%s", diff)
		}
		if m, err := board.CounterMismatches(ctx, s); err != nil || len(m) > 0 {
			t.Errorf("CounterMismatches: %v %v", m, err)
		}
	})
}

// TestLoadRefuses: a load with a question the board cannot store is a
// *ValidationError naming the question, and writes nothing.
func TestLoadRefuses(t *testing.T) {
	good := crowdQuestion("good", 2, false)
	bad := func(change func(q *board.LoadQuestion)) board.LoadQuestion {
		q := crowdQuestion("bad", 2, false)
		change(&q)
		return q
	}
	tests := []struct {
		name  string
		q     board.LoadQuestion
		field string
	}{
		{"id", bad(func(q *board.LoadQuestion) { q.ID = "bad one" }), "id"},
		{"twice", good, "id"},
		{"no forecasts", bad(func(q *board.LoadQuestion) { q.Forecasts = nil }), "forecasts"},
		{"not the author's", bad(func(q *board.LoadQuestion) { q.Forecasts = q.Forecasts[1:] }), "forecasts"},
		{"title", bad(func(q *board.LoadQuestion) { q.Prediction.Title = "" }), "title"},
		{"note", bad(func(q *board.LoadQuestion) { q.Forecasts[1].Note = strings.Repeat("n", board.MaxNote+1) }), "note"},
		{"outcome", bad(func(q *board.LoadQuestion) { q.Outcome = "maybe" }), "outcome"},
	}
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{})
		for _, tt := range tests {
			_, err := s.Load(ctx, []board.LoadQuestion{good, tt.q})
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.field || !errors.Is(err, board.ErrInvalid) {
				t.Errorf("%s: Load = %v, want a *ValidationError of %s", tt.name, err, tt.field)
			}
		}
		if st, err := s.Stats(ctx); err != nil || st.Predictions != 0 || st.Agents != 0 {
			t.Errorf("after refused loads Stats = %+v, %v; want an empty board", st, err)
		}
	})
}

// TestDump: a dump gives the predictions a query selects with every
// forecast, oldest first, and refuses a bad query before reading.
func TestDump(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{Now: now})
		b := crowdQuestion("b", 2, false)
		b.OpensAt = b.OpensAt.Add(-time.Hour) // older: after a in the feed's order
		if _, err := s.Load(ctx, []board.LoadQuestion{crowdQuestion("a", 3, true), b}); err != nil {
			t.Fatal(err)
		}
		d, err := s.Dump(ctx, board.DumpQuery{})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		var got []string
		for p, err := range d.Predictions() {
			if err != nil {
				t.Fatal(err)
			}
			var fs []string
			for _, f := range p.Forecasts {
				fs = append(fs, f.AgentID+"@"+f.CreatedAt.Format(time.TimeOnly))
			}
			got = append(got, fmt.Sprintf("%s %s %s", p.ID, p.Status, strings.Join(fs, ",")))
		}
		want := []string{"a resolved f00000@00:00:00,f00001@00:00:01,f00002@00:00:02", "b closed f00000@00:00:00,f00001@00:00:01"}
		if diff := cmp.Diff(want, got); diff != "" || d.Len() != 2 {
			t.Errorf("Dump mismatch (-want +got):\n%s", diff)
		}
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		for _, q := range []board.DumpQuery{{Domain: "nope"}, {Sort: "nope"}, {Limit: -1}, {Offset: -1}} {
			var ve *board.ValidationError
			if _, err := s.Dump(ctx, q); !errors.As(err, &ve) {
				t.Errorf("Dump(%+v) = %v, want a *ValidationError", q, err)
			}
		}
	})
}
