package board

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// calibrationBins is the number of bins of the calibration table an
// agent's page shows, kept as running sums in calibration_sums.
const calibrationBins = scoring.DefaultBins

// sumTables are migration 20261202000010's tables: the running sums of the
// scores that the leaderboards and an agent's page read, kept up to date
// by every scoring (addScoreSums) so that a read costs what its page
// holds, not what the board holds.
//
//   - agent_domain_sums: an agent's score sums over one domain's
//     predictions (the sums agents keeps over all of them), for the
//     domain leaderboards.
//   - community_sums: the community forecast's score sums by pooling
//     method, over one domain's predictions, or over all of them where
//     domain is ”.
//   - calibration_sums: an agent's calibration table, [calibrationBins]
//     bins of [scoring.BinSums].
func sumTables() []string {
	const sums = `
	scored BIGINT NOT NULL DEFAULT 0,
	peer_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
	baseline_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
	fbrier_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
	flog_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
	peer_sq_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
	coverage_sum DOUBLE PRECISION NOT NULL DEFAULT 0,`
	return []string{
		`CREATE TABLE IF NOT EXISTS agent_domain_sums (
	domain TEXT NOT NULL,
	agent_id TEXT NOT NULL REFERENCES agents (id),` + sums + `
	PRIMARY KEY (domain, agent_id)
)`,
		`CREATE TABLE IF NOT EXISTS community_sums (
	method TEXT NOT NULL,
	domain TEXT NOT NULL,` + sums + `
	PRIMARY KEY (method, domain)
)`,
		`CREATE TABLE IF NOT EXISTS calibration_sums (
	agent_id TEXT NOT NULL REFERENCES agents (id),
	bin INTEGER NOT NULL,
	scored BIGINT NOT NULL DEFAULT 0,
	yes BIGINT NOT NULL DEFAULT 0,
	p_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
	PRIMARY KEY (agent_id, bin)
)`,
	}
}

// scoreSumCols are the columns of a sum table's row after its key, in
// the order of [sums.row].
const scoreSumCols = `scored, peer_sum, baseline_sum, fbrier_sum, flog_sum, peer_sq_sum, coverage_sum`

// recountSums selects the sums of scoreSumCols over the scores sc, each
// named as its column.
const recountSums = `COUNT(*) AS scored, SUM(sc.peer_score) AS peer_sum, SUM(sc.baseline_score) AS baseline_sum,
	SUM(sc.brier) AS fbrier_sum, SUM(sc.log_score) AS flog_sum, SUM(sc.peer_score * sc.peer_score) AS peer_sq_sum, SUM(sc.coverage) AS coverage_sum`

// migrateSums is migration 20261202000010, in one transaction: the tables
// of sumTables, filled from the stored scores (emptied first, so that a
// second process racing on the same SQLite file does not count twice).
func migrateSums(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	pg := db.Dialect().Name() == dialect.PG
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := bunmigrate.Exec(ctx, tx, append(sumTables(), skillIndexes(pg)...)...); err != nil {
			return err
		}
		return refillSums(ctx, tx)
	})
}

// skillIndexes order the agents, and each domain's agents, by skillKey,
// highest first and unranked agents last, as a leaderboard by skill
// reads them (SQLite's descending order puts nulls last; PostgreSQL is
// told); agents_kind counts a kind's forecasters (a kind never changes,
// so only a new forecaster writes to it).
func skillIndexes(pg bool) []string {
	key := `(` + skillKey("") + `) DESC`
	if pg {
		key += ` NULLS LAST`
	}
	return []string{
		`CREATE INDEX IF NOT EXISTS agents_skill ON agents (` + key + `)`,
		`CREATE INDEX IF NOT EXISTS agent_domain_sums_skill ON agent_domain_sums (domain, ` + key + `)`,
		`CREATE INDEX IF NOT EXISTS agents_kind ON agents (kind)`,
	}
}

// refillSums fills the tables of sumTables anew from the stored scores.
func refillSums(ctx context.Context, tx bun.Tx) error {
	err := bunmigrate.Exec(ctx, tx,
		`DELETE FROM agent_domain_sums`, `DELETE FROM community_sums`, `DELETE FROM calibration_sums`,
		`INSERT INTO agent_domain_sums (domain, agent_id, `+scoreSumCols+`)
	SELECT p.domain, sc.agent_id, `+recountSums+` FROM scores AS sc JOIN predictions AS p ON p.id = sc.prediction_id
	GROUP BY p.domain, sc.agent_id`,
		`INSERT INTO community_sums (method, domain, `+scoreSumCols+`)
	SELECT sc.method, p.domain, `+recountSums+` FROM community_scores AS sc JOIN predictions AS p ON p.id = sc.prediction_id
	GROUP BY sc.method, p.domain`,
		`INSERT INTO community_sums (method, domain, `+scoreSumCols+`)
	SELECT sc.method, '', `+recountSums+` FROM community_scores AS sc GROUP BY sc.method`)
	if err != nil {
		return err
	}
	cal, err := recountCalibration(ctx, tx)
	if err != nil {
		return err
	}
	var rows [][]any
	for _, a := range slices.Sorted(maps.Keys(cal)) {
		for bin, b := range cal[a] {
			if b.Count > 0 {
				rows = append(rows, []any{a, bin, b.Count, b.Yes, b.SumP})
			}
		}
	}
	return database.InsertRows(ctx, tx, `INSERT INTO calibration_sums (agent_id, bin, scored, yes, p_sum) VALUES `, rows, "")
}

// recountCalibration is every agent's calibration table summed anew from
// its scores, the bins chosen by package scoring.
func recountCalibration(ctx context.Context, db bun.IDB) (map[string][]scoring.BinSums, error) {
	rows, err := db.QueryContext(ctx, `SELECT agent_id, p, outcome FROM scores`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]scoring.BinSums{}
	for rows.Next() {
		var (
			agent, outcome string
			p              float64
		)
		if err := rows.Scan(&agent, &p, &outcome); err != nil {
			return nil, err
		}
		bins := out[agent]
		if bins == nil {
			bins = make([]scoring.BinSums, calibrationBins)
			out[agent] = bins
		}
		if err := addCalibration(bins, p, outcome == string(OutcomeYes), 1); err != nil {
			return nil, fmt.Errorf("score of %s: %w", agent, err)
		}
	}
	return out, rows.Err()
}

// addCalibration adds (sign +1) or takes back (-1) one scored forecast p
// in the calibration table bins.
func addCalibration(bins []scoring.BinSums, p float64, yes bool, sign int) error {
	i, err := scoring.CalibrationBin(p, len(bins))
	if err != nil {
		return err
	}
	bins[i].Count += sign
	bins[i].SumP += float64(sign) * p
	if yes {
		bins[i].Yes += sign
	}
	return nil
}
