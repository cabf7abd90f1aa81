package board

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// line is a forecast to append to a prediction's history.
type line struct {
	id, agentID, note string
	p                 float64
	at                time.Time
}

// appendForecasts appends forecasts, in time order, to the history of a
// prediction whose row the caller has locked and whose agents exist:
// what [Store.Forecast] stores for each, written for many at once. seq is
// the prediction's last seq (0 for none) and stand its standing
// forecasts by agent before the first line (changed in place). The
// community after each forecast, stored on its history row, pools the
// standing forecasts then, each with its agent's skill known at that
// forecast's time by hist, as [Store.Forecast] would have stored it at
// that moment; the prediction's own community is the last of them. hist
// holds the scores of every agent of stand and lines from the first
// line's time on ([skillHistory]); nil reads them. Rows go in multi-row
// statements of [database.RowsPerInsert].
//
// It returns the prediction's community forecast after the last line.
func appendForecasts(ctx context.Context, tx bun.Tx, predictionID string, seq int, stand map[string]standing, lines []line, hist *scoring.History) (pooled, error) {
	if len(lines) == 0 {
		return pooled{}, nil
	}
	if hist == nil {
		agents := make([]string, 0, len(stand)+len(lines))
		for a := range stand {
			agents = append(agents, a)
		}
		for _, l := range lines {
			agents = append(agents, l.agentID)
		}
		slices.Sort(agents)
		var err error
		if hist, err = skillHistory(ctx, tx, slices.Compact(agents), lines[0].at); err != nil {
			return pooled{}, err
		}
	}
	type latest struct {
		forecastID string
		p          float64
		first, at  time.Time
	}
	touched := map[string]*latest{}
	history := make([][]any, len(lines))
	var c pooled
	var err error
	for i, l := range lines {
		if c, err = poolAfter(stand, hist, l.agentID, l.p, l.at); err != nil {
			return pooled{}, err
		}
		seq++
		history[i] = []any{l.id, predictionID, l.agentID, seq, l.p, l.note, l.at, c.Geo, c.Mean, c.Median, c.Recency, c.Skill, c.n}
		if t := touched[l.agentID]; t != nil {
			t.forecastID, t.p, t.at = l.id, l.p, l.at
		} else {
			touched[l.agentID] = &latest{l.id, l.p, l.at, l.at}
		}
	}
	if err := database.InsertRows(ctx, tx, `INSERT INTO forecasts
	(id, prediction_id, agent_id, seq, p, note, created_at, community_geo, community_mean, community_median, community_recency, community_skill, forecasters) VALUES `, history, ""); err != nil {
		return pooled{}, err
	}
	// One row a forecaster (an upsert may not touch a row twice), in agent
	// id order, the lock order of scoring; first_at stays the stored one.
	order := slices.Sorted(maps.Keys(touched))
	rows := make([][]any, len(order))
	for i, a := range order {
		t := touched[a]
		rows[i] = []any{predictionID, a, t.forecastID, t.p, t.first, t.at}
	}
	if err := database.InsertRows(ctx, tx, `INSERT INTO standings AS s (prediction_id, agent_id, forecast_id, p, first_at, updated_at) VALUES `, rows,
		` ON CONFLICT (prediction_id, agent_id) DO UPDATE SET forecast_id = excluded.forecast_id, p = excluded.p, updated_at = excluded.updated_at`); err != nil {
		return pooled{}, err
	}
	return c, c.store(ctx, tx, predictionID, lines[len(lines)-1].at)
}
