package board

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/scoring"
)

// TestSkillHistorySince: the skills skillHistory reads from a moment on
// (the scores since then one by one, the earlier ones by the agents' sums
// less those) are, at every moment from then on, those of the whole
// record read score by score.
func TestSkillHistorySince(t *testing.T) {
	ctx := context.Background()
	s, day := dailyBoard(t, 30, func(i int) (Outcome, string, []string) {
		outcome := OutcomeYes
		if i%2 == 1 {
			outcome = OutcomeNo
		}
		who := []string{"ann", "bob", "cy"}
		if i%3 == 0 {
			who = append(who, "dan")
		}
		return outcome, "science", who
	})
	agents := []string{"ann", "bob", "cy", "dan", "eve"}
	var whole scoring.History
	var rows []struct {
		AgentID    string    `bun:"agent_id"`
		ResolvedAt time.Time `bun:"resolved_at"`
		Peer       float64   `bun:"peer_score"`
		Coverage   float64   `bun:"coverage"`
	}
	if err := s.read.NewRaw(`SELECT agent_id, resolved_at, peer_score, coverage FROM scores`).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 100 {
		t.Fatalf("%d scores, want 100", len(rows))
	}
	for _, r := range rows {
		whole.Add(r.AgentID, r.ResolvedAt.UTC(), r.Peer, r.Coverage)
	}
	for _, from := range []int{0, 1, 12, 29, 31, 40} {
		since, err := skillHistory(ctx, s.read, agents, day(from))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range agents {
			for d := from; d <= 40; d++ {
				for _, at := range []time.Time{day(d), day(d).Add(time.Nanosecond)} {
					if diff := cmp.Diff(whole.At(a, at), since.At(a, at), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
						t.Fatalf("skillHistory(from day %d).At(%s, %v) (-whole record +since):\n%s", from, a, at, diff)
					}
				}
			}
		}
	}
}

// dailyBoard opens a board (closed when the test ends) and loads n
// questions into it, one a day from 2026-01-01, question i resolved as
// q(i) says, in its domain, forecast by its forecasters (questionADay);
// day(d) is the day d days after the first.
func dailyBoard(t *testing.T, n int, q func(i int) (Outcome, string, []string)) (*Store, func(int) time.Time) {
	t.Helper()
	ctx := context.Background()
	day0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func(d int) time.Time { return day0.AddDate(0, 0, d) }
	s, err := Open(ctx, filepath.Join(t.TempDir(), "b.db"), Options{Now: func() time.Time { return day(100) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var qs []LoadQuestion
	for i := range n {
		outcome, domain, who := q(i)
		qs = append(qs, questionADay(i, day, outcome, domain, who))
	}
	if _, err := s.Load(ctx, qs); err != nil {
		t.Fatal(err)
	}
	return s, day
}

// questionADay is question i of a series, one a day: it opens on day(i),
// closes and resolves as outcome on day(i+1), and is forecast by who,
// each an hour after the one before, by a deterministic spread of
// probabilities; its author, ann, gives the first as her confidence.
func questionADay(i int, day func(int) time.Time, outcome Outcome, domain string, who []string) LoadQuestion {
	q := LoadQuestion{ID: fmt.Sprintf("q%02d", i), OpensAt: day(i), CloseAt: day(i + 1), ClosedAt: day(i + 1), Outcome: outcome}
	for j, a := range who {
		p := fmt.Sprintf("0.%02d", 10+(i*17+j*29)%80)
		q.Forecasts = append(q.Forecasts, LoadForecast{NewForecast: NewForecast{AgentID: a, P: []byte(p)}, At: day(i).Add(time.Duration(j+1) * time.Hour)})
	}
	c := 0.5
	fmt.Sscan(string(q.Forecasts[0].P), &c)
	q.Prediction = NewPrediction{AgentID: "ann", Title: "Question " + q.ID, Body: "A question a day.", Confidence: &c,
		Timeframe: "a day", Domain: domain, Resolves: "it says so", ResolveBy: "2026-03-01"}
	return q
}
