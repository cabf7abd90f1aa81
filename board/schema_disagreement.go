package board

import (
	"context"
	"fmt"
	"slices"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/pool"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// migrateDisagreement is migration 20261129000020: every stored
// prediction's community_disagree becomes [disagreement] of its standing
// forecasts, the board's rule (the middle half of at least
// [pool.MiddleMinForecasts] spanning more than [pool.MiddleDisagreePts]
// points), where the releases before stored pool.Combine's flag (the
// highest minus the lowest above 20 points). A prediction with fewer
// forecasters than the minimum is never flagged, so one statement clears
// those; the others are read in prediction order, one row a forecast,
// and only the flags that change are written. Run again, it changes
// nothing.
func migrateDisagreement(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE predictions SET community_disagree = 0 WHERE forecasters < ? AND community_disagree <> 0`,
			pool.MiddleMinForecasts); err != nil {
			return fmt.Errorf("disagreement: %w", err)
		}
		rows, err := tx.QueryContext(ctx, `SELECT p.id, p.community_disagree, s.agent_id, s.p FROM predictions AS p
	JOIN standings AS s ON s.prediction_id = p.id
	WHERE p.forecasters >= ? ORDER BY p.id, s.agent_id`, pool.MiddleMinForecasts)
		if err != nil {
			return fmt.Errorf("disagreement: %w", err)
		}
		defer rows.Close()
		change := map[int][]string{} // the new flag → the predictions that get it
		var (
			id     string
			stored int64
			st     []standing
		)
		flush := func() {
			if id == "" {
				return
			}
			if d := disagreement(st); int64(d) != stored {
				change[d] = append(change[d], id)
			}
		}
		for rows.Next() {
			var (
				pid, agent string
				flag       int64
				p          float64
			)
			if err := rows.Scan(&pid, &flag, &agent, &p); err != nil {
				return fmt.Errorf("disagreement: %w", err)
			}
			if pid != id {
				flush()
				id, stored, st = pid, flag, st[:0]
			}
			st = append(st, standing{AgentID: agent, P: p})
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("disagreement: %w", err)
		}
		flush()
		rows.Close()
		for flag, ids := range change {
			for chunk := range slices.Chunk(ids, database.RowsPerInsert) {
				if _, err := tx.ExecContext(ctx, `UPDATE predictions SET community_disagree = ? WHERE id IN (?)`, flag, bun.List(chunk)); err != nil {
					return fmt.Errorf("disagreement: %w", err)
				}
			}
		}
		return nil
	})
}
