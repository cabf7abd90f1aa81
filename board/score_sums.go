package board

import (
	"context"
	"maps"
	"slices"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// scoreSums is what the running sums keep of one of an agent's scores.
type scoreSums struct {
	AgentID  string  `bun:"agent_id"`
	P        float64 `bun:"p"`
	Outcome  string  `bun:"outcome"`
	Peer     float64 `bun:"peer_score"`
	Baseline float64 `bun:"baseline_score"`
	Brier    float64 `bun:"brier"`
	Log      float64 `bun:"log_score"`
	Coverage float64 `bun:"coverage"`
}

// communitySums is what the running sums keep of one of the community
// forecast's scores, by one pooling method.
type communitySums struct {
	Method   string  `bun:"method"`
	Peer     float64 `bun:"peer_score"`
	Baseline float64 `bun:"baseline_score"`
	Brier    float64 `bun:"brier"`
	Log      float64 `bun:"log_score"`
	Coverage float64 `bun:"coverage"`
}

// sums is a change to one row of running score sums (scoreSumCols).
type sums struct {
	n                                        int
	peer, baseline, brier, log, sq, coverage float64
}

// add changes s by one score, added (sign +1) or taken back (-1).
func (s *sums) add(sign int, peer, baseline, brier, log, coverage float64) {
	f := float64(sign)
	s.n += sign
	s.peer += f * peer
	s.baseline += f * baseline
	s.brier += f * brier
	s.log += f * log
	s.sq += f * peer * peer
	s.coverage += f * coverage
}

// row is s's values in the order of scoreSumCols, after key.
func (s *sums) row(key ...any) []any {
	return append(key, s.n, s.peer, s.baseline, s.brier, s.log, s.sq, s.coverage)
}

// upsertSums adds each row's sums (key columns, then scoreSumCols) to
// table's row of that key, making it when there is none.
func upsertSums(ctx context.Context, tx bun.Tx, table, key string, rows [][]any) error {
	set := ""
	for i, c := range []string{"scored", "peer_sum", "baseline_sum", "fbrier_sum", "flog_sum", "peer_sq_sum", "coverage_sum"} {
		if i > 0 {
			set += ", "
		}
		set += c + ` = ` + table + `.` + c + ` + excluded.` + c
	}
	return database.InsertRows(ctx, tx, `INSERT INTO `+table+` (`+key+`, `+scoreSumCols+`) VALUES `, rows,
		` ON CONFLICT (`+key+`) DO UPDATE SET `+set)
}

// addScoreSums changes every running sum of the scores of one prediction
// of domain: it takes back the scores removed (an agent's and the
// community's) and adds those added, on the agents' rows, their rows of
// the domain, their calibration tables and the community's rows of the
// domain and of the whole board. Each sum changes by the difference, not
// by a recount, so that scoring costs the same on a board of any size
// ([Store.CounterMismatches] recounts them). The agents' rows are locked
// by the caller, in id order; the community's rows are changed in key
// order after them, before the domain counters (the lock order of
// setOutcome). Rows a correction leaves with no score are deleted.
func addScoreSums(ctx context.Context, tx bun.Tx, domain string, removed, added []scoreSums, removedCom, addedCom []communitySums) error {
	agents := map[string]*sums{}
	cal := map[string][]scoring.BinSums{}
	change := func(sc scoreSums, sign int) error {
		a := agents[sc.AgentID]
		if a == nil {
			a = &sums{}
			agents[sc.AgentID] = a
			cal[sc.AgentID] = make([]scoring.BinSums, calibrationBins)
		}
		a.add(sign, sc.Peer, sc.Baseline, sc.Brier, sc.Log, sc.Coverage)
		return addCalibration(cal[sc.AgentID], sc.P, sc.Outcome == string(OutcomeYes), sign)
	}
	for _, sc := range removed {
		if err := change(sc, -1); err != nil {
			return err
		}
	}
	for _, sc := range added {
		if err := change(sc, +1); err != nil {
			return err
		}
	}
	var agentRows, domainRows, calRows [][]any
	for _, a := range slices.Sorted(maps.Keys(agents)) {
		agentRows = append(agentRows, agents[a].row(a))
		domainRows = append(domainRows, agents[a].row(domain, a))
		for bin, b := range cal[a] {
			if b.Count != 0 || b.Yes != 0 || b.SumP != 0 {
				calRows = append(calRows, []any{a, bin, b.Count, b.Yes, b.SumP})
			}
		}
	}
	com := map[[2]string]*sums{}
	changeCom := func(c communitySums, sign int) {
		for _, d := range []string{"", domain} {
			k := [2]string{c.Method, d}
			s := com[k]
			if s == nil {
				s = &sums{}
				com[k] = s
			}
			s.add(sign, c.Peer, c.Baseline, c.Brier, c.Log, c.Coverage)
		}
	}
	for _, c := range removedCom {
		changeCom(c, -1)
	}
	for _, c := range addedCom {
		changeCom(c, +1)
	}
	var comRows [][]any
	for _, k := range slices.SortedFunc(maps.Keys(com), func(a, b [2]string) int { return slices.Compare(a[:], b[:]) }) {
		comRows = append(comRows, com[k].row(k[0], k[1]))
	}
	if err := updateAgentSums(ctx, tx, agentRows); err != nil {
		return err
	}
	if err := upsertSums(ctx, tx, "agent_domain_sums", "domain, agent_id", domainRows); err != nil {
		return err
	}
	if err := database.InsertRows(ctx, tx, `INSERT INTO calibration_sums (agent_id, bin, scored, yes, p_sum) VALUES `, calRows,
		` ON CONFLICT (agent_id, bin) DO UPDATE SET scored = calibration_sums.scored + excluded.scored,
	yes = calibration_sums.yes + excluded.yes, p_sum = calibration_sums.p_sum + excluded.p_sum`); err != nil {
		return err
	}
	if err := upsertSums(ctx, tx, "community_sums", "method, domain", comRows); err != nil {
		return err
	}
	if len(removed) == 0 && len(removedCom) == 0 {
		return nil // only added: no row emptied
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM community_sums WHERE domain IN ('', ?) AND scored <= 0`, domain); err != nil {
		return err
	}
	if len(agents) == 0 {
		return nil
	}
	ids := bun.List(slices.Sorted(maps.Keys(agents)))
	if _, err := tx.ExecContext(ctx, `DELETE FROM agent_domain_sums WHERE domain = ? AND agent_id IN (?) AND scored <= 0`, domain, ids); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM calibration_sums WHERE agent_id IN (?) AND scored <= 0`, ids)
	return err
}

// updateAgentSums adds each row's sums (agent id, then scoreSumCols) to
// its agent's row, in one statement a few hundred agents; rows come in
// agent id order (the rows are locked by the caller).
func updateAgentSums(ctx context.Context, tx bun.Tx, rows [][]any) error {
	// VALUES names its columns column1, column2, … on SQLite and
	// PostgreSQL alike.
	return database.InsertRows(ctx, tx, `UPDATE agents SET scored = agents.scored + CAST(d.column2 AS BIGINT),
	peer_sum = agents.peer_sum + CAST(d.column3 AS DOUBLE PRECISION),
	baseline_sum = agents.baseline_sum + CAST(d.column4 AS DOUBLE PRECISION),
	fbrier_sum = agents.fbrier_sum + CAST(d.column5 AS DOUBLE PRECISION),
	flog_sum = agents.flog_sum + CAST(d.column6 AS DOUBLE PRECISION),
	peer_sq_sum = agents.peer_sq_sum + CAST(d.column7 AS DOUBLE PRECISION),
	coverage_sum = agents.coverage_sum + CAST(d.column8 AS DOUBLE PRECISION)
	FROM (VALUES `, rows, `) AS d WHERE agents.id = d.column1`)
}
