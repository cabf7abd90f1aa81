package board

import (
	"context"
	"fmt"
	"time"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// lifecycleColumns are the columns of migration 20261126000002: a
// question's scheduled close (close_at, when forecasting stops; NULL for
// none) and its actual close (closed_at: set at the first resolution, the
// earlier of that moment and close_at, and never moved by a correction).
// A question opens at its created_at.
func lifecycleColumns() []bunmigrate.Columns {
	return []bunmigrate.Columns{
		{Table: "predictions", Defs: []string{
			"close_at TIMESTAMP",
			"closed_at TIMESTAMP",
		}},
	}
}

// lifecycleTables are the new tables and indexes of migration
// 20261126000002. resolutions records every resolution and correction:
// who, when, the outcome and the one it replaced (NULL for the first).
func lifecycleTables() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS resolutions (
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	seq BIGINT NOT NULL,
	outcome TEXT NOT NULL CHECK (outcome IN ('yes', 'no', 'void')),
	previous TEXT CHECK (previous IN ('yes', 'no', 'void')),
	by_name TEXT NOT NULL,
	at TIMESTAMP NOT NULL,
	PRIMARY KEY (prediction_id, seq)
)`,
		// sort=closing and the status filters open and closed: open
		// predictions by close_at.
		`DROP INDEX IF EXISTS predictions_closing`,
		`CREATE INDEX IF NOT EXISTS predictions_closing ON predictions (status, close_at, created_at DESC, id DESC)`,
	}
}

// migrateLifecycle is migration 20261126000002, in one transaction: the
// columns and tables above, then the backfill of existing boards.
//
//   - close_at is the end (UTC) of the resolve_by day of every prediction
//     that has one, as a new prediction's default;
//   - closed_at of a resolved or void prediction is its resolved_at, or its
//     close_at when that is earlier (forecasts stopped then);
//   - each resolved or void prediction gets one resolution row, by
//     "moderator" at its resolved_at (the earlier corrections were not
//     recorded);
//   - every prediction resolved yes or no is scored again, by package
//     scoring's Metaculus scores over its life (scores.go), and its
//     forecasters' sums follow.
func migrateLifecycle(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		added, err := bunmigrate.AddSchema(ctx, tx, lifecycleColumns(), lifecycleTables())
		if err != nil {
			return err
		}
		if !added["predictions.close_at"] {
			return nil // a racing process did the backfill
		}
		var days []string
		if err := tx.NewRaw(`SELECT DISTINCT resolve_by FROM predictions WHERE resolve_by IS NOT NULL`).Scan(ctx, &days); err != nil {
			return fmt.Errorf("backfill close_at: %w", err)
		}
		for _, d := range days {
			end, err := endOfDay(d)
			if err != nil {
				continue // not a date: no scheduled close
			}
			if _, err := tx.ExecContext(ctx, `UPDATE predictions SET close_at = ? WHERE resolve_by = ?`, end, d); err != nil {
				return fmt.Errorf("backfill close_at: %w", err)
			}
		}
		for _, q := range []string{
			`UPDATE predictions SET closed_at = CASE WHEN close_at IS NOT NULL AND close_at < resolved_at THEN close_at ELSE resolved_at END
	WHERE status <> 'open' AND resolved_at IS NOT NULL`,
			`INSERT INTO resolutions (prediction_id, seq, outcome, previous, by_name, at)
	SELECT id, 1, outcome, NULL, 'moderator', resolved_at FROM predictions
	WHERE status <> 'open' AND outcome IS NOT NULL AND resolved_at IS NOT NULL`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("backfill: %w", err)
			}
		}
		// Every resolved prediction is scored over its life by migration
		// 20261130000010 (schema_skill.go), the last to change what
		// scoring reads.
		return nil
	})
}

// endOfDay returns the end of a YYYY-MM-DD day in UTC: the next day's
// first instant, the default close of a prediction resolved by that day.
func endOfDay(day string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return time.Time{}, err
	}
	return d.AddDate(0, 0, 1), nil
}
