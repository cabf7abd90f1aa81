package people

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
)

// Follow makes person id follow prediction predictionID (on true) or stop
// following it (on false). Following one already followed, or stopping
// one not followed, changes nothing.
//
// Errors: [board.ErrNotFound] (wrapped) for an unknown prediction; a
// *[board.ValidationError] on prediction_id when the person follows
// [MaxFollows] already.
func (s *Store) Follow(ctx context.Context, id, predictionID string, on bool) error {
	if err := board.CheckRef("prediction_id", predictionID); err != nil {
		return err
	}
	if on {
		if _, err := s.board.Prediction(ctx, predictionID); err != nil {
			return err
		}
	}
	return s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if !on {
			_, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE person_id = ? AND prediction_id = ?`, id, predictionID)
			return err
		}
		var n int
		if err := tx.NewRaw(`SELECT COUNT(*) FROM follows WHERE person_id = ?`, id).Scan(ctx, &n); err != nil {
			return err
		}
		if n >= MaxFollows {
			return board.Invalid("prediction_id", fmt.Sprintf("cannot be followed: you follow %d predictions, the most one person may", n),
				"stop following one you no longer need first")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO follows (person_id, prediction_id, created_at) VALUES (?, ?, ?)
	ON CONFLICT (person_id, prediction_id) DO NOTHING`, id, predictionID, s.board.Now())
		return err
	})
}

// Follows reports whether person id follows predictionID.
func (s *Store) Follows(ctx context.Context, id, predictionID string) (bool, error) {
	var n int
	if err := s.read.NewRaw(`SELECT COUNT(*) FROM follows WHERE person_id = ? AND prediction_id = ?`, id, predictionID).Scan(ctx, &n); err != nil {
		return false, fmt.Errorf("people: follows: %w", err)
	}
	return n > 0, nil
}

// Followed is a prediction a person follows, as it stands now, and what
// happened to it since they followed it.
type Followed struct {
	Prediction board.Prediction
	Since      time.Time // when they followed it
}

// Following lists the predictions person id follows, those followed last
// first, at most limit (0 means 50).
func (s *Store) Following(ctx context.Context, id string, limit int) ([]Followed, error) {
	if limit <= 0 {
		limit = 50
	}
	var rows []struct {
		PredictionID string    `bun:"prediction_id"`
		Since        time.Time `bun:"created_at"`
	}
	if err := s.read.NewRaw(`SELECT prediction_id, created_at FROM follows WHERE person_id = ? ORDER BY created_at DESC, prediction_id LIMIT ?`,
		id, limit).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("people: following: %w", err)
	}
	out := make([]Followed, 0, len(rows))
	for _, r := range rows {
		p, err := s.board.Prediction(ctx, r.PredictionID)
		if err != nil {
			return nil, err
		}
		out = append(out, Followed{Prediction: p, Since: r.Since})
	}
	return out, nil
}
