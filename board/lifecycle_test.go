package board_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/scoring"
)

// TestCloseLimits checks close_at and resolve_by at their boundaries, on
// every database, from one table: the clock is pinned at 2026-03-01
// 12:00:00 UTC.
func TestCloseLimits(t *testing.T) {
	now := newClock().Now()
	tests := []struct {
		name      string
		resolveBy string
		closeAt   string
		wantField string    // the field a 400 names; "" for success
		wantClose time.Time // the stored close_at (zero for none)
	}{
		{name: "neither"},
		{name: "resolve_by today closes at its end", resolveBy: "2026-03-01", wantClose: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
		{name: "resolve_by yesterday", resolveBy: "2026-02-28", wantField: "resolve_by"},
		{name: "close_at malformed", closeAt: "next tuesday", wantField: "close_at"},
		{name: "close_at without offset", closeAt: "2026-03-05T10:00:00", wantField: "close_at"},
		{name: "close_at now", closeAt: "2026-03-01T12:00:00Z", wantField: "close_at"},
		{name: "close_at a microsecond after now", closeAt: "2026-03-01T12:00:00.000001Z", wantClose: now.Add(time.Microsecond)},
		{name: "close_at in another offset", closeAt: "2026-03-02T12:00:00+02:00", wantClose: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)},
		{name: "close_at nanoseconds truncated", closeAt: "2026-03-02T12:00:00.123456789Z", wantClose: time.Date(2026, 3, 2, 12, 0, 0, 123456000, time.UTC)},
		{name: "close_at at the end of resolve_by", resolveBy: "2026-03-10", closeAt: "2026-03-11T00:00:00Z", wantClose: time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)},
		{name: "close_at past the end of resolve_by", resolveBy: "2026-03-10", closeAt: "2026-03-11T00:00:00.000001Z", wantField: "close_at"},
		{name: "close_at before resolve_by", resolveBy: "2026-03-10", closeAt: "2026-03-05T00:00:00Z", wantClose: time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)},
	}
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{Now: newClock().Now})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				np := newPrediction("alice")
				np.ResolveBy, np.CloseAt = tt.resolveBy, tt.closeAt
				p, err := s.CreatePrediction(context.Background(), np)
				var ve *board.ValidationError
				switch {
				case tt.wantField != "":
					if !errors.As(err, &ve) || ve.Field != tt.wantField || ve.Hint == "" {
						t.Fatalf("CreatePrediction(resolve_by %q, close_at %q) = %v, want a 400 naming %s with a hint", tt.resolveBy, tt.closeAt, err, tt.wantField)
					}
					return
				case err != nil:
					t.Fatalf("CreatePrediction(resolve_by %q, close_at %q): %v", tt.resolveBy, tt.closeAt, err)
				}
				got, err := s.Prediction(context.Background(), p.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range []board.Prediction{p, got} {
					var close time.Time
					if q.CloseAt != nil {
						close = *q.CloseAt
					}
					if !close.Equal(tt.wantClose) || q.Status != board.StatusOpen || !q.OpensAt.Equal(now) {
						t.Errorf("close_at %v, status %s, opens_at %v; want close_at %v, open, opens_at %v", close, q.Status, q.OpensAt, tt.wantClose, now)
					}
				}
			})
		}
	})
}

// TestForecastAtClose: a forecast a microsecond before close_at is taken,
// one at close_at is a 409 naming close_at, and the prediction reads as
// closed from that instant.
func TestForecastAtClose(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		close := clk.Now().Add(time.Hour)
		np := newPrediction("alice")
		np.CloseAt = close.Format(time.RFC3339)
		p := mustCreate(t, s, np)

		clk.Set(close.Add(-time.Microsecond))
		r, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "bob", P: raw("0.4")})
		if err != nil {
			t.Fatalf("forecast a microsecond before the close: %v", err)
		}
		if !r.Forecast.CreatedAt.Equal(close.Add(-time.Microsecond)) {
			t.Errorf("created_at = %v, want %v", r.Forecast.CreatedAt, close.Add(-time.Microsecond))
		}
		if got := mustPrediction(t, s, p.ID).Status; got != board.StatusOpen {
			t.Errorf("status a microsecond before the close = %s, want open", got)
		}

		clk.Set(close)
		_, err = s.Forecast(ctx, p.ID, board.NewForecast{AgentID: "carol", P: raw("0.5")})
		var ve *board.ValidationError
		if !errors.Is(err, board.ErrClosed) || !errors.As(err, &ve) || ve.Field != "close_at" {
			t.Fatalf("forecast at the close = %v, want ErrClosed naming close_at", err)
		}
		if got := mustPrediction(t, s, p.ID).Status; got != board.StatusClosed {
			t.Errorf("status at the close = %s, want closed", got)
		}
		fp, err := s.Forecasts(ctx, p.ID, board.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if fp.Total != 2 {
			t.Errorf("%d forecasts stored, want 2 (the author's and bob's)", fp.Total)
		}
	})
}

func mustPrediction(t *testing.T, s *board.Store, id string) board.Prediction {
	t.Helper()
	p, err := s.Prediction(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResolutionLife: an early resolution closes the prediction then; a
// resolution after close_at leaves the close at close_at; a correction
// changes the outcome and the scores, is recorded with who and when, and
// moves neither resolved_at nor closed_at.
func TestResolutionLife(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		t0 := clk.Now()
		np := newPrediction("alice")
		np.CloseAt = t0.Add(100 * time.Second).Format(time.RFC3339)
		early := mustCreate(t, s, np)
		late := mustCreate(t, s, np)
		clk.Set(t0.Add(20 * time.Second))
		for _, id := range []string{early.ID, late.ID} {
			if _, err := s.Forecast(ctx, id, board.NewForecast{AgentID: "bob", P: raw("0.3")}); err != nil {
				t.Fatal(err)
			}
		}

		clk.Set(t0.Add(60 * time.Second))
		p, err := s.Resolve(ctx, early.ID, board.NewResolution{Outcome: board.OutcomeYes})
		if err != nil {
			t.Fatal(err)
		}
		first := t0.Add(60 * time.Second)
		if !p.ClosedAt.Equal(first) || !p.ResolvedAt.Equal(first) {
			t.Errorf("early resolution: closed_at %v, resolved_at %v; want both %v", p.ClosedAt, p.ResolvedAt, first)
		}
		served := scoresOf(t, s, early.ID)

		clk.Set(t0.Add(500 * time.Second))
		p, err = s.Resolve(ctx, early.ID, board.NewResolution{Outcome: board.OutcomeNo, By: "Dana (moderator)"})
		if err != nil {
			t.Fatal(err)
		}
		want := []board.Resolution{
			{Outcome: board.OutcomeYes, By: "moderator", At: first},
			{Outcome: board.OutcomeNo, Previous: board.OutcomeYes, By: "Dana (moderator)", At: t0.Add(500 * time.Second)},
		}
		if diff := cmp.Diff(want, p.Resolutions); diff != "" {
			t.Errorf("resolutions (-want +got):\n%s", diff)
		}
		if !p.ClosedAt.Equal(first) || !p.ResolvedAt.Equal(first) || p.Outcome != board.OutcomeNo {
			t.Errorf("after the correction: closed_at %v, resolved_at %v, outcome %s; want %v, %v, no", p.ClosedAt, p.ResolvedAt, p.Outcome, first, first)
		}
		corrected := scoresOf(t, s, early.ID)
		// The author gave 0.7 to yes from 0 to 20 s and stood alone: its
		// baseline over the 60 s scored of a 100 s life flips sign with
		// the outcome, and no score covers time after the first close.
		for agent, sc := range corrected {
			if sc.Coverage > 0.6+1e-12 {
				t.Errorf("%s: coverage %g after the correction; the life scored ends at 60 s of 100", agent, sc.Coverage)
			}
			if sc.BaselineScore == served[agent].BaselineScore {
				t.Errorf("%s: baseline %g unchanged by the correction from yes to no", agent, sc.BaselineScore)
			}
		}

		clk.Set(t0.Add(300 * time.Second))
		p, err = s.Resolve(ctx, late.ID, board.NewResolution{Outcome: board.OutcomeYes})
		if err != nil {
			t.Fatal(err)
		}
		if !p.ClosedAt.Equal(t0.Add(100*time.Second)) || !p.ResolvedAt.Equal(t0.Add(300*time.Second)) {
			t.Errorf("late resolution: closed_at %v, resolved_at %v; want %v and %v", p.ClosedAt, p.ResolvedAt, t0.Add(100*time.Second), t0.Add(300*time.Second))
		}
		for agent, sc := range scoresOf(t, s, late.ID) {
			if math.Abs(sc.Coverage-map[string]float64{"alice": 1, "bob": 0.8}[agent]) > 1e-12 {
				t.Errorf("late resolution: %s coverage %g", agent, sc.Coverage)
			}
		}
	})
}

func scoresOf(t *testing.T, s *board.Store, id string) map[string]board.Score {
	t.Helper()
	tab, err := s.Scores(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]board.Score{}
	for _, sc := range tab.Scores {
		out[sc.AgentID] = sc
	}
	return out
}

// TestTimeInCommitOrder: 32 writers forecast one prediction on the real
// clock while a resolution races them. In commit order (seq) created_at
// never decreases, no acknowledged forecast lies after the actual close,
// every forecast refused came after the resolution, and the served scores
// equal package scoring's over the published forecasts and times.
func TestTimeInCommitOrder(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		p := mustCreate(t, s, newPrediction("author"))
		const writers, each = 32, 6
		var wg sync.WaitGroup
		var mu sync.Mutex
		acked, refused := 0, 0
		start := make(chan struct{})
		for w := range writers {
			wg.Go(func() {
				<-start
				for i := range each {
					_, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: fmt.Sprintf("w%d", w), P: raw(fmt.Sprintf("0.%d", 1+(w+i)%9))})
					mu.Lock()
					switch {
					case err == nil:
						acked++
					case errors.Is(err, board.ErrClosed):
						refused++
					default:
						t.Errorf("Forecast: %v", err)
					}
					mu.Unlock()
				}
			})
		}
		wg.Go(func() {
			<-start
			time.Sleep(20 * time.Millisecond)
			if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
				t.Errorf("Resolve: %v", err)
			}
		})
		close(start)
		wg.Wait()
		got := mustPrediction(t, s, p.ID)
		if got.ClosedAt == nil {
			t.Fatalf("resolved prediction without closed_at: %+v", got)
		}
		fp, err := s.Forecasts(ctx, p.ID, board.Page{Limit: board.MaxForecastPage})
		if err != nil {
			t.Fatal(err)
		}
		if fp.Total != acked+1 || acked+refused != writers*each {
			t.Fatalf("%d forecasts stored; %d acknowledged (+1 the author's), %d refused of %d", fp.Total, acked, refused, writers*each)
		}
		var events []scoring.TimedForecast
		for i, f := range fp.Forecasts {
			if i > 0 && f.CreatedAt.Before(fp.Forecasts[i-1].CreatedAt) {
				t.Errorf("seq %d at %v is before seq %d at %v", f.Seq, f.CreatedAt, fp.Forecasts[i-1].Seq, fp.Forecasts[i-1].CreatedAt)
			}
			if f.CreatedAt.After(*got.ClosedAt) {
				t.Errorf("seq %d at %v is after the close %v", f.Seq, f.CreatedAt, *got.ClosedAt)
			}
			events = append(events, scoring.TimedForecast{Who: f.AgentID, P: f.P, At: f.CreatedAt})
		}
		want, err := scoring.TimeAveraged(events, scoring.Life{Open: got.OpensAt, ActualClose: *got.ClosedAt}, true)
		if err != nil {
			t.Fatal(err)
		}
		served := scoresOf(t, s, p.ID)
		if len(served) != len(want) {
			t.Errorf("%d agents scored, want %d", len(served), len(want))
		}
		for _, w := range want {
			sc := served[w.Who]
			if math.Abs(sc.BaselineScore-w.Baseline) > 1e-9 || math.Abs(sc.PeerScore-w.Peer) > 1e-9 || math.Abs(sc.Coverage-w.Coverage) > 1e-9 {
				t.Errorf("%s: served baseline %g peer %g coverage %g; recomputed %g %g %g", w.Who, sc.BaselineScore, sc.PeerScore, sc.Coverage, w.Baseline, w.Peer, w.Coverage)
			}
		}
	})
}

// TestFeedFollowsTheClock: status open and closed, and sort=closing, move
// exactly at each close_at, with and without the page cache, and their
// totals agree with the pages.
func TestFeedFollowsTheClock(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		t0 := clk.Now()
		mk := func(title string, close time.Duration) string {
			np := newPrediction("alice")
			np.Title = title
			if close > 0 {
				np.CloseAt = t0.Add(close).Format(time.RFC3339)
			}
			return mustCreate(t, s, np).ID
		}
		never := mk("never closes", 0)
		hour := mk("closes in an hour", time.Hour)
		two := mk("closes in two hours", 2*time.Hour)
		titles := map[string]string{never: "never", hour: "hour", two: "two"}
		list := func(q board.FeedQuery) []string {
			t.Helper()
			f, err := s.Feed(ctx, q)
			if err != nil {
				t.Fatalf("Feed(%+v): %v", q, err)
			}
			if f.Total != len(f.Predictions) {
				t.Errorf("Feed(%+v): total %d, %d on the page", q, f.Total, len(f.Predictions))
			}
			var out []string
			for _, p := range f.Predictions {
				out = append(out, titles[p.ID])
			}
			return out
		}
		check := func(when string, open, closed, closing []string) {
			t.Helper()
			for range 2 { // the second read may come from the page cache
				for _, c := range []struct {
					q    board.FeedQuery
					want []string
				}{
					{board.FeedQuery{Status: board.StatusOpen}, open},
					{board.FeedQuery{Status: board.StatusClosed}, closed},
					{board.FeedQuery{Sort: board.SortClosing}, closing},
				} {
					got := list(c.q)
					slices.Sort(got)
					want := slices.Clone(c.want)
					slices.Sort(want)
					if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
						t.Errorf("%s: Feed(%+v) = %v, want %v", when, c.q, got, want)
					}
				}
			}
		}
		check("at the start", []string{"never", "hour", "two"}, nil, []string{"hour", "two"})
		clk.Set(t0.Add(time.Hour - time.Microsecond))
		check("a microsecond before the first close", []string{"never", "hour", "two"}, nil, []string{"hour", "two"})
		clk.Set(t0.Add(time.Hour))
		check("at the first close", []string{"never", "two"}, []string{"hour"}, []string{"two"})
		clk.Set(t0.Add(3 * time.Hour))
		check("after both", []string{"never"}, []string{"hour", "two"}, nil)
		if _, err := s.Resolve(ctx, hour, board.NewResolution{Outcome: board.OutcomeNo}); err != nil {
			t.Fatal(err)
		}
		check("one resolved", []string{"never"}, []string{"two"}, nil)
		f, err := s.Feed(ctx, board.FeedQuery{Sort: board.SortClosing, Limit: 1})
		if err != nil || len(f.Predictions) != 0 {
			t.Errorf("closing after every close: %v, %v", f.Predictions, err)
		}
	})
}
