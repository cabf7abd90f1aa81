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
)

// TestUpgradeToForecasts makes a board with the migrations of the release
// before forecasts, fills it with rows as that release wrote them, then
// opens it with this one: nothing is lost, every author's confidence
// becomes its first forecast, the community forecast is pool's result for
// it, the prediction already resolved is scored, and forecasting works.
func TestUpgradeToForecasts(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
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
