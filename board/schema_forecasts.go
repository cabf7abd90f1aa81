package board

import (
	"context"
	"fmt"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/predictions-md/predictions/pool"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// forecastColumns are the columns of migration 20261125000001
// on existing tables. The community forecast is kept by all three pooling
// methods, so that a server restarted with another --pool reads an exact
// value without recomputing anything.
func forecastColumns() []bunmigrate.Columns {
	return []bunmigrate.Columns{
		{Table: "predictions", Defs: []string{
			"community_geo DOUBLE PRECISION NOT NULL DEFAULT 0.5",
			"community_mean DOUBLE PRECISION NOT NULL DEFAULT 0.5",
			"community_median DOUBLE PRECISION NOT NULL DEFAULT 0.5",
			"forecasters BIGINT NOT NULL DEFAULT 0",
			"community_spread DOUBLE PRECISION NOT NULL DEFAULT 0",
			"community_disagree BIGINT NOT NULL DEFAULT 0",
			"community_notes TEXT NOT NULL DEFAULT '[]'",
			"community_updated_at TIMESTAMP",
			"resolves TEXT NOT NULL DEFAULT ''",
			"resolve_by TEXT", // YYYY-MM-DD: text order is date order
		}},
		{Table: "agents", Defs: []string{
			"forecasts BIGINT NOT NULL DEFAULT 0",
			"scored BIGINT NOT NULL DEFAULT 0",
			"peer_sum DOUBLE PRECISION NOT NULL DEFAULT 0",
			"baseline_sum DOUBLE PRECISION NOT NULL DEFAULT 0",
			"fbrier_sum DOUBLE PRECISION NOT NULL DEFAULT 0",
			"flog_sum DOUBLE PRECISION NOT NULL DEFAULT 0",
		}},
	}
}

// forecastTables are the new tables of migration 20261125000001.
//
// forecasts is the history: every forecast ever made, numbered per
// prediction by seq (assigned under the prediction's row lock, so the order
// is the commit order whatever the replicas' clocks say), with the community
// forecast right after it. standings holds each agent's standing forecast
// per prediction, the input of the community forecast. scores holds the
// scores given at resolution (see scores.go).
func forecastTables() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS forecasts (
	id TEXT PRIMARY KEY,
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	seq BIGINT NOT NULL,
	p DOUBLE PRECISION NOT NULL CHECK (p >= 0 AND p <= 1),
	note TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	community_geo DOUBLE PRECISION NOT NULL,
	community_mean DOUBLE PRECISION NOT NULL,
	community_median DOUBLE PRECISION NOT NULL,
	forecasters BIGINT NOT NULL
)`,
		`CREATE UNIQUE INDEX IF NOT EXISTS forecasts_history ON forecasts (prediction_id, seq)`,
		`CREATE INDEX IF NOT EXISTS forecasts_agent ON forecasts (agent_id, created_at)`,
		`CREATE TABLE IF NOT EXISTS standings (
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	forecast_id TEXT NOT NULL,
	p DOUBLE PRECISION NOT NULL CHECK (p >= 0 AND p <= 1),
	first_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	PRIMARY KEY (prediction_id, agent_id)
)`,
		`CREATE INDEX IF NOT EXISTS standings_agent ON standings (agent_id, updated_at DESC, prediction_id)`,
		`CREATE TABLE IF NOT EXISTS scores (
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	p DOUBLE PRECISION NOT NULL,
	outcome TEXT NOT NULL CHECK (outcome IN ('yes', 'no')),
	brier DOUBLE PRECISION NOT NULL,
	log_score DOUBLE PRECISION NOT NULL,
	baseline_score DOUBLE PRECISION NOT NULL,
	peer_score DOUBLE PRECISION NOT NULL,
	coverage DOUBLE PRECISION NOT NULL,
	resolved_at TIMESTAMP NOT NULL,
	PRIMARY KEY (prediction_id, agent_id)
)`,
		`CREATE INDEX IF NOT EXISTS scores_agent ON scores (agent_id, resolved_at DESC)`,
		// sort=closing: open predictions with a resolve_by, soonest first.
		`CREATE INDEX IF NOT EXISTS predictions_closing ON predictions (status, resolve_by, created_at DESC, id DESC)`,
	}
}

// migrateForecasts is migration 20261125000001, in one transaction: the
// columns and tables above, then the backfill. Every stored prediction's
// confidence becomes its author's first forecast (its id is the
// prediction's id, seq 1, at the prediction's creation time), the standing
// forecast and community follow from it, each agent's forecasts count is
// its predictions count, and every prediction already resolved yes or no
// is scored by migration 20261126000002 (schema_lifecycle.go), which
// scores every resolved prediction over its life; this one, older, leaves
// the scores table empty, since the columns that scoring reads now come
// after it.
func migrateForecasts(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		added, err := bunmigrate.AddSchema(ctx, tx, forecastColumns(), forecastTables())
		if err != nil {
			return err
		}
		if !added["predictions.forecasters"] {
			return nil // a racing process did the backfill
		}
		return backfillForecasts(ctx, tx, nil)
	})
}

// backfillForecasts makes the author's confidence the first forecast of
// every prediction that has none (of those named by ids; nil means all)
// and sets their community forecast: the migration's backfill of boards
// made before forecasts.
func backfillForecasts(ctx context.Context, tx bun.Tx, ids []string) error {
	// The predictions without forecasts are those with forecasters = 0:
	// every write of a forecast sets it to at least 1.
	cond, upd := `p.forecasters = 0`, `forecasters = 0`
	var args []any
	if ids != nil {
		cond += ` AND p.id IN (?)`
		upd += ` AND id IN (?)`
		args = []any{bun.List(ids)}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO standings (prediction_id, agent_id, forecast_id, p, first_at, updated_at)
	SELECT p.id, p.agent_id, p.id, p.confidence, p.created_at, p.created_at FROM predictions AS p WHERE `+cond, args...); err != nil {
		return fmt.Errorf("backfill standings: %w", err)
	}
	// The community of one forecast depends only on its p, so it is pooled
	// once per distinct confidence; a clipped one carries a note naming
	// the agent, so those few are pooled row by row.
	var values []float64
	if err := tx.NewRaw(`SELECT DISTINCT p.confidence FROM predictions AS p WHERE `+cond, args...).Scan(ctx, &values); err != nil {
		return fmt.Errorf("backfill: %w", err)
	}
	for _, v := range values {
		if v < pool.ClipLow || v > pool.ClipHigh {
			continue
		}
		c, err := combine([]standing{{P: v}})
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE predictions SET community_geo = ?, community_mean = ?, community_median = ?,
	forecasters = 1, community_spread = ?, community_disagree = ?, community_notes = ?, community_updated_at = created_at
	WHERE confidence = ? AND `+upd, append([]any{c.Geo, c.Mean, c.Median, c.spread, c.disagree, c.notes, v}, args...)...); err != nil {
			return fmt.Errorf("backfill community: %w", err)
		}
	}
	var clipped []string
	if err := tx.NewRaw(`SELECT p.id FROM predictions AS p WHERE `+cond, args...).Scan(ctx, &clipped); err != nil {
		return fmt.Errorf("backfill: %w", err)
	}
	for _, id := range clipped {
		// The columns of this migration only: later ones add the rest.
		var st []standing
		if err := tx.NewRaw(`SELECT agent_id, p FROM standings WHERE prediction_id = ? ORDER BY agent_id`, id).Scan(ctx, &st); err != nil {
			return err
		}
		c, err := combine(st)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE predictions SET community_geo = ?, community_mean = ?, community_median = ?,
	forecasters = ?, community_spread = ?, community_disagree = ?, community_notes = ?, community_updated_at = created_at
	WHERE id = ?`, c.Geo, c.Mean, c.Median, c.n, c.spread, c.disagree, c.notes, id); err != nil {
			return err
		}
	}
	// The history row of each: all predictions now have a community, so
	// the new ones are those whose author has no forecast row yet.
	q := `INSERT INTO forecasts
	(id, prediction_id, agent_id, seq, p, note, created_at, community_geo, community_mean, community_median, forecasters)
	SELECT p.id, p.id, p.agent_id, 1, p.confidence, '', p.created_at, p.community_geo, p.community_mean, p.community_median, p.forecasters
	FROM predictions AS p WHERE NOT EXISTS (SELECT 1 FROM forecasts AS f WHERE f.prediction_id = p.id)`
	if ids != nil {
		q += ` AND p.id IN (?)`
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("backfill forecasts: %w", err)
	}
	if ids == nil {
		if _, err := tx.ExecContext(ctx, `UPDATE agents SET forecasts = predictions`); err != nil {
			return fmt.Errorf("backfill agents: %w", err)
		}
	}
	return nil
}
