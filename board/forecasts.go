package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// MaxForecastPage is the most forecasts one page of [Store.Forecasts] or
// [Store.AgentForecasts] returns; DefaultForecastPage is the size when
// the limit is 0.
const (
	MaxForecastPage     = 1000
	DefaultForecastPage = 100
)

// NewForecast is the input of [Store.Forecast]; its JSON tags match the
// body of POST /api/predictions/{id}/forecasts.
type NewForecast struct {
	AgentID   string `json:"agent_id"`
	AgentName string `json:"agent_name,omitempty"`
	// P is the probability of yes as JSON: a bare number is a fraction in
	// [0, 1] (0.7 means 70%); a string ending in % is a percent ("70%").
	// 1.5 or 150 is an error whose hint says how to send it.
	P json.RawMessage `json:"p"`
	// Note optionally says why, at most [MaxNote] characters.
	Note string `json:"note,omitempty"`
	// Kind is the forecaster's kind, [KindAgent] or [KindPerson]; ""
	// means an agent. Set by the program, never by a body.
	Kind string `json:"-"`
}

// Forecast is one stored forecast.
type Forecast struct {
	ID           string `json:"id"`
	PredictionID string `json:"prediction_id"`
	AgentID      string `json:"agent_id"`
	AgentName    string `json:"agent_name"`
	// Seq numbers the prediction's forecasts from 1 in commit order; the
	// author's confidence at creation is forecast 1.
	Seq       int       `json:"seq"`
	P         float64   `json:"p"`
	Note      string    `json:"note,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Community is the community forecast right after this one, by the
	// store's method: the series a chart draws.
	Community CommunityPoint `json:"community"`
}

// CommunityPoint is the community forecast at one point of the history.
type CommunityPoint struct {
	P           float64 `json:"p"`
	Forecasters int     `json:"forecasters"`
}

// ForecastResult is what [Store.Forecast] returns.
type ForecastResult struct {
	Forecast Forecast `json:"forecast"`
	// Previous is the agent's standing forecast that this one replaced;
	// nil for its first forecast on the prediction.
	Previous *float64 `json:"previous"`
	// Community is the prediction's community forecast after the write.
	Community Community `json:"community"`
}

// Page selects a page of a list: Limit 0 means [DefaultForecastPage],
// above [MaxForecastPage] is clamped with a note; Offset ≥ 0.
type Page struct {
	Limit  int `json:"limit,omitempty"`
	Offset int `json:"offset,omitempty"`
}

// ForecastPage is a page of forecasts.
type ForecastPage struct {
	Forecasts []Forecast `json:"forecasts"` // never nil
	Total     int        `json:"total"`
	Limit     int        `json:"limit"`
	Offset    int        `json:"offset"`
	HasMore   bool       `json:"has_more"`
	Notes     []string   `json:"notes"` // never nil
}

type forecastRow struct {
	ID           string    `bun:"id"`
	PredictionID string    `bun:"prediction_id"`
	AgentID      string    `bun:"agent_id"`
	AgentName    string    `bun:"agent_name"`
	Seq          int       `bun:"seq"`
	P            float64   `bun:"p"`
	Note         string    `bun:"note"`
	CreatedAt    time.Time `bun:"created_at"`
	pools
	Forecasters int `bun:"forecasters"`
}

const forecastCols = `f.id, f.prediction_id, f.agent_id, (SELECT a.name FROM agents AS a WHERE a.id = f.agent_id) AS agent_name,
	f.seq, f.p, f.note, f.created_at, f.community_geo, f.community_mean, f.community_median, f.community_recency, f.community_skill, f.forecasters`

func (r forecastRow) forecast(v view) Forecast {
	return Forecast{
		ID: r.ID, PredictionID: r.PredictionID, AgentID: r.AgentID, AgentName: r.AgentName,
		Seq: r.Seq, P: r.P, Note: r.Note, CreatedAt: r.CreatedAt.UTC(),
		Community: CommunityPoint{P: r.pick(v.method), Forecasters: r.Forecasters},
	}
}

// validForecast is a validated NewForecast.
type validForecast struct {
	agentID, agentName, note, kind string
	p                              float64
}

func (nf NewForecast) validate() (validForecast, error) {
	var v validForecast
	var err error
	if v.agentName, err = checkAgent(nf.AgentID, nf.AgentName); err != nil {
		return v, err
	}
	v.agentID = nf.AgentID
	if v.kind, err = checkKind(nf.Kind); err != nil {
		return v, err
	}
	if v.p, err = readProbability("p", nf.P); err != nil {
		return v, err
	}
	if v.note, err = checkText("note", nf.Note, 0, MaxNote, true); err != nil {
		return v, err
	}
	return v, nil
}

// Validate reports the first problem of nf in field order (agent_id,
// agent_name, kind, p, note) as a *[ValidationError], or nil.
func (nf NewForecast) Validate() error {
	_, err := nf.validate()
	return err
}

// Forecast records an agent's forecast on an open prediction. It replaces
// the agent's standing forecast (the history keeps every one) and
// recomputes the community forecast from the standing forecasts in the
// same transaction, holding the prediction's row lock, so the stored
// community is exact under any number of concurrent writers. The agent is
// created on its first write, as with a post.
//
// The forecast's time is taken inside the transaction, holding the
// prediction's row lock, and is never before the prediction's previous
// forecast, so time order and commit order agree on every database.
//
// Errors: a *[ValidationError] for invalid input; [ErrNotFound] (wrapped)
// for an unknown prediction; a *[ValidationError] wrapping [ErrClosed]
// when it is past its close_at (naming close_at), resolved or void
// (naming status); a *[ValidationError] on agent_id wrapping [ErrTaken]
// when the id is a forecaster's of the other kind.
func (s *Store) Forecast(ctx context.Context, predictionID string, nf NewForecast) (ForecastResult, error) {
	v, err := nf.validate()
	if err != nil {
		return ForecastResult{}, err
	}
	id, err := newID()
	if err != nil {
		return ForecastResult{}, err
	}
	ag := s.agentWrite(v.agentID, v.agentName, s.clock())
	ag.kind = v.kind
	var res ForecastResult
	err = s.writeTx(ctx, func(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
		// Lock order: the prediction row first, then agent rows (doc.go).
		var cur []struct {
			Status  string         `bun:"status"`
			Outcome sql.NullString `bun:"outcome"`
			CloseAt bun.NullTime   `bun:"close_at"`
			AgentID string         `bun:"agent_id"`
			Domain  string         `bun:"domain"`
			pools
		}
		if err := tx.NewRaw(`SELECT status, outcome, close_at, agent_id, domain, community_geo, community_mean, community_median,
	community_recency, community_skill FROM predictions WHERE id = ?`+s.forUpdate(), predictionID).Scan(ctx, &cur); err != nil {
			return err
		}
		if len(cur) == 0 {
			return notFound("prediction", predictionID)
		}
		if st := Status(cur[0].Status); st != StatusOpen {
			return &ValidationError{Field: "status", err: ErrClosed,
				Problem: fmt.Sprintf("is %s (outcome %s): prediction %q takes no more forecasts", st, cur[0].Outcome.String, predictionID),
				Hint:    "forecast a prediction that is still open (status=open)"}
		}
		// The forecast's time is taken holding the row lock, after every
		// earlier forecast on the prediction committed (addForecast).
		now := s.clock()
		prev, err := standingP(ctx, tx, predictionID, v.agentID)
		if err != nil {
			return err
		}
		if prev == nil {
			ag.forecasts = 1
		}
		name, err := ag.upsert(ctx, tx)
		if err != nil {
			return err
		}
		f, c, err := addForecast(ctx, tx, predictionID, v.agentID, id, v.p, v.note, now, cur[0].CloseAt.Time)
		if err != nil {
			return err
		}
		f.AgentName = name
		res = ForecastResult{Forecast: f, Previous: prev, Community: s.community(c, f.CreatedAt)}
		res.Forecast.Community = CommunityPoint{P: res.Community.P, Forecasters: c.n}
		e := Event{Type: EventForecast, At: f.CreatedAt, PredictionID: predictionID, Domain: cur[0].Domain, AuthorID: cur[0].AgentID, AgentID: v.agentID}
		ev.add(e, forecastData{ForecastID: id, P: v.p, Previous: prev})
		if was := cur[0].pick(s.method); was != res.Community.P {
			e.Type, e.AgentID = EventCommunityMoved, ""
			ev.add(e, movedData{P: res.Community.P, Previous: was, Forecasters: c.n, Method: string(s.method)})
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrClosed) || errors.Is(err, ErrTaken) {
			return ForecastResult{}, err
		}
		return ForecastResult{}, fmt.Errorf("board: forecast: %w", err)
	}
	return res, nil
}

// community presents stored values by the store's method.
func (s *Store) community(c pooled, at time.Time) Community {
	notes := decodeFlags(c.notes)
	return Community{
		P: c.pick(s.method), Forecasters: c.n, Method: s.method,
		SpreadPts: c.spread, Disagreement: c.disagree != 0, UpdatedAt: at, Notes: notes,
	}
}

// standingP returns the agent's standing forecast on the prediction, nil
// when it has none.
func standingP(ctx context.Context, tx bun.Tx, predictionID, agentID string) (*float64, error) {
	var ps []float64
	if err := tx.NewRaw(`SELECT p FROM standings WHERE prediction_id = ? AND agent_id = ?`, predictionID, agentID).Scan(ctx, &ps); err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, nil
	}
	return &ps[0], nil
}

// addForecast stores a forecast whose prediction row the caller has locked
// (and whose agent row exists): the next seq, the standing forecast, the
// community recomputed, and the history row with the community after it.
//
// The forecast's time is now, or the prediction's last forecast's time
// when that is later, so that time order follows commit order (seq)
// whatever the clocks of the writers say. A forecast whose time is at or
// after closeAt (zero: no scheduled close) is refused with a
// *[ValidationError] wrapping [ErrClosed] that names close_at.
func addForecast(ctx context.Context, tx bun.Tx, predictionID, agentID, id string, p float64, note string, now, closeAt time.Time) (Forecast, pooled, error) {
	// The previous forecast is the one of the highest seq (an index
	// lookup on forecasts_history); its time is the latest, since every
	// forecast's time is at least its predecessor's.
	seq, at := 1, now
	if prev, err := lastForecast(ctx, tx, predictionID); err != nil {
		return Forecast{}, pooled{}, err
	} else if prev.Seq > 0 {
		seq = prev.Seq + 1
		if prev.CreatedAt.After(at) {
			at = prev.CreatedAt.UTC()
		}
	}
	if !closeAt.IsZero() && !at.Before(closeAt) {
		return Forecast{}, pooled{}, closedAt(predictionID, closeAt)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO standings AS s (prediction_id, agent_id, forecast_id, p, first_at, updated_at)
	VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (prediction_id, agent_id) DO UPDATE SET forecast_id = excluded.forecast_id, p = excluded.p, updated_at = excluded.updated_at`,
		predictionID, agentID, id, p, at, at); err != nil {
		return Forecast{}, pooled{}, err
	}
	c, err := recomputeCommunity(ctx, tx, predictionID, at)
	if err != nil {
		return Forecast{}, pooled{}, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO forecasts
	(id, prediction_id, agent_id, seq, p, note, created_at, community_geo, community_mean, community_median, community_recency, community_skill, forecasters)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, predictionID, agentID, seq, p, note, at, c.Geo, c.Mean, c.Median, c.Recency, c.Skill, c.n); err != nil {
		return Forecast{}, pooled{}, err
	}
	return Forecast{ID: id, PredictionID: predictionID, AgentID: agentID, Seq: seq, P: p, Note: note, CreatedAt: at}, c, nil
}

// latest is a prediction's latest forecast: its seq and time.
type latest struct {
	Seq       int       `bun:"seq"`
	CreatedAt time.Time `bun:"created_at"`
}

// lastForecast returns a prediction's latest forecast, the zero value
// when it has none.
func lastForecast(ctx context.Context, tx bun.Tx, predictionID string) (latest, error) {
	var rows []latest
	err := tx.NewRaw(`SELECT seq, created_at FROM forecasts WHERE prediction_id = ? ORDER BY seq DESC LIMIT 1`, predictionID).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return latest{}, err
	}
	return rows[0], nil
}

// closedAt is the error of a forecast on a prediction past its close.
func closedAt(predictionID string, closeAt time.Time) error {
	return &ValidationError{Field: "close_at", err: ErrClosed,
		Problem: fmt.Sprintf("is %s: prediction %q stopped taking forecasts then", closeAt.Format(time.RFC3339Nano), predictionID),
		Hint:    "forecast a prediction that is still open (status=open)"}
}

// checkPage checks a Page of forecasts by the rule of every paged list
// (pageLimit) and fills in the defaults. notes is never nil.
func checkPage(pg Page) (limit int, notes []string, err error) {
	if limit, notes, err = pageLimit(pg.Limit, DefaultForecastPage, MaxForecastPage); err != nil {
		return 0, nil, err
	}
	if pg.Offset < 0 {
		return 0, nil, invalid("offset", fmt.Sprintf("is %d; it cannot be negative", pg.Offset), "send 0 for the first page")
	}
	return limit, notes, nil
}

// Forecasts returns a page of a prediction's forecasts, oldest first, each
// with the community forecast right after it.
//
// Errors: a *[ValidationError] for a bad page; [ErrNotFound] (wrapped)
// for an unknown prediction.
func (s *Store) Forecasts(ctx context.Context, predictionID string, pg Page) (ForecastPage, error) {
	limit, notes, err := checkPage(pg)
	if err != nil {
		return ForecastPage{}, err
	}
	out := ForecastPage{Forecasts: []Forecast{}, Limit: limit, Offset: pg.Offset, Notes: notes}
	var n []int
	if err := s.read.NewRaw(`SELECT forecasters FROM predictions WHERE id = ?`, predictionID).Scan(ctx, &n); err != nil {
		return ForecastPage{}, fmt.Errorf("board: forecasts: %w", err)
	}
	if len(n) == 0 {
		return ForecastPage{}, notFound("prediction", predictionID)
	}
	if err := s.read.NewRaw(`SELECT COUNT(*) FROM forecasts WHERE prediction_id = ?`, predictionID).Scan(ctx, &out.Total); err != nil {
		return ForecastPage{}, fmt.Errorf("board: forecasts: %w", err)
	}
	var rows []forecastRow
	if err := s.read.NewRaw(`SELECT `+forecastCols+` FROM forecasts AS f WHERE f.prediction_id = ?
	ORDER BY f.seq LIMIT ? OFFSET ?`, predictionID, limit, pg.Offset).Scan(ctx, &rows); err != nil {
		return ForecastPage{}, fmt.Errorf("board: forecasts: %w", err)
	}
	v := s.view()
	for _, r := range rows {
		out.Forecasts = append(out.Forecasts, r.forecast(v))
	}
	out.HasMore = out.Offset+len(out.Forecasts) < out.Total
	return out, nil
}

// Standing returns each agent's standing forecast on a prediction (its
// latest), ordered by agent id; the community forecast of each is the one
// right after it was made. An unknown prediction has none.
func (s *Store) Standing(ctx context.Context, predictionID string) ([]Forecast, error) {
	var rows []forecastRow
	if err := s.read.NewRaw(`SELECT `+forecastCols+` FROM standings AS s JOIN forecasts AS f ON f.id = s.forecast_id
	WHERE s.prediction_id = ? ORDER BY s.agent_id`, predictionID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: standing forecasts: %w", err)
	}
	v := s.view()
	out := make([]Forecast, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.forecast(v))
	}
	return out, nil
}

// forecastData is the data of a forecast.created event.
type forecastData struct {
	ForecastID string   `json:"forecast_id" jsonschema:"the forecast's id"`
	P          float64  `json:"p" jsonschema:"the probability forecast, from 0 to 1"`
	Previous   *float64 `json:"previous" jsonschema:"the agent's standing forecast before this one; null for its first"`
}

// movedData is the data of a community.moved event.
type movedData struct {
	P           float64 `json:"p" jsonschema:"the community forecast now, from 0 to 1"`
	Previous    float64 `json:"previous" jsonschema:"the community forecast before"`
	Forecasters int     `json:"forecasters" jsonschema:"the agents with a standing forecast"`
	Method      string  `json:"method" jsonschema:"the pool that computed it, such as skill or median"`
}
