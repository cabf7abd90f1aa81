package board_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/pool"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// communityOf pools ps (agent → p, in agent order) with package pool.
func communityOf(t *testing.T, agents []string, ps map[string]float64) pool.Result {
	t.Helper()
	var fs []pool.Forecast
	for _, a := range agents {
		fs = append(fs, pool.Forecast{Who: a, P: ps[a]})
	}
	r, err := pool.Combine(fs, pool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestForecastFlow: the author posts, two agents forecast (one twice), the
// community follows every write, the history keeps every forecast, and
// resolution scores each forecaster with the time-averaged scores worked
// out by hand segment by segment.
func TestForecastFlow(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		np := newPrediction("alice")
		np.Confidence = ptr(0.7)
		np.Resolves, np.ResolveBy = "the vendor's release notes say so", "2026-03-02"
		np.CloseAt = "2026-03-01T12:01:20Z" // 80 s after creation; resolved early, at 40 s
		p := mustCreate(t, s, np)
		t0 := p.CreatedAt
		forecast := func(at time.Duration, agent, pv string) board.ForecastResult {
			t.Helper()
			clk.Set(t0.Add(at))
			r, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: agent, P: raw(pv), Note: "because " + agent})
			if err != nil {
				t.Fatalf("Forecast(%s, %s): %v", agent, pv, err)
			}
			return r
		}
		r1 := forecast(10*time.Second, "bob", `"40%"`)
		// An open prediction's forecast has no score yet (the score's
		// columns are NULL in the join: read as 0.0 on SQLite too).
		if af, err := s.AgentForecasts(ctx, "bob", board.Page{}); err != nil || af.Total != 1 || af.Forecasts[0].Score != nil ||
			af.Forecasts[0].Status != board.StatusOpen || af.Forecasts[0].P != 0.4 {
			t.Errorf("AgentForecasts(bob) while open = %+v, %v", af, err)
		}
		if r1.Previous != nil || r1.Forecast.Seq != 2 || r1.Forecast.P != 0.4 {
			t.Errorf("bob's first forecast = %+v, previous %v; want seq 2, p 0.4, no previous", r1.Forecast, r1.Previous)
		}
		forecast(20*time.Second, "carol", `0.2`)
		r3 := forecast(30*time.Second, "bob", `0.5`)
		if r3.Previous == nil || *r3.Previous != 0.4 {
			t.Errorf("bob's update replaced %v, want 0.4", r3.Previous)
		}
		agents := []string{"alice", "bob", "carol"}
		want := communityOf(t, agents, map[string]float64{"alice": 0.7, "bob": 0.5, "carol": 0.2})
		wantC := board.Community{P: want.GeoOdds, Forecasters: 3, Method: pool.GeoOdds, SpreadPts: want.SpreadPts,
			// Three forecasts 50 points apart: fewer than the board's
			// flag considers (pool.MiddleMinForecasts), though Combine's
			// own flag is set.
			Disagreement: false, UpdatedAt: t0.Add(30 * time.Second), Notes: []string{}}
		if diff := cmp.Diff(wantC, r3.Community); diff != "" {
			t.Errorf("community after the last forecast (-want +got):\n%s", diff)
		}
		got, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantC, got.Community); diff != "" {
			t.Errorf("stored community (-want +got):\n%s", diff)
		}
		if got.Resolves != np.Resolves || got.ResolveBy != "2026-03-02" || got.Overdue {
			t.Errorf("resolves %q resolve_by %q overdue %v", got.Resolves, got.ResolveBy, got.Overdue)
		}

		// The history, oldest first, with the community after each.
		h, err := s.Forecasts(ctx, p.ID, board.Page{})
		if err != nil {
			t.Fatal(err)
		}
		type point struct {
			Agent string
			P, C  float64
			N     int
		}
		var gotH []point
		for _, f := range h.Forecasts {
			gotH = append(gotH, point{f.AgentID, f.P, f.Community.P, f.Community.Forecasters})
		}
		wantH := []point{
			{"alice", 0.7, communityOf(t, agents[:1], map[string]float64{"alice": 0.7}).GeoOdds, 1},
			{"bob", 0.4, communityOf(t, agents[:2], map[string]float64{"alice": 0.7, "bob": 0.4}).GeoOdds, 2},
			{"carol", 0.2, communityOf(t, agents, map[string]float64{"alice": 0.7, "bob": 0.4, "carol": 0.2}).GeoOdds, 3},
			{"bob", 0.5, want.GeoOdds, 3},
		}
		if diff := cmp.Diff(wantH, gotH); diff != "" || h.Total != 4 || h.HasMore {
			t.Errorf("history (-want +got), total %d has_more %v:\n%s", h.Total, h.HasMore, diff)
		}
		st, err := s.Standing(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) != 3 || st[1].AgentID != "bob" || st[1].P != 0.5 || st[1].Note != "because bob" {
			t.Errorf("standing = %+v", st)
		}
		if sc, err := s.Scores(ctx, p.ID); err != nil || len(sc.Scores) != 0 || len(sc.Notes) != 1 {
			t.Errorf("Scores while open = %+v, %v; want none and a note", sc, err)
		}

		clk.Set(t0.Add(40 * time.Second))
		if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "dave", P: raw("0.5")}); !errors.Is(err, board.ErrClosed) {
			t.Errorf("forecast on a resolved prediction: %v, want ErrClosed", err)
		}
		if _, err := s.Forecast(ctx, "no-such-id", board.NewForecast{AgentID: "dave", P: raw("0.5")}); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("forecast on an unknown prediction: %v, want ErrNotFound", err)
		}

		// By hand, as Metaculus scores a question resolved yes at 40 s of a
		// scheduled 80 s life: B(p) = 100·log2(2p); segments of 10 s, each
		// an eighth of the life: {alice}, {alice, bob 0.4},
		// {alice, bob 0.4, carol}, {alice, bob 0.5, carol}; peer =
		// 100·N/(N−1)·ln(p/G), G the geometric mean of the N present, and
		// 0 for one alone.
		B := func(p float64) float64 { return 100 * math.Log2(2*p) }
		segs := []map[string]float64{
			{"alice": 0.7},
			{"alice": 0.7, "bob": 0.4},
			{"alice": 0.7, "bob": 0.4, "carol": 0.2},
			{"alice": 0.7, "bob": 0.5, "carol": 0.2},
		}
		base, peer, cover := map[string]float64{}, map[string]float64{}, map[string]float64{}
		for _, seg := range segs {
			var lnG float64
			for _, p := range seg {
				lnG += math.Log(p) / float64(len(seg))
			}
			n := float64(len(seg))
			for a, p := range seg {
				base[a] += B(p) / 8
				if n > 1 {
					peer[a] += 100 * n / (n - 1) * (math.Log(p) - lnG) / 8
				}
				cover[a] += 0.125
			}
		}
		final := map[string]float64{"alice": 0.7, "bob": 0.5, "carol": 0.2}
		table, err := s.Scores(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		gotS := map[string]board.Score{}
		for _, sc := range table.Scores {
			sum += sc.PeerScore
			sc.ResolvedAt, sc.AgentName, sc.PredictionID = time.Time{}, "", ""
			gotS[sc.AgentID] = sc
		}
		wantS := map[string]board.Score{}
		for _, a := range agents {
			q := final[a]
			wantS[a] = board.Score{AgentID: a, P: q, Outcome: board.OutcomeYes, Brier: (1 - q) * (1 - q), LogScore: math.Log(q),
				BaselineScore: base[a], PeerScore: peer[a], Coverage: cover[a]}
		}
		if diff := cmp.Diff(wantS, gotS, approx); diff != "" {
			t.Errorf("scores (-want +got):\n%s", diff)
		}
		if math.Abs(sum) > 1e-9 {
			t.Errorf("peer scores sum to %g, want 0", sum)
		}
		if table.Scores[0].AgentID != "alice" {
			t.Errorf("first row %s, want alice (highest peer score)", table.Scores[0].AgentID)
		}

		// The agent statistics come from every forecast.
		bob, err := s.Agent(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		if bob.Forecasts != 1 || bob.Scored != 1 || bob.PeerScore == nil || math.Abs(*bob.PeerScore-peer["bob"]) > 1e-9 ||
			bob.Predictions != 0 || len(bob.Calibration) != 10 {
			t.Errorf("bob = %+v", bob)
		}
		af, err := s.AgentForecasts(ctx, "bob", board.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if af.Total != 1 || len(af.Forecasts) != 1 || af.Forecasts[0].P != 0.5 || af.Forecasts[0].Score == nil ||
			math.Abs(af.Forecasts[0].Score.PeerScore-peer["bob"]) > 1e-9 || af.Forecasts[0].Status != board.StatusResolved {
			t.Errorf("AgentForecasts(bob) = %+v", af)
		}
		for _, sort := range []board.AgentSort{board.AgentSortPeer, board.AgentSortBrier, board.AgentSortTrust, ""} {
			page, err := s.Agents(ctx, board.AgentQuery{Sort: sort})
			as := page.Agents
			if err != nil || len(as) != 3 {
				t.Fatalf("Agents(sort=%q) = %d agents, %v", sort, len(as), err)
			}
			if sort == board.AgentSortPeer && as[0].ID != "alice" {
				t.Errorf("by peer score, first is %s, want alice", as[0].ID)
			}
			if sort == board.AgentSortBrier && as[2].ID != "carol" {
				t.Errorf("by brier, last is %s, want carol (0.64)", as[2].ID)
			}
		}
		if _, err := s.Agents(ctx, board.AgentQuery{Sort: "loudest"}); !errors.Is(err, board.ErrInvalid) {
			t.Errorf("Agents(sort=loudest) = %v, want ErrInvalid", err)
		}

		// Void: no scores, and the agents' statistics drop them.
		if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeVoid}); err != nil {
			t.Fatal(err)
		}
		if table, _ := s.Scores(ctx, p.ID); len(table.Scores) != 0 {
			t.Errorf("void prediction has %d scores", len(table.Scores))
		}
		if bob, _ := s.Agent(ctx, "bob"); bob.Scored != 0 || bob.PeerScore != nil {
			t.Errorf("after void, bob = scored %d peer %v", bob.Scored, bob.PeerScore)
		}
		checkCounters(t, s)
	})
}

// TestForecastValidation: every rule of p and note at its boundary.
func TestForecastValidation(t *testing.T) {
	s := mustOpen(t, boardtest.SQLite(t), board.Options{})
	ctx := context.Background()
	p := mustCreate(t, s, newPrediction("alice"))
	tests := []struct {
		name, p, note string
		want          float64 // when no error
		field, hint   string  // the error's field and a piece of its hint
	}{
		{name: "zero", p: `0`, want: 0},
		{name: "one", p: `1`, want: 1},
		{name: "fraction", p: `0.7`, want: 0.7},
		{name: "percent string", p: `"70%"`, want: 0.7},
		{name: "0%", p: `"0%"`, want: 0},
		{name: "100%", p: `"100%"`, want: 1},
		{name: "spaces", p: `" 12.5 % "`, want: 0.125},
		{name: "1.5", p: `1.5`, field: "p", hint: `send 0.015 or "1.5%" for 1.5%`},
		{name: "150", p: `150`, field: "p", hint: "send fractions"},
		{name: "75", p: `75`, field: "p", hint: `send 0.75 or "75%" for 75%`},
		{name: "negative", p: `-0.1`, field: "p", hint: "send fractions"},
		{name: "150%", p: `"150%"`, field: "p", hint: `"100%"`},
		{name: "string without %", p: `"0.7"`, field: "p", hint: "such as 0.7"},
		{name: "bad percent", p: `"x%"`, field: "p", hint: "such as 0.62"},
		{name: "missing", p: ``, field: "p", hint: "such as 0.7"},
		{name: "null", p: `null`, field: "p", hint: "such as 0.7"},
		{name: "bool", p: `true`, field: "p", hint: "such as 0.62"},
		{name: "note at the limit", p: `0.5`, note: strings.Repeat("é", board.MaxNote), want: 0.5},
		{name: "note over the limit", p: `0.5`, note: strings.Repeat("é", board.MaxNote+1), field: "note", hint: "at most 10000"},
		{name: "note control character", p: `0.5`, note: "a\x00b", field: "note", hint: "remove control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "bob", P: raw(tt.p), Note: tt.note})
			if tt.field == "" {
				if err != nil || r.Forecast.P != tt.want {
					t.Errorf("p %s: got %v, %v; want %v", tt.p, r.Forecast.P, err, tt.want)
				}
				return
			}
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.field || !strings.Contains(ve.Hint, tt.hint) {
				t.Errorf("p %s: error %v; want field %s with a hint containing %q", tt.p, err, tt.field, tt.hint)
			}
		})
	}
	np := newPrediction("alice")
	np.ResolveBy = "31/03/2027"
	if _, err := s.CreatePrediction(ctx, np); err == nil || !strings.Contains(err.Error(), "resolve_by") {
		t.Errorf("resolve_by 31/03/2027: %v, want a resolve_by error", err)
	}
	np.ResolveBy, np.Resolves = "", strings.Repeat("r", board.MaxResolves+1)
	if _, err := s.CreatePrediction(ctx, np); err == nil || !strings.Contains(err.Error(), "resolves") {
		t.Errorf("resolves of %d characters: %v, want an error", board.MaxResolves+1, err)
	}
	np.Resolves = strings.Repeat("r", board.MaxResolves)
	if _, err := s.CreatePrediction(ctx, np); err != nil {
		t.Errorf("resolves of %d characters: %v", board.MaxResolves, err)
	}
}

// TestConcurrentForecasts: 32 agents forecast one prediction at once, each
// twice; the stored community must equal package pool's recomputation
// from the standing forecasts, exactly, on both databases.
func TestConcurrentForecasts(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		p := mustCreate(t, s, newPrediction("author"))
		const writers = 32
		var wg sync.WaitGroup
		errc := make(chan error, 2*writers)
		for i := range writers {
			wg.Go(func() {
				for round := range 2 {
					pv := fmt.Sprintf("%g", float64((i*7+round*13)%101)/100) // 0 and 1 included: clipped
					if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: fmt.Sprintf("w-%02d", i), P: raw(pv)}); err != nil {
						errc <- err
					}
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Errorf("Forecast: %v", err)
		}
		bad, err := s.CommunityMismatches(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Errorf("community differs from a recomputation: %v", bad)
		}
		got, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		h, err := s.Forecasts(ctx, p.ID, board.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Community.Forecasters != writers+1 || h.Total != 2*writers+1 {
			t.Errorf("forecasters %d, history %d; want %d and %d", got.Community.Forecasters, h.Total, writers+1, 2*writers+1)
		}
		for i, f := range h.Forecasts {
			if f.Seq != i+1 {
				t.Fatalf("history[%d].seq = %d", i, f.Seq)
			}
		}
		checkCounters(t, s)
	})
}

// Set moves the clock to t.
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// TestFeedClosing: sort=closing lists predictions still taking forecasts
// that have a close_at (given, or the end of their resolve_by day),
// soonest first; overdue marks those past their resolve_by date.
func TestFeedClosing(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		today := clk.Now().Format(time.DateOnly)
		mk := func(by string, close time.Duration) board.Prediction {
			clk.Advance(time.Second)
			np := newPrediction("alice")
			np.ResolveBy = by
			if close > 0 {
				np.CloseAt = clk.Now().Add(close).Format(time.RFC3339)
			}
			return mustCreate(t, s, np)
		}
		later := mk("2099-01-01", 0)
		mk("", 0)
		soon := mk("", 2*time.Hour)
		todays := mk(today, 0)
		done := mk(today, time.Hour)
		if _, err := s.Resolve(ctx, done.ID, board.NewResolution{Outcome: board.OutcomeNo}); err != nil {
			t.Fatal(err)
		}
		type row struct {
			ID      string
			Overdue bool
			Status  board.Status
		}
		closing := func() ([]row, board.Feed) {
			t.Helper()
			f, err := s.Feed(ctx, board.FeedQuery{Sort: "Closing"})
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			for _, p := range f.Predictions {
				got = append(got, row{p.ID, p.Overdue, p.Status})
			}
			return got, f
		}
		got, f := closing()
		want := []row{{soon.ID, false, board.StatusOpen}, {todays.ID, false, board.StatusOpen}, {later.ID, false, board.StatusOpen}}
		if diff := cmp.Diff(want, got); diff != "" || f.Total != 3 || f.Sort != board.SortClosing {
			t.Errorf("closing feed (-want +got), total %d:\n%s", f.Total, diff)
		}
		f, err := s.Feed(ctx, board.FeedQuery{Sort: board.SortClosing, Domain: "ai", Limit: 1, Offset: 1})
		if err != nil || len(f.Predictions) != 1 || f.Predictions[0].ID != todays.ID || !f.HasMore || f.Total != 3 {
			t.Errorf("closing feed page 2 of AI = %+v, %v", f, err)
		}
		// A day later the question due today is closed and overdue.
		clk.Advance(24 * time.Hour)
		got, f = closing()
		if diff := cmp.Diff([]row{{later.ID, false, board.StatusOpen}}, got); diff != "" || f.Total != 1 {
			t.Errorf("closing feed a day later (-want +got), total %d:\n%s", f.Total, diff)
		}
		if p := mustPrediction(t, s, todays.ID); p.Status != board.StatusClosed || !p.Overdue {
			t.Errorf("a day later the prediction due today is %s, overdue %v; want closed and overdue", p.Status, p.Overdue)
		}
	})
}
