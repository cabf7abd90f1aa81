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
// community's) and adds those added, on the agents' rows at once (the
// skills that later forecasts in the transaction pool by), and through b
// on their rows of the domain, their calibration tables and the
// community's rows of the domain and of the whole board; with b nil,
// those are written at once too. Each sum changes by the difference, not
// by a recount, so that scoring costs the same on a board of any size
// ([Store.CounterMismatches] recounts them). The agents' rows are locked
// by the caller, in id order; the other rows are written after them, in
// key order, before the domain counters (the lock order of setOutcome).
func addScoreSums(ctx context.Context, tx bun.Tx, b *sumBatch, domain string, removed, added []scoreSums, removedCom, addedCom []communitySums) error {
	agents := map[string]*sums{}
	for _, sc := range removed {
		sumOf(agents, sc.AgentID).add(-1, sc.Peer, sc.Baseline, sc.Brier, sc.Log, sc.Coverage)
	}
	for _, sc := range added {
		sumOf(agents, sc.AgentID).add(+1, sc.Peer, sc.Baseline, sc.Brier, sc.Log, sc.Coverage)
	}
	var rows [][]any
	for _, a := range slices.Sorted(maps.Keys(agents)) {
		rows = append(rows, agents[a].row(a))
	}
	if err := updateAgentSums(ctx, tx, rows); err != nil {
		return err
	}
	now := b == nil
	if now {
		b = &sumBatch{}
	}
	if err := b.add(domain, removed, added, removedCom, addedCom); err != nil {
		return err
	}
	if now {
		return b.flush(ctx, tx)
	}
	return nil
}

// sumOf returns m's sums of key, made when m has none.
func sumOf[K comparable](m map[K]*sums, key K) *sums {
	s := m[key]
	if s == nil {
		s = &sums{}
		m[key] = s
	}
	return s
}

// sumBatch gathers the changes that scorings make to the running sums of
// agent_domain_sums, calibration_sums and community_sums, for flush to
// write in a few statements: a load of many questions writes them once a
// batch, not once a question. Nothing reads those tables while the
// batch's transaction writes, so nothing sees them late.
type sumBatch struct {
	domains map[[2]string]*sums          // by domain and agent
	cal     map[string][]scoring.BinSums // by agent
	com     map[[2]string]*sums          // by method and domain ("" for all)
	// emptied says a score was taken back, so a row may be left with
	// none: flush deletes such rows.
	emptied bool
}

// add adds the change of one prediction's scoring to b.
func (b *sumBatch) add(domain string, removed, added []scoreSums, removedCom, addedCom []communitySums) error {
	if b.domains == nil {
		b.domains, b.cal, b.com = map[[2]string]*sums{}, map[string][]scoring.BinSums{}, map[[2]string]*sums{}
	}
	b.emptied = b.emptied || len(removed) > 0 || len(removedCom) > 0
	change := func(sc scoreSums, sign int) error {
		sumOf(b.domains, [2]string{domain, sc.AgentID}).add(sign, sc.Peer, sc.Baseline, sc.Brier, sc.Log, sc.Coverage)
		bins := b.cal[sc.AgentID]
		if bins == nil {
			bins = make([]scoring.BinSums, calibrationBins)
			b.cal[sc.AgentID] = bins
		}
		return addCalibration(bins, sc.P, sc.Outcome == string(OutcomeYes), sign)
	}
	changeCom := func(c communitySums, sign int) {
		for _, d := range []string{"", domain} {
			sumOf(b.com, [2]string{c.Method, d}).add(sign, c.Peer, c.Baseline, c.Brier, c.Log, c.Coverage)
		}
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
	for _, c := range removedCom {
		changeCom(c, -1)
	}
	for _, c := range addedCom {
		changeCom(c, +1)
	}
	return nil
}

// flush writes b's changes, each table's rows in key order, deletes the
// rows a correction left without a score, and empties b.
func (b *sumBatch) flush(ctx context.Context, tx bun.Tx) error {
	byKey := func(a, b [2]string) int { return slices.Compare(a[:], b[:]) }
	var domainRows, calRows, comRows [][]any
	domains, agents := map[string]bool{}, map[string]bool{}
	for _, k := range slices.SortedFunc(maps.Keys(b.domains), byKey) {
		domainRows = append(domainRows, b.domains[k].row(k[0], k[1]))
		domains[k[0]] = true
	}
	for _, a := range slices.Sorted(maps.Keys(b.cal)) {
		agents[a] = true
		for bin, c := range b.cal[a] {
			if c.Count != 0 || c.Yes != 0 || c.SumP != 0 {
				calRows = append(calRows, []any{a, bin, c.Count, c.Yes, c.SumP})
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(b.com), byKey) {
		comRows = append(comRows, b.com[k].row(k[0], k[1]))
	}
	emptied := b.emptied
	*b = sumBatch{}
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
	if !emptied {
		return nil // only added: no row emptied
	}
	ds := bun.List(append(slices.Sorted(maps.Keys(domains)), ""))
	if _, err := tx.ExecContext(ctx, `DELETE FROM community_sums WHERE domain IN (?) AND scored <= 0`, ds); err != nil {
		return err
	}
	if len(agents) == 0 {
		return nil
	}
	ids := bun.List(slices.Sorted(maps.Keys(agents)))
	if _, err := tx.ExecContext(ctx, `DELETE FROM agent_domain_sums WHERE domain IN (?) AND agent_id IN (?) AND scored <= 0`, ds, ids); err != nil {
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
