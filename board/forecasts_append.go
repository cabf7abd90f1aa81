package board

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/pool"
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
// community after each forecast, stored on its history row, is pooled by
// a [pool.Standing], which costs about one step a forecast where pooling
// every standing forecast again cost one step per forecaster; the
// prediction's own community is pooled by [combine] from the final
// standing forecasts, so it is exactly what a forecast made afterwards
// would store. Rows go in multi-row statements of [database.RowsPerInsert].
//
// It returns the prediction's community forecast after the last line.
func appendForecasts(ctx context.Context, tx bun.Tx, predictionID string, seq int, stand map[string]float64, lines []line) (pooled, error) {
	if len(lines) == 0 {
		return pooled{}, nil
	}
	var sp pool.Standing
	for agent, p := range stand {
		if err := sp.Set(agent, p); err != nil {
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
	for i, l := range lines {
		if err := sp.Set(l.agentID, l.p); err != nil {
			return pooled{}, err
		}
		c, err := sp.Result()
		if err != nil {
			return pooled{}, err
		}
		seq++
		history[i] = []any{l.id, predictionID, l.agentID, seq, l.p, l.note, l.at, c.GeoOdds, c.Mean, c.Median, c.N}
		stand[l.agentID] = l.p
		if t := touched[l.agentID]; t != nil {
			t.forecastID, t.p, t.at = l.id, l.p, l.at
		} else {
			touched[l.agentID] = &latest{l.id, l.p, l.at, l.at}
		}
	}
	if err := database.InsertRows(ctx, tx, `INSERT INTO forecasts
	(id, prediction_id, agent_id, seq, p, note, created_at, community_geo, community_mean, community_median, forecasters) VALUES `, history, ""); err != nil {
		return pooled{}, err
	}
	// One row a forecaster (an upsert may not touch a row twice), in agent
	// id order, the lock order of scoring; first_at stays the stored one.
	agents := make([]string, 0, len(touched))
	for a := range touched {
		agents = append(agents, a)
	}
	slices.Sort(agents)
	rows := make([][]any, len(agents))
	for i, a := range agents {
		t := touched[a]
		rows[i] = []any{predictionID, a, t.forecastID, t.p, t.first, t.at}
	}
	if err := database.InsertRows(ctx, tx, `INSERT INTO standings AS s (prediction_id, agent_id, forecast_id, p, first_at, updated_at) VALUES `, rows,
		` ON CONFLICT (prediction_id, agent_id) DO UPDATE SET forecast_id = excluded.forecast_id, p = excluded.p, updated_at = excluded.updated_at`); err != nil {
		return pooled{}, err
	}
	all := make([]standing, 0, len(stand))
	for a, p := range stand {
		all = append(all, standing{AgentID: a, P: p})
	}
	slices.SortFunc(all, func(x, y standing) int { return strings.Compare(x.AgentID, y.AgentID) })
	return storeCommunity(ctx, tx, predictionID, all, lines[len(lines)-1].at)
}
