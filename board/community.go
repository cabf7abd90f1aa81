package board

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/predictions-md/predictions/pool"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Community is the community forecast of a prediction: the agents'
// standing forecasts pooled with package pool by [Community.Method].
type Community struct {
	// P is the pooled probability of yes.
	P float64 `json:"p"`
	// Forecasters is the number of agents with a standing forecast.
	Forecasters int `json:"forecasters"`
	// Method is the pooling method ([Options.Pool]).
	Method pool.Method `json:"method"`
	// SpreadPts is the highest minus the lowest standing forecast, in
	// percentage points.
	SpreadPts float64 `json:"spread_pts" jsonschema:"the highest minus the lowest standing forecast, in percentage points"`
	// Disagreement is [pool.MiddleDisagree] of the standing forecasts:
	// the middle half of at least 4 of them (the interquartile range)
	// spans more than 20 points.
	Disagreement bool `json:"disagreement" jsonschema:"true when the middle half of at least 4 standing forecasts (their interquartile range) spans more than 20 percentage points"`
	// UpdatedAt is the time of the latest forecast.
	UpdatedAt time.Time `json:"updated_at"`
	// Notes are package pool's notes, such as a forecast of 0 or 1
	// clipped to 0.1% or 99.9% for the geometric mean of odds; never nil.
	Notes []string `json:"notes"`
}

// standing is one agent's standing forecast, the input of the pool: its
// probability, when it was made, and the agent's skill known when
// pooling ([Store.skillsAt]).
type standing struct {
	AgentID string    `bun:"agent_id"`
	P       float64   `bun:"p"`
	At      time.Time `bun:"updated_at"`
	Skill   float64   `bun:"-"`
}

// pools is a community forecast by every method of package pool, as the
// board stores it on a prediction and on each forecast of its history.
type pools struct {
	Geo     float64 `bun:"community_geo"`
	Mean    float64 `bun:"community_mean"`
	Median  float64 `bun:"community_median"`
	Recency float64 `bun:"community_recency"`
	Skill   float64 `bun:"community_skill"`
}

// pick returns the value of method m.
func (p pools) pick(m pool.Method) float64 {
	switch m {
	case pool.Mean:
		return p.Mean
	case pool.Median:
		return p.Median
	case pool.Recency:
		return p.Recency
	case pool.Skill:
		return p.Skill
	}
	return p.Geo
}

// pooled is the community forecast by every method, as stored.
type pooled struct {
	pools
	spread   float64
	disagree int
	notes    string // JSON array
	n        int
}

// combine pools standing forecasts with package pool: the one place the
// board computes a community forecast.
func combine(st []standing) (pooled, error) {
	fs := make([]pool.Forecast, len(st))
	for i, s := range st {
		fs[i] = pool.Forecast{Who: s.AgentID, P: s.P, At: s.At, Skill: &st[i].Skill}
	}
	r, err := pool.Combine(fs, pool.Options{})
	if err != nil {
		return pooled{}, fmt.Errorf("board: pooling %d forecasts: %w", len(fs), err)
	}
	notes, _ := json.Marshal(r.Notes) // []string always marshals
	c := pooled{pools: pools{Geo: r.GeoOdds, Mean: r.Mean, Median: r.Median, Recency: r.Recency, Skill: r.Skill},
		spread: r.SpreadPts, notes: string(notes), n: r.N}
	c.disagree = disagreement(st)
	return c, nil
}

// disagreement is the stored flag of standing forecasts st: 1 when
// [pool.MiddleDisagree] marks them, that is when the middle half of at
// least [pool.MiddleMinForecasts] spans more than [pool.MiddleDisagreePts]
// points, else 0. It is the board's one rule for the flag; combine calls
// it on every write, and migration 20261129000020 on every stored
// prediction.
func disagreement(st []standing) int {
	ps := make([]float64, len(st))
	for i, s := range st {
		ps[i] = s.P
	}
	slices.Sort(ps)
	if pool.MiddleDisagree(ps) {
		return 1
	}
	return 0
}

// recomputeCommunity pools the standing forecasts of a prediction and
// stores the result on its row, with updated_at = now. The caller holds the
// prediction's row lock (or, on SQLite, the write lock), so the result is
// exact: no other forecast on it commits in between.
func recomputeCommunity(ctx context.Context, tx bun.Tx, predictionID string, now time.Time) (pooled, error) {
	st, err := standingsAt(ctx, tx, predictionID, now)
	if err != nil {
		return pooled{}, err
	}
	c, err := combine(st)
	if err != nil {
		return pooled{}, err
	}
	return c, c.store(ctx, tx, predictionID, now)
}

// standingsAt returns the standing forecasts of a prediction, in agent
// id order, each with its agent's skill known at t.
func standingsAt(ctx context.Context, db bun.IDB, predictionID string, t time.Time) ([]standing, error) {
	var st []standing
	if err := db.NewRaw(`SELECT agent_id, p, updated_at FROM standings WHERE prediction_id = ? ORDER BY agent_id`, predictionID).Scan(ctx, &st); err != nil {
		return nil, err
	}
	agents := make([]string, len(st))
	for i := range st {
		agents[i] = st[i].AgentID
		st[i].At = st[i].At.UTC()
	}
	skills, err := skillsAt(ctx, db, agents, t)
	if err != nil {
		return nil, err
	}
	for i := range st {
		st[i].Skill = skills[st[i].AgentID]
	}
	return st, nil
}

// store writes c on the prediction's row, with updated_at = now.
func (c pooled) store(ctx context.Context, tx bun.Tx, predictionID string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE predictions SET community_geo = ?, community_mean = ?, community_median = ?,
	community_recency = ?, community_skill = ?,
	forecasters = ?, community_spread = ?, community_disagree = ?, community_notes = ?, community_updated_at = ?
	WHERE id = ?`, c.Geo, c.Mean, c.Median, c.Recency, c.Skill, c.n, c.spread, c.disagree, c.notes, now, predictionID)
	return err
}

func isPG(db bun.IDB) bool { return db.Dialect().Name() == dialect.PG }

// CommunityMismatches recomputes the community forecast of the given
// prediction from its standing forecasts with package pool and describes
// every stored field that differs (exact comparison). An empty result means
// the stored community is exact. It is for tests and for checking a board
// after a crash.
func (s *Store) CommunityMismatches(ctx context.Context, predictionID string) ([]string, error) {
	var rows []predictionRow
	if err := s.read.NewRaw(`SELECT `+predictionCols+` FROM predictions AS p WHERE p.id = ?`, predictionID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: community check: %w", err)
	}
	if len(rows) == 0 {
		return nil, notFound("prediction", predictionID)
	}
	st, err := standingsAt(ctx, s.read, predictionID, rows[0].CommunityUpdatedAt.Time)
	if err != nil {
		return nil, fmt.Errorf("board: community check: %w", err)
	}
	want, err := combine(st)
	if err != nil {
		return nil, err
	}
	r := rows[0]
	var out []string
	check := func(name string, w, g any) {
		if w != g {
			out = append(out, fmt.Sprintf("%s: stored %v, recomputed %v", name, g, w))
		}
	}
	check("geo_odds", want.Geo, r.Geo)
	check("mean", want.Mean, r.Mean)
	check("median", want.Median, r.Median)
	check("recency", want.Recency, r.Recency)
	// The skill pool is not checked: the skills it weighed are those known
	// when it pooled, and a resolution committed after that with an
	// earlier time would count now.
	check("forecasters", want.n, r.Forecasters)
	check("spread_pts", want.spread, r.CommunitySpread)
	check("disagreement", want.disagree, r.CommunityDisagree)
	check("notes", want.notes, r.CommunityNotes)
	return out, nil
}
