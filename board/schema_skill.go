package board

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// skillColumns are migration 20261130000010's columns: the community
// forecast by the recency and skill pools on each prediction and on each
// forecast of its history, and the sums of its scores an agent's row
// keeps for its skill ([scoring.SkillFromSums]).
func skillColumns() []bunmigrate.Columns {
	const half, zero = " DOUBLE PRECISION NOT NULL DEFAULT 0.5", " DOUBLE PRECISION NOT NULL DEFAULT 0"
	return []bunmigrate.Columns{
		{Table: "predictions", Defs: []string{"community_recency" + half, "community_skill" + half}},
		{Table: "forecasts", Defs: []string{"community_recency" + half, "community_skill" + half}},
		{Table: "agents", Defs: []string{"peer_sq_sum" + zero, "coverage_sum" + zero}},
	}
}

// skillTables: community_scores holds the community forecast's scores on
// each resolved prediction, one row a pooling method (scoreCommunity);
// the index on scores' resolution times answers "the latest resolution"
// for [skillsAt].
func skillTables() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS community_scores (
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	method TEXT NOT NULL,
	p DOUBLE PRECISION NOT NULL,
	outcome TEXT NOT NULL CHECK (outcome IN ('yes', 'no')),
	brier DOUBLE PRECISION NOT NULL,
	log_score DOUBLE PRECISION NOT NULL,
	baseline_score DOUBLE PRECISION NOT NULL,
	peer_score DOUBLE PRECISION NOT NULL,
	coverage DOUBLE PRECISION NOT NULL,
	resolved_at TIMESTAMP NOT NULL,
	PRIMARY KEY (prediction_id, method)
)`,
		`CREATE INDEX IF NOT EXISTS scores_resolved ON scores (resolved_at)`,
	}
}

// migrateSkill is migration 20261130000010, in one transaction: the
// columns and tables above, then the backfill. Each agent's new sums are
// taken from its scores; every prediction's history is pooled again by
// the recency and skill pools, each forecast with the skills known at
// its time; then every prediction resolved yes or no has its community
// scored, and every prediction resolved before is scored again over its
// life (the lifecycle's rule). The other pools' stored values stay as
// they are.
func migrateSkill(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	pg := db.Dialect().Name() == dialect.PG
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// scorePrediction also keeps the running sums of schema_sums.go,
		// a later migration's tables, which that migration fills anew:
		// they are made here for it to write to.
		if _, err := bunmigrate.AddSchema(ctx, tx, skillColumns(), append(skillTables(), sumTables()...)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE agents SET (scored, peer_sum, baseline_sum, fbrier_sum, flog_sum, peer_sq_sum, coverage_sum) = (
	`+agentSums+`)`); err != nil {
			return err
		}
		var ids, resolved []string
		if err := tx.NewRaw(`SELECT id FROM predictions ORDER BY id`).Scan(ctx, &ids); err != nil {
			return err
		}
		if err := tx.NewRaw(`SELECT id FROM predictions WHERE status = 'resolved' ORDER BY id`).Scan(ctx, &resolved); err != nil {
			return err
		}
		// The agents' scores first (the skills the pools weigh), then
		// the pools, then the community's scores of those pools.
		rescore := func() error {
			for _, id := range resolved {
				if err := scorePrediction(ctx, tx, pg, id, false, nil); err != nil {
					return fmt.Errorf("rescore %s: %w", id, err)
				}
			}
			return nil
		}
		if err := rescore(); err != nil {
			return err
		}
		for _, id := range ids {
			if err := repool(ctx, tx, id); err != nil {
				return err
			}
		}
		return rescore()
	})
}

// repool pools a prediction's stored history again by the recency and
// skill pools and stores them on each forecast; the prediction's own
// community is pooled from its standing forecasts, with the skills known
// when it was last pooled.
func repool(ctx context.Context, tx bun.Tx, id string) error {
	var fs []struct {
		ID        string    `bun:"id"`
		AgentID   string    `bun:"agent_id"`
		P         float64   `bun:"p"`
		CreatedAt time.Time `bun:"created_at"`
	}
	if err := tx.NewRaw(`SELECT id, agent_id, p, created_at FROM forecasts WHERE prediction_id = ? ORDER BY seq`, id).Scan(ctx, &fs); err != nil {
		return err
	}
	if len(fs) > 0 {
		var agents []string
		for _, f := range fs {
			agents = append(agents, f.AgentID)
		}
		slices.Sort(agents)
		hist, err := skillHistory(ctx, tx, slices.Compact(agents), fs[0].CreatedAt)
		if err != nil {
			return err
		}
		stand := map[string]standing{}
		for _, f := range fs {
			c, err := poolAfter(stand, hist, f.AgentID, f.P, f.CreatedAt.UTC())
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE forecasts SET community_recency = ?, community_skill = ? WHERE id = ?`, c.Recency, c.Skill, f.ID); err != nil {
				return err
			}
		}
	}
	var at []struct {
		T bun.NullTime `bun:"community_updated_at"`
	}
	if err := tx.NewRaw(`SELECT community_updated_at FROM predictions WHERE id = ?`, id).Scan(ctx, &at); err != nil || len(at) == 0 {
		return err
	}
	st, err := standingsAt(ctx, tx, id, at[0].T.Time)
	if err != nil || len(st) == 0 {
		return err
	}
	c, err := combine(st)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE predictions SET community_recency = ?, community_skill = ? WHERE id = ?`, c.Recency, c.Skill, id)
	return err
}
