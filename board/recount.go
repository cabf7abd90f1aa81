package board

import (
	"context"
	"fmt"
	"math"

	"github.com/predictions-md/predictions/scoring"
)

// CounterMismatches recounts every stored counter from the rows with SQL
// (the domain counters summed over their shards) and describes each kind
// of counter that differs; an empty result means every counter is exact.
// It reads every row, so it is for tests and for checking a board after a
// crash, not for serving.
func (s *Store) CounterMismatches(ctx context.Context) ([]string, error) {
	checks := []struct{ name, q string }{
		{"prediction counters", `SELECT COUNT(*) FROM predictions AS p WHERE
	p.replies <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id)
	OR p.agree <> (SELECT COUNT(*) FROM reactions AS x WHERE x.prediction_id = p.id AND x.kind = 'agree')
	OR p.disagree <> (SELECT COUNT(*) FROM reactions AS x WHERE x.prediction_id = p.id AND x.kind = 'disagree')
	OR p.uncertain <> (SELECT COUNT(*) FROM reactions AS x WHERE x.prediction_id = p.id AND x.kind = 'uncertain')
	OR p.popularity <> p.agree + p.disagree + p.uncertain + p.replies
	OR p.replies <> p.replies_plain + p.replies_agree + p.replies_disagree + p.replies_challenge + p.replies_debate
	OR p.replies_agree <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'agree')
	OR p.replies_disagree <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'disagree')
	OR p.replies_challenge <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'challenge')
	OR p.replies_debate <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'debate')`},
		{"debate ids", `SELECT COUNT(*) FROM replies AS r WHERE
	(r.kind = 'debate' AND (r.debate_id IS NULL OR r.debate_id <> r.id))
	OR (r.kind <> 'debate' AND r.parent_id IS NULL AND r.debate_id IS NOT NULL)
	OR (r.kind <> 'debate' AND r.parent_id IS NOT NULL AND
		COALESCE(r.debate_id, '') <> COALESCE((SELECT q.debate_id FROM replies AS q WHERE q.id = r.parent_id), ''))`},
		{"agent counters", `SELECT COUNT(*) FROM agents AS a WHERE
	a.predictions <> (SELECT COUNT(*) FROM predictions AS p WHERE p.agent_id = a.id)
	OR a.replies <> (SELECT COUNT(*) FROM replies AS r WHERE r.agent_id = a.id)
	OR a.reactions <> (SELECT COUNT(*) FROM reactions AS x WHERE x.agent_id = a.id)
	OR a.resolved <> (SELECT COUNT(*) FROM predictions AS p WHERE p.agent_id = a.id AND p.status = 'resolved')`},
		{"domain counters", `SELECT COUNT(*) FROM (SELECT domain, SUM(predictions) AS predictions, SUM(replies) AS replies,
	SUM(reactions) AS reactions, SUM(threads) AS threads, SUM(resolved) AS resolved, SUM(void) AS void
	FROM domain_counts GROUP BY domain) AS d WHERE
	d.predictions <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain)
	OR d.replies <> (SELECT COUNT(*) FROM replies AS r JOIN predictions AS p ON p.id = r.prediction_id WHERE p.domain = d.domain)
	OR d.reactions <> (SELECT COUNT(*) FROM reactions AS x JOIN predictions AS p ON p.id = x.prediction_id WHERE p.domain = d.domain)
	OR d.threads <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain AND p.replies > 0)
	OR d.resolved <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain AND p.status = 'resolved')
	OR d.void <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain AND p.status = 'void')`},
		{"forecast counters", `SELECT COUNT(*) FROM predictions AS p WHERE
	p.forecasters <> (SELECT COUNT(*) FROM standings AS s WHERE s.prediction_id = p.id)
	OR p.forecasters < 1
	OR (SELECT COUNT(*) FROM forecasts AS f WHERE f.prediction_id = p.id) <> (SELECT COALESCE(MAX(seq), 0) FROM forecasts AS f WHERE f.prediction_id = p.id)`},
		{"agent forecast counters", `SELECT COUNT(*) FROM agents AS a WHERE
	a.forecasts <> (SELECT COUNT(*) FROM standings AS s WHERE s.agent_id = a.id)
	OR a.scored <> (SELECT COUNT(*) FROM scores AS c WHERE c.agent_id = a.id)`},
		// The running score sums change by each score's difference
		// (scorePrediction); a recount adds them in another order, so
		// they agree to rounding, not to the bit.
		{"agent score sums", `SELECT COUNT(*) FROM agents AS a JOIN (SELECT c.agent_id, SUM(c.peer_score) AS peer, SUM(c.baseline_score) AS baseline,
		SUM(c.brier) AS brier, SUM(c.log_score) AS lg, SUM(c.peer_score * c.peer_score) AS sq, SUM(c.coverage) AS coverage
	FROM scores AS c GROUP BY c.agent_id) AS r ON r.agent_id = a.id WHERE
	ABS(a.peer_sum - r.peer) > 1e-9 * (1 + ABS(r.peer)) OR ABS(a.baseline_sum - r.baseline) > 1e-9 * (1 + ABS(r.baseline))
	OR ABS(a.fbrier_sum - r.brier) > 1e-9 * (1 + ABS(r.brier)) OR ABS(a.flog_sum - r.lg) > 1e-9 * (1 + ABS(r.lg))
	OR ABS(a.peer_sq_sum - r.sq) > 1e-9 * (1 + ABS(r.sq)) OR ABS(a.coverage_sum - r.coverage) > 1e-9 * (1 + ABS(r.coverage))`},
		// A first resolution adds to its author's record (countResolved);
		// a correction recounts it (rescore).
		{"agent resolution sums", `SELECT COUNT(*) FROM agents AS a JOIN (SELECT p.agent_id,
		COALESCE(SUM((p.confidence - CASE WHEN p.outcome = 'yes' THEN 1.0 ELSE 0.0 END) *
			(p.confidence - CASE WHEN p.outcome = 'yes' THEN 1.0 ELSE 0.0 END)), 0) AS brier,
		COALESCE(SUM(CASE WHEN (p.confidence > 0.5 AND p.outcome = 'yes') OR (p.confidence < 0.5 AND p.outcome = 'no') THEN 1 ELSE 0 END), 0) AS correct,
		COALESCE(SUM(CASE WHEN p.confidence <> 0.5 THEN 1 ELSE 0 END), 0) AS decided
	FROM predictions AS p WHERE p.status = 'resolved' GROUP BY p.agent_id) AS r ON r.agent_id = a.id WHERE
	ABS(a.brier_sum - r.brier) > 1e-9 * (1 + r.brier) OR a.correct <> r.correct OR a.decided <> r.decided`},
		// The tables of schema_sums.go, recounted as refillSums fills
		// them: every recounted row stored and equal, and no stored row
		// with scores beyond them.
		{"agent domain sums", `SELECT COUNT(*) FROM (SELECT p.domain AS domain, sc.agent_id AS agent_id, ` + recountSums + `
	FROM scores AS sc JOIN predictions AS p ON p.id = sc.prediction_id GROUP BY p.domain, sc.agent_id) AS r
	LEFT JOIN agent_domain_sums AS d ON d.domain = r.domain AND d.agent_id = r.agent_id WHERE ` + sumsDiffer},
		{"agent domain sums without scores", `SELECT COUNT(*) FROM agent_domain_sums AS d WHERE d.scored <> (SELECT COUNT(*)
	FROM scores AS sc JOIN predictions AS p ON p.id = sc.prediction_id WHERE p.domain = d.domain AND sc.agent_id = d.agent_id)`},
		{"community sums", `SELECT COUNT(*) FROM (SELECT sc.method AS method, p.domain AS domain, ` + recountSums + `
	FROM community_scores AS sc JOIN predictions AS p ON p.id = sc.prediction_id GROUP BY sc.method, p.domain
	UNION ALL SELECT sc.method, '', ` + recountSums + ` FROM community_scores AS sc GROUP BY sc.method) AS r
	LEFT JOIN community_sums AS d ON d.method = r.method AND d.domain = r.domain WHERE ` + sumsDiffer},
		{"community sums without scores", `SELECT COUNT(*) FROM community_sums AS d WHERE d.scored <> (SELECT COUNT(*)
	FROM community_scores AS sc JOIN predictions AS p ON p.id = sc.prediction_id WHERE sc.method = d.method AND (d.domain = '' OR p.domain = d.domain))`},
		{"sum rows without a score", `SELECT (SELECT COUNT(*) FROM agent_domain_sums WHERE scored <= 0)
	+ (SELECT COUNT(*) FROM community_sums WHERE scored <= 0) + (SELECT COUNT(*) FROM calibration_sums WHERE scored <= 0)`},
		{"domains without counters", `SELECT COUNT(*) FROM predictions AS p WHERE
	NOT EXISTS (SELECT 1 FROM domain_counts AS d WHERE d.domain = p.domain)`},
	}
	var out []string
	for _, c := range checks {
		var n int
		if err := s.read.NewRaw(c.q).Scan(ctx, &n); err != nil {
			return nil, fmt.Errorf("board: recount of the %s: %w", c.name, err)
		}
		if n != 0 {
			out = append(out, fmt.Sprintf("%s: %d row(s) differ from a recount", c.name, n))
		}
	}
	cal, err := s.calibrationMismatches(ctx)
	if err != nil {
		return nil, fmt.Errorf("board: recount of the calibration sums: %w", err)
	}
	if cal > 0 {
		out = append(out, fmt.Sprintf("calibration sums: %d row(s) differ from a recount", cal))
	}
	return out, nil
}

// sumsDiffer is the condition that a recounted row r of scoreSumCols has
// no stored row d or differs from it (the sums to rounding: they change
// by each score's difference, and a recount adds them in another order).
var sumsDiffer = func() string {
	q := `d.scored IS NULL OR d.scored <> r.scored`
	for _, c := range []string{"peer_sum", "baseline_sum", "fbrier_sum", "flog_sum", "peer_sq_sum", "coverage_sum"} {
		q += ` OR ABS(d.` + c + ` - r.` + c + `) > 1e-9 * (1 + ABS(r.` + c + `))`
	}
	return q
}()

// calibrationMismatches counts the stored calibration rows that differ
// from a recount of the scores (a recounted bin stored with other counts
// or sums, or a stored row with scores where the recount has none).
func (s *Store) calibrationMismatches(ctx context.Context) (int, error) {
	want, err := recountCalibration(ctx, s.read)
	if err != nil {
		return 0, err
	}
	var rows []struct {
		AgentID string  `bun:"agent_id"`
		Bin     int     `bun:"bin"`
		N       int     `bun:"scored"`
		Yes     int     `bun:"yes"`
		PSum    float64 `bun:"p_sum"`
	}
	if err := s.read.NewRaw(`SELECT agent_id, bin, scored, yes, p_sum FROM calibration_sums`).Scan(ctx, &rows); err != nil {
		return 0, err
	}
	got := map[string][]scoring.BinSums{}
	bad := 0
	for _, r := range rows {
		if r.Bin < 0 || r.Bin >= calibrationBins {
			bad++
			continue
		}
		if got[r.AgentID] == nil {
			got[r.AgentID] = make([]scoring.BinSums, calibrationBins)
		}
		got[r.AgentID][r.Bin] = scoring.BinSums{Count: r.N, Yes: r.Yes, SumP: r.PSum}
	}
	for a, bins := range got {
		w := want[a]
		if w == nil {
			w = make([]scoring.BinSums, calibrationBins)
		}
		for i, b := range bins {
			if b.Count != w[i].Count || b.Yes != w[i].Yes || math.Abs(b.SumP-w[i].SumP) > 1e-9*(1+math.Abs(w[i].SumP)) {
				bad++
			}
		}
	}
	for a, bins := range want {
		if got[a] == nil {
			for _, b := range bins {
				if b.Count != 0 {
					bad++
				}
			}
		}
	}
	return bad, nil
}
