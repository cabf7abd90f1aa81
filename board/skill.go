package board

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// skillsAt returns the skill estimate ([scoring.Skill.Estimate]) of each
// agent known at t: from its scores on predictions resolved before t, as
// [scoring.History.At] counts them. An agent without any is absent (0).
//
// A forecast made now comes after every resolution the board has
// recorded; then the running sums on the agents' rows are the answer,
// one lookup an agent. Only a forecast loaded with an earlier time
// (a forecast file's history) sums the scores before its time.
func skillsAt(ctx context.Context, db bun.IDB, agents []string, t time.Time) (map[string]float64, error) {
	out := make(map[string]float64, len(agents))
	if len(agents) == 0 {
		return out, nil
	}
	var later []int
	if err := db.NewRaw(`SELECT 1 FROM scores WHERE resolved_at >= ? LIMIT 1`, t).Scan(ctx, &later); err != nil {
		return nil, err
	}
	var rows []struct {
		AgentID  string  `bun:"agent_id"`
		N        int     `bun:"n"`
		Peer     float64 `bun:"peer"`
		Coverage float64 `bun:"coverage"`
	}
	var err error
	if len(later) == 0 {
		err = db.NewRaw(`SELECT id AS agent_id, scored AS n, peer_sum AS peer, coverage_sum AS coverage
	FROM agents WHERE id IN (?) AND scored > 0`, bun.List(agents)).Scan(ctx, &rows)
	} else {
		err = db.NewRaw(`SELECT agent_id, COUNT(*) AS n, SUM(peer_score) AS peer, SUM(coverage) AS coverage
	FROM scores WHERE agent_id IN (?) AND resolved_at < ? GROUP BY agent_id`, bun.List(agents), t).Scan(ctx, &rows)
	}
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.AgentID] = rounded(scoring.SkillFromSums(r.N, r.Peer, 0, r.Coverage))
	}
	return out, nil
}

// rounded is s's estimate to 9 decimals: the sums behind it, taken by
// the database or in resolution order, differ in their last bits, and a
// pool must not.
func rounded(s scoring.Skill) float64 { return math.Round(s.Estimate*1e9) / 1e9 }

// poolAfter makes p, made at at, agentID's standing forecast in stand
// and pools the standing forecasts, each with its agent's skill known at
// at by hist.
func poolAfter(stand map[string]standing, hist *scoring.History, agentID string, p float64, at time.Time) (pooled, error) {
	stand[agentID] = standing{AgentID: agentID, P: p, At: at}
	all := make([]standing, 0, len(stand))
	for _, st := range stand {
		st.Skill = rounded(hist.At(st.AgentID, at))
		all = append(all, st)
	}
	slices.SortFunc(all, func(x, y standing) int { return strings.Compare(x.AgentID, y.AgentID) })
	return combine(all)
}

// maxListed is the most agent ids one IN list carries, far below the
// bound parameters SQLite (32,766) and PostgreSQL (65,535) take.
const maxListed = 10000

// skillHistory returns what was known of the skill of agents at any
// moment from "from" on, as a [scoring.History]: their scores on
// predictions resolved at or after from one by one, and the rest by
// their sums, which are the running sums on the agents' rows less those
// scores. So it reads the scores resolved since from, not an agent's
// whole record: a forecast file loaded in time order onto a board of
// older predictions reads few, however large the board. The caller asks
// [scoring.History.At] about moments at or after from only.
func skillHistory(ctx context.Context, db bun.IDB, agents []string, from time.Time) (*scoring.History, error) {
	// The scores resolved at or after from, to the microsecond stored:
	// every other one is before each moment asked about.
	from = from.Truncate(time.Microsecond)
	h := &scoring.History{}
	for chunk := range slices.Chunk(agents, maxListed) {
		// One statement, so that the sums and the scores are of one
		// moment: rows without a time are an agent's sums.
		var rows []struct {
			AgentID    string       `bun:"agent_id"`
			ResolvedAt bun.NullTime `bun:"resolved_at"`
			N          int          `bun:"n"`
			Peer       float64      `bun:"peer"`
			Squares    float64      `bun:"squares"`
			Coverage   float64      `bun:"coverage"`
		}
		if err := db.NewRaw(`SELECT id AS agent_id, NULL AS resolved_at, scored AS n, peer_sum AS peer, peer_sq_sum AS squares, coverage_sum AS coverage
	FROM agents WHERE id IN (?) AND scored > 0
UNION ALL
SELECT agent_id, resolved_at, 1, peer_score, peer_score * peer_score, coverage
	FROM scores WHERE agent_id IN (?) AND resolved_at >= ?
ORDER BY 1, 2`, bun.List(chunk), bun.List(chunk), from).Scan(ctx, &rows); err != nil {
			return nil, err
		}
		type sums struct {
			n                       int
			peer, squares, coverage float64
		}
		all, since := map[string]sums{}, map[string]sums{}
		for _, r := range rows {
			if r.ResolvedAt.IsZero() {
				all[r.AgentID] = sums{r.N, r.Peer, r.Squares, r.Coverage}
				continue
			}
			h.Add(r.AgentID, r.ResolvedAt.Time.UTC(), r.Peer, r.Coverage)
			l := since[r.AgentID]
			since[r.AgentID] = sums{l.n + 1, l.peer + r.Peer, l.squares + r.Squares, l.coverage + r.Coverage}
		}
		for a, t := range all {
			l := since[a]
			h.AddEarlier(a, t.n-l.n, t.peer-l.peer, t.squares-l.squares, t.coverage-l.coverage)
		}
	}
	return h, nil
}

// addScores adds to hist the scores of the prediction id, just resolved.
func addScores(ctx context.Context, db bun.IDB, hist *scoring.History, id string) error {
	var rows []struct {
		AgentID    string    `bun:"agent_id"`
		ResolvedAt time.Time `bun:"resolved_at"`
		Peer       float64   `bun:"peer_score"`
		Coverage   float64   `bun:"coverage"`
	}
	if err := db.NewRaw(`SELECT agent_id, resolved_at, peer_score, coverage FROM scores WHERE prediction_id = ?`, id).Scan(ctx, &rows); err != nil {
		return err
	}
	for _, r := range rows {
		hist.Add(r.AgentID, r.ResolvedAt.UTC(), r.Peer, r.Coverage)
	}
	return nil
}
