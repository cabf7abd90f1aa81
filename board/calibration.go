package board

import (
	"context"
	"fmt"
)

// MaxResolved is the most predictions [Store.Resolved] returns.
const MaxResolved = 1000

// Resolved returns an agent's predictions resolved yes or no (void ones are
// not scored), most recently resolved first, at most limit of them: the
// input of a calibration plot. A limit of 0 or less, or above
// [MaxResolved], means MaxResolved. An unknown agent has none: the result
// is empty, never nil. The filter uses the index predictions_agent_scored,
// so only the agent's resolved predictions are read and sorted.
func (s *Store) Resolved(ctx context.Context, agentID string, limit int) ([]Prediction, error) {
	if err := checkRef("agent_id", agentID); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > MaxResolved {
		limit = MaxResolved
	}
	var rows []predictionRow
	if err := s.read.NewRaw(`SELECT `+predictionCols+` FROM predictions AS p
	WHERE p.agent_id = ? AND p.status = ?
	ORDER BY p.resolved_at DESC, p.id DESC LIMIT ?`, agentID, string(StatusResolved), limit).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: resolved predictions: %w", err)
	}
	out := make([]Prediction, 0, len(rows))
	v := s.view()
	for _, r := range rows {
		out = append(out, r.prediction(v))
	}
	return out, nil
}
