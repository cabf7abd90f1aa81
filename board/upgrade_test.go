package board_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
)

// TestUpgradeToForecasts makes a board with the migrations of the release
// before forecasts, fills it with rows as that release wrote them, then
// opens it with this one: nothing is lost, every author's confidence
// becomes its first forecast, the community forecast is pool's result for
// it, the prediction already resolved is scored, and forecasting works.
func TestUpgradeToForecasts(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			ins := `INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at, status, outcome, resolved_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
			stmts := []string{
				`INSERT INTO agents (id, name, first_seen, last_seen, predictions, resolved, brier_sum, correct, decided) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				`INSERT INTO agents (id, name, first_seen, last_seen, predictions) VALUES (?, ?, ?, ?, ?)`,
				ins, ins, ins,
				`INSERT INTO domain_counts (domain, predictions, resolved) VALUES (?, ?, ?)`,
			}
			args := [][]any{
				{"alice", "Alice", t0, t0.Add(2 * time.Hour), 2, 1, 0.04, 1, 1},
				{"bob", "bob", t0, t0, 1},
				{"p-resolved", "alice", "Resolved one", "body", 0.8, "Q1", "AI", t0, "resolved", "yes", t0.Add(time.Hour)},
				{"p-zero", "bob", "Never", "body", 0.0, "Q2", "AI", t0, "open", nil, nil},
				{"p-open", "alice", "Open one", "body", 0.35, "Q3", "AI", t0.Add(2 * time.Hour), "open", nil, nil},
				{"AI", 3, 1},
			}
			if err := board.SeedRelease(ctx, dsn, stmts, args); err != nil {
				t.Fatalf("SeedRelease: %v", err)
			}
			s := mustOpen(t, dsn, board.Options{Now: func() time.Time { return t0.Add(3 * time.Hour) }})

			for _, c := range []struct {
				id, agent string
				p         float64
				created   time.Time
			}{{"p-resolved", "alice", 0.8, t0}, {"p-zero", "bob", 0, t0}, {"p-open", "alice", 0.35, t0.Add(2 * time.Hour)}} {
				got, err := s.Prediction(ctx, c.id)
				if err != nil {
					t.Fatal(err)
				}
				r, err := pool.Combine([]pool.Forecast{{Who: c.agent, P: c.p}}, pool.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := board.Community{P: r.GeoOdds, Forecasters: 1, Method: pool.GeoOdds, UpdatedAt: c.created, Notes: r.Notes}
				if diff := cmp.Diff(want, got.Community); diff != "" {
					t.Errorf("%s community (-want +got):\n%s", c.id, diff)
				}
				if got.Confidence != c.p || got.AgentID != c.agent || !got.CreatedAt.Equal(c.created) {
					t.Errorf("%s = %+v: a stored field changed", c.id, got)
				}
				h, err := s.Forecasts(ctx, c.id, board.Page{})
				if err != nil {
					t.Fatal(err)
				}
				if len(h.Forecasts) != 1 || h.Forecasts[0].ID != c.id || h.Forecasts[0].P != c.p || h.Forecasts[0].Seq != 1 ||
					!h.Forecasts[0].CreatedAt.Equal(c.created) || h.Forecasts[0].AgentID != c.agent {
					t.Errorf("%s history = %+v; want the author's confidence as forecast 1", c.id, h.Forecasts)
				}
				if bad, err := s.CommunityMismatches(ctx, c.id); err != nil || len(bad) > 0 {
					t.Errorf("%s community mismatches: %v %v", c.id, bad, err)
				}
			}
			if z, _ := s.Prediction(ctx, "p-zero"); len(z.Community.Notes) != 1 || math.Abs(z.Community.P-pool.ClipLow) > 1e-15 {
				t.Errorf("p-zero community = %+v; want p clipped to 0.001 with pool's note", z.Community)
			}
			table, err := s.Scores(ctx, "p-resolved")
			if err != nil {
				t.Fatal(err)
			}
			if len(table.Scores) != 1 || table.Scores[0].AgentID != "alice" || table.Scores[0].Coverage != 1 ||
				math.Abs(table.Scores[0].BaselineScore-100*math.Log2(0.8/0.5)) > 1e-9 || table.Scores[0].PeerScore != 0 {
				t.Errorf("scores of the resolved prediction = %+v", table.Scores)
			}
			a, err := s.Agent(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if a.Name != "Alice" || a.Predictions != 2 || a.Forecasts != 2 || a.Scored != 1 || a.Resolved != 1 ||
				a.BrierScore == nil || math.Abs(*a.BrierScore-0.04) > 1e-12 {
				t.Errorf("alice = %+v", a)
			}
			checkCounters(t, s)

			r, err := s.Forecast(ctx, "p-open", board.NewForecast{AgentID: "bob", P: raw("0.6")})
			if err != nil {
				t.Fatal(err)
			}
			if r.Forecast.Seq != 2 || r.Community.Forecasters != 2 {
				t.Errorf("forecast after the upgrade = %+v", r)
			}
			// Opening again applies nothing new and changes nothing.
			s2 := mustOpen(t, dsn, board.Options{})
			if p, err := s2.Prediction(ctx, "p-open"); err != nil || p.Community.Forecasters != 2 {
				t.Errorf("second open: %+v %v", p.Community, err)
			}
			checkCounters(t, s)
		})
	}
}

// TestUpgradeToCounterShards: a board written with sharded domain
// counters goes back to one counter row per domain (the migration's Down,
// as a board of the release before was), then upgrades again on Open. At
// each step the statistics, the feed totals and a recount agree, and
// writes after the upgrade keep them exact.
func TestUpgradeToCounterShards(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			s, err := board.Open(ctx, dsn, board.Options{})
			if err != nil {
				t.Fatal(err)
			}
			doms := []string{"AI", "Science", "Sports"}
			var ps []board.Prediction
			for i := range 30 {
				np := newPrediction(fmt.Sprintf("agent-%d", i%4))
				np.Domain = doms[i%len(doms)]
				ps = append(ps, mustCreate(t, s, np))
			}
			for i, p := range ps[:12] {
				if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "bob", Body: "why?"}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: "carol", Reaction: board.ReactionAgree}); err != nil {
					t.Fatal(err)
				}
				if i < 2 {
					if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: []board.Outcome{board.OutcomeYes, board.OutcomeVoid}[i]}); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := statsAndTotals(t, s, doms)
			rows, err := board.CounterRows(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			spread := false
			for d, n := range rows {
				if n < 1 || n > board.CounterShards {
					t.Errorf("domain %s has %d counter rows, want 1 to %d", d, n, board.CounterShards)
				}
				spread = spread || n > 1
			}
			if !spread {
				t.Errorf("counter rows %v: no domain's writes were spread over shards", rows)
			}

			if err := board.UndoCounterShards(ctx, s); err != nil {
				t.Fatalf("UndoCounterShards: %v", err)
			}
			one := map[string]int{"AI": 1, "Science": 1, "Sports": 1}
			if got, err := board.CounterRows(ctx, s); err != nil || !cmp.Equal(one, got) {
				t.Errorf("after the Down: counter rows %v, %v; want %v", got, err, one)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			s = mustOpen(t, dsn, board.Options{})
			if got, err := board.CounterRows(ctx, s); err != nil || !cmp.Equal(one, got) {
				t.Errorf("after the upgrade: counter rows %v, %v; want %v (each domain's row as shard 0)", got, err, one)
			}
			if diff := cmp.Diff(want, statsAndTotals(t, s, doms)); diff != "" {
				t.Errorf("after the upgrade (-want +got):\n%s", diff)
			}
			checkCounters(t, s)
			np := newPrediction("dave")
			np.Domain = "AI"
			p := mustCreate(t, s, np)
			if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "bob", Body: "and?"}); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"predictions", "replies", "threads", "AI"} {
				want[k]++
			}
			if diff := cmp.Diff(want, statsAndTotals(t, s, doms)); diff != "" {
				t.Errorf("after a post and a reply (-want +got):\n%s", diff)
			}
			checkCounters(t, s)
		})
	}
}

// statsAndTotals returns the board's statistics (predictions, replies,
// reactions, threads, resolved, void) and each domain's feed total under
// its name.
func statsAndTotals(t *testing.T, s *board.Store, doms []string) map[string]int {
	t.Helper()
	ctx := context.Background()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{"predictions": st.Predictions, "replies": st.Replies, "reactions": st.Reactions,
		"threads": st.Threads, "resolved": st.Resolved, "void": st.Void}
	for _, d := range doms {
		f, err := s.Feed(ctx, board.FeedQuery{Domain: d})
		if err != nil {
			t.Fatal(err)
		}
		out[d] = f.Total
	}
	return out
}

// TestUpgradeToLifecycle makes a board as the release before the
// question's life left it, then opens it with this one: close_at comes
// from resolve_by (the end of that day, UTC), the resolved prediction is
// closed at its resolution with one recorded resolution, and it is scored
// anew by package scoring over its life.
func TestUpgradeToLifecycle(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			ins := `INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at, status, outcome, resolved_at, resolve_by, forecasters)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`
			fc := `INSERT INTO forecasts (id, prediction_id, agent_id, seq, p, created_at, community_geo, community_mean, community_median, forecasters)
	VALUES (?, ?, ?, ?, ?, ?, 0.5, 0.5, 0.5, 1)`
			st := `INSERT INTO standings (prediction_id, agent_id, forecast_id, p, first_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`
			stmts := []string{
				`INSERT INTO agents (id, name, first_seen, last_seen, predictions, forecasts) VALUES (?, ?, ?, ?, ?, ?)`,
				`INSERT INTO agents (id, name, first_seen, last_seen, forecasts) VALUES (?, ?, ?, ?, ?)`,
				ins, ins, ins, fc, fc, fc, fc, st, st, st, st,
			}
			args := [][]any{
				{"alice", "Alice", t0, t0, 3, 3},
				{"bob", "bob", t0, t0, 1},
				{"p-done", "alice", "Done", "body", 0.8, "Q1", "AI", t0, "resolved", "yes", t0.Add(time.Hour), "2026-03-01"},
				{"p-due", "alice", "Due", "body", 0.4, "Q1", "AI", t0, "open", nil, nil, "2026-03-10"},
				{"p-free", "alice", "Free", "body", 0.4, "Q1", "AI", t0, "open", nil, nil, nil},
				{"p-done", "p-done", "alice", 1, 0.8, t0},
				{"f-bob", "p-done", "bob", 2, 0.3, t0.Add(30 * time.Minute)},
				{"p-due", "p-due", "alice", 1, 0.4, t0},
				{"p-free", "p-free", "alice", 1, 0.4, t0},
				{"p-done", "alice", "p-done", 0.8, t0, t0},
				{"p-done", "bob", "f-bob", 0.3, t0.Add(30 * time.Minute), t0.Add(30 * time.Minute)},
				{"p-due", "alice", "p-due", 0.4, t0, t0},
				{"p-free", "alice", "p-free", 0.4, t0, t0},
			}
			if err := board.SeedAt(ctx, dsn, "20261126000001", stmts, args); err != nil {
				t.Fatalf("SeedAt: %v", err)
			}
			s := mustOpen(t, dsn, board.Options{Now: func() time.Time { return t0.Add(2 * time.Hour) }})
			at := func(tt time.Time) *time.Time { return &tt }
			for _, c := range []struct {
				id            string
				close, closed *time.Time
				status        board.Status
				resolutions   int
			}{
				{"p-done", at(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)), at(t0.Add(time.Hour)), board.StatusResolved, 1},
				{"p-due", at(time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)), nil, board.StatusOpen, 0},
				{"p-free", nil, nil, board.StatusOpen, 0},
			} {
				p := mustPrediction(t, s, c.id)
				if diff := cmp.Diff(c.close, p.CloseAt); diff != "" {
					t.Errorf("%s close_at (-want +got):\n%s", c.id, diff)
				}
				if diff := cmp.Diff(c.closed, p.ClosedAt); diff != "" {
					t.Errorf("%s closed_at (-want +got):\n%s", c.id, diff)
				}
				if p.Status != c.status || len(p.Resolutions) != c.resolutions {
					t.Errorf("%s: status %s, %d resolutions; want %s, %d", c.id, p.Status, len(p.Resolutions), c.status, c.resolutions)
				}
			}
			want, err := scoring.TimeAveraged([]scoring.TimedForecast{{Who: "alice", P: 0.8, At: t0}, {Who: "bob", P: 0.3, At: t0.Add(30 * time.Minute)}},
				scoring.Life{Open: t0, Close: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), ActualClose: t0.Add(time.Hour)}, true)
			if err != nil {
				t.Fatal(err)
			}
			got := scoresOf(t, s, "p-done")
			for _, w := range want {
				g := got[w.Who]
				if math.Abs(g.BaselineScore-w.Baseline) > 1e-12 || math.Abs(g.PeerScore-w.Peer) > 1e-12 || math.Abs(g.Coverage-w.Coverage) > 1e-12 {
					t.Errorf("%s: scores %+v, want %+v", w.Who, g, w)
				}
			}
			if a, err := s.Agent(ctx, "bob"); err != nil || a.Scored != 1 || a.PeerScore == nil || math.Abs(*a.PeerScore-want[1].Peer) > 1e-12 {
				t.Errorf("bob after the upgrade: %+v, %v", a, err)
			}
		})
	}
}

// TestUpgradeToMiddleDisagreement makes a board as the release before the
// board's own disagreement measure left it, each prediction flagged by
// pool.Combine (the highest minus the lowest above 20 points), then opens
// it with this one: every flag is pool.MiddleDisagree's, the community
// check finds nothing to fix, and the migration's Down brings the old
// flags back.
func TestUpgradeToMiddleDisagreement(t *testing.T) {
	cases := []struct {
		id   string
		ps   []float64 // by agents a, b, c, ...
		want bool
	}{
		{"p-one", []float64{0.4}, false},
		{"p-two-apart", []float64{0.1, 0.9}, false},
		{"p-outlier", []float64{0.6, 0.62, 0.05, 0.65, 0.58}, false},
		{"p-split", []float64{0.2, 0.25, 0.7, 0.75}, true},
		{"p-close", []float64{0.5, 0.55, 0.52, 0.6}, false},
	}
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			var stmts []string
			var args [][]any
			for _, a := range []string{"a", "b", "c", "d", "e"} {
				stmts = append(stmts, `INSERT INTO agents (id, name, first_seen, last_seen, forecasts) VALUES (?, ?, ?, ?, ?)`)
				args = append(args, []any{a, a, t0, t0, 1})
			}
			// Each prediction with its community as that release stored it,
			// then its standing forecasts.
			oldFlags := map[string]bool{}
			for _, c := range cases {
				fs := make([]pool.Forecast, len(c.ps))
				for i, p := range c.ps {
					fs[i] = pool.Forecast{Who: string(rune('a' + i)), P: p}
				}
				r, err := pool.Combine(fs, pool.Options{})
				if err != nil {
					t.Fatal(err)
				}
				oldFlags[c.id] = r.Disagree
				stmts = append(stmts, `INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at, status,
	forecasters, community_geo, community_mean, community_median, community_spread, community_disagree, community_notes, community_updated_at)
	VALUES (?, 'a', 'Title', 'body', ?, 'Q1', 'AI', ?, 'open', ?, ?, ?, ?, ?, ?, '[]', ?)`)
				args = append(args, []any{c.id, c.ps[0], t0, r.N, r.GeoOdds, r.Mean, r.Median, r.SpreadPts, map[bool]int{true: 1}[r.Disagree], t0})
				for _, f := range fs {
					stmts = append(stmts, `INSERT INTO standings (prediction_id, agent_id, forecast_id, p, first_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
					args = append(args, []any{c.id, f.Who, c.id + f.Who, f.P, t0, t0})
				}
			}
			if err := board.SeedAt(ctx, dsn, "20261128000010", stmts, args); err != nil {
				t.Fatalf("SeedAt: %v", err)
			}
			if !oldFlags["p-two-apart"] || !oldFlags["p-outlier"] || oldFlags["p-close"] {
				t.Fatalf("the seed's flags %v: the cases no longer test a change", oldFlags)
			}
			s := mustOpen(t, dsn, board.Options{Now: func() time.Time { return t0.Add(time.Hour) }})
			for _, c := range cases {
				p := mustPrediction(t, s, c.id)
				if p.Community.Disagreement != c.want {
					t.Errorf("%s: disagreement %v after the upgrade, want %v", c.id, p.Community.Disagreement, c.want)
				}
				if m, err := s.CommunityMismatches(ctx, c.id); err != nil || len(m) > 0 {
					t.Errorf("%s: CommunityMismatches = %v, %v", c.id, m, err)
				}
			}
			// Down restores the old flags; the next Open applies Up again.
			if err := board.UndoMiddleDisagreement(ctx, s); err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if p := mustPrediction(t, s, c.id); p.Community.Disagreement != oldFlags[c.id] {
					t.Errorf("%s: disagreement %v after Down, want the old %v", c.id, p.Community.Disagreement, oldFlags[c.id])
				}
			}
			s2 := mustOpen(t, dsn, board.Options{})
			for _, c := range cases {
				if p := mustPrediction(t, s2, c.id); p.Community.Disagreement != c.want {
					t.Errorf("%s: disagreement %v after Down and Up again, want %v", c.id, p.Community.Disagreement, c.want)
				}
			}
		})
	}
}
