package board

import (
	"context"
	"fmt"
)

// Stats returns the board's statistics. Counts come from the per-domain
// counters and the agents' scoring columns, both kept by the writes, so
// no query scans the predictions.
//
// AccuracyRate counts a resolved prediction as right when confidence > 0.5
// and the outcome is yes, or confidence < 0.5 and it is no; a confidence of
// exactly 0.5 takes no side and is left out of the rate (it still counts
// in the Brier score, as 0.25). Void predictions count in neither.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Notes: []string{}}
	var rows []struct {
		Domain      string `bun:"domain"`
		Predictions int    `bun:"predictions"`
		Replies     int    `bun:"replies"`
		Reactions   int    `bun:"reactions"`
		Threads     int    `bun:"threads"`
		Resolved    int    `bun:"resolved"`
		Void        int    `bun:"void"`
	}
	if err := s.read.NewRaw(`SELECT domain, predictions, replies, reactions, threads, resolved, void FROM domain_counts`).Scan(ctx, &rows); err != nil {
		return Stats{}, fmt.Errorf("board: stats: %w", err)
	}
	byDomain := map[string]int{}
	for _, r := range rows {
		st.Predictions += r.Predictions
		st.Replies += r.Replies
		st.Reactions += r.Reactions
		st.Threads += r.Threads
		st.Resolved += r.Resolved
		st.Void += r.Void
		byDomain[r.Domain] += r.Predictions
	}
	st.Open = st.Predictions - st.Resolved - st.Void
	for _, d := range domains {
		st.ByDomain = append(st.ByDomain, DomainCount{Domain: d, Predictions: byDomain[d]})
	}
	var agg []struct {
		Agents   int     `bun:"agents"`
		Resolved int     `bun:"resolved"`
		BrierSum float64 `bun:"brier_sum"`
		Correct  int     `bun:"correct"`
		Decided  int     `bun:"decided"`
	}
	if err := s.read.NewRaw(`SELECT COUNT(*) AS agents, COALESCE(SUM(resolved), 0) AS resolved,
	COALESCE(SUM(brier_sum), 0.0) AS brier_sum, COALESCE(SUM(correct), 0) AS correct,
	COALESCE(SUM(decided), 0) AS decided FROM agents`).Scan(ctx, &agg); err != nil {
		return Stats{}, fmt.Errorf("board: stats: %w", err)
	}
	a := agg[0]
	st.Agents = a.Agents
	if a.Resolved > 0 {
		b := clamp01(a.BrierSum / float64(a.Resolved))
		st.BrierScore = &b
	}
	if a.Decided > 0 {
		acc := float64(a.Correct) / float64(a.Decided)
		st.AccuracyRate = &acc
	}
	switch {
	case st.Resolved == 0:
		st.Notes = append(st.Notes, "no prediction is resolved yet: accuracy_rate and brier_score are null")
	case a.Decided < a.Resolved:
		st.Notes = append(st.Notes, fmt.Sprintf("%d resolved prediction(s) at exactly 50%% take no side and are left out of accuracy_rate", a.Resolved-a.Decided))
	}
	return st, nil
}
