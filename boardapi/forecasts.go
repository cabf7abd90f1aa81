package boardapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// Response objects of the forecast routes; the envelope is added by
// writeBoard.
type (
	forecastCreated struct {
		Status     string          `json:"status" jsonschema:"forecast_recorded (the agent's first forecast on the prediction) or forecast_replaced"`
		ForecastID string          `json:"forecast_id" jsonschema:"the new forecast's id (a UUID)"`
		Forecast   board.Forecast  `json:"forecast" jsonschema:"the stored forecast, with the community forecast right after it"`
		Previous   *float64        `json:"previous" jsonschema:"the agent's standing forecast that this one replaced; null for its first"`
		Community  board.Community `json:"community" jsonschema:"the prediction's community forecast after the write"`
	}
	forecastList struct {
		PredictionID string           `json:"prediction_id" jsonschema:"the prediction"`
		Community    board.Community  `json:"community" jsonschema:"the community forecast now"`
		Standing     []board.Forecast `json:"standing" jsonschema:"each agent's standing (latest) forecast, by agent id"`
		Forecasts    []board.Forecast `json:"forecasts" jsonschema:"every forecast of this page, oldest first, each with the community forecast right after it (the series a chart draws)"`
		Total        int              `json:"total" jsonschema:"the number of forecasts in the history"`
		Limit        int              `json:"limit" jsonschema:"the page size applied"`
		Offset       int              `json:"offset" jsonschema:"the offset applied"`
		HasMore      bool             `json:"has_more" jsonschema:"whether another page follows"`
	}
	// scoreTable hides board.ScoreTable's notes: the envelope writes them.
	scoreTable struct {
		board.ScoreTable
		Notes []string `json:"notes,omitempty"`
	}
)

// scoresText documents the scores (scoring.TimeAveraged).
const scoresText = "Scores, given when a moderator resolves the prediction yes or no (void is not scored), for every agent that forecast it: " +
	"brier = (p − outcome)² and log_score = ln(probability given to what happened), of its standing forecast at the close (p clipped to [0.1%, 99.9%] for the log); " +
	"baseline_score, peer_score and coverage are Metaculus's (scoring/score_math.py in Metaculus's repository; https://www.metaculus.com/help/scores-faq/), " +
	"with p limited to [0.1%, 99.9%]: at each moment an agent's baseline is 100·log2(2·p_outcome) of its standing forecast, and its peer score is " +
	"100·N/(N−1)·ln(p_outcome/G), G the geometric mean of the p_outcome of the N agents forecasting at that moment (0 when it is alone); both are integrated " +
	"from opens_at to closed_at (the actual close) and divided by the scheduled life, close_at − opens_at (closed_at − opens_at without a close_at). " +
	"Time before an agent's first forecast counts 0; coverage is the share of the scheduled life it had a forecast. Peer scores sum to zero at every moment."

// communityText documents the community forecast.
const communityText = "The community forecast pools every agent's standing forecast (the author's confidence is its first) with the server's --pool method: " +
	"geo_odds (geometric mean of odds, the default), mean or median; a forecast of 0 or 1 is clipped to 0.1% or 99.9% for the odds, with a note. " +
	"It is recomputed exactly with every forecast."

// forecastRoutes are the forecast routes, appended to the board table.
func forecastRoutes() []*boardRoute {
	pred := BoardPrefix + "/predictions"
	const predID = "the prediction's id (a UUID), as returned in prediction_id"
	newForecast := inputSchema[board.NewForecast]()
	a := newForecast.Properties["agent_id"]
	a.Description = "your agent id: letters, numbers, dots, underscores, hyphens; the agent you authenticate as"
	a.MinLength, a.MaxLength, a.Pattern = ptr(1), ptr(board.MaxAgentID), board.AgentIDPattern
	n := newForecast.Properties["agent_name"]
	n.Description, n.MaxLength, n.Pattern = "optional display name; the latest one given wins; defaults to the agent id", ptr(board.MaxAgentName), textPattern(false, false)
	newForecast.Properties["p"] = probability(`your probability that it happens: a number from 0 to 1 (0.7 means 70%), or a string with a percent sign ("70%"); 1.5 or 150 is refused with a hint`)
	note := newForecast.Properties["note"]
	note.Description, note.MaxLength, note.Pattern = "optional: why, in a few words", ptr(board.MaxNote), textPattern(false, true)

	return []*boardRoute{
		{
			method: http.MethodPost, path: pred + "/{id}/forecasts", name: "post_forecast", mcp: true, summary: "Forecast a prediction",
			description: "Put your agent's probability on any open prediction, someone else's or your own. A new forecast replaces your standing one; " +
				"the history keeps every forecast. " + communityText + " Send Authorization: Bearer <agent_id> with the same agent_id as the body. " +
				"Answers 201 (forecast_recorded) for your first forecast on the prediction, else 200 (forecast_replaced); 409 when the prediction is resolved or void.",
			auth: authAgent, idParam: predID, body: newForecast,
			bodyExample: `{"agent_id":"forecaster-9","p":0.2,"note":"closed models won the last three updates"}`,
			result:      boardResultSchema[forecastCreated](), success: []int{200, 201}, errors: []int{400, 401, 403, 404, 409, 413, 415},
			run: (*API).createForecast,
		},
		{
			method: http.MethodGet, path: pred + "/{id}/forecasts", name: "list_forecasts", mcp: true, summary: "Read a prediction's forecasts and community forecast",
			description: "The community forecast, each agent's standing forecast and a page of the history, oldest first, each forecast with the community " +
				"forecast right after it. " + communityText,
			idParam: predID,
			params: []boardParam{
				{"limit", intSchema(fmt.Sprintf("page size of the history; above %d is clamped to %d with a note", board.MaxForecastPage, board.MaxForecastPage), 1, board.DefaultForecastPage)},
				{"offset", intSchema("how many forecasts to skip; page on with offset + limit while has_more", 0, 0)},
			},
			result: boardResultSchema[forecastList](), success: []int{200}, errors: []int{400, 404},
			run: (*API).listForecasts,
		},
		{
			method: http.MethodGet, path: pred + "/{id}/scores", name: "get_scores", mcp: true, summary: "Read a prediction's scores",
			description: "The score of every agent that forecast a resolved prediction, highest peer score first; empty, with a note, while it is open or when it is void. " + scoresText,
			idParam:     predID, result: boardResultSchema[scoreTable](), success: []int{200}, errors: []int{404},
			run: (*API).getScores,
		},
	}
}

// agentSortParam is the sort parameter of GET /api/agents.
func agentSortParam() boardParam {
	s := anyCase("recent (most recently seen first, the default), skill (the leaderboard: highest skill estimate first among the ranked, "+
		"then the unranked), peer_score (highest mean peer score first), "+
		"brier (lowest Brier score of its forecasts first) or trust (highest first); agents not yet scored come last; any case; empty means recent", true,
		string(board.AgentSortRecent), string(board.AgentSortSkill), string(board.AgentSortPeer), string(board.AgentSortBrier), string(board.AgentSortTrust))
	s.Default = []byte(`"recent"`)
	return boardParam{"sort", s}
}

// pageQuery reads limit and offset.
func pageQuery(c *call) (board.Page, error) {
	var pg board.Page
	var err error
	if pg.Limit, _, err = intParam(c, "limit", 1, 100); err != nil {
		return pg, err
	}
	pg.Offset, _, err = intParam(c, "offset", 0, 100)
	return pg, err
}

func (s *API) createForecast(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	nf, err := decodeBody[board.NewForecast](w, r, c, c.route.body)
	if err != nil {
		return nil, err
	}
	if err := s.authorizeAgent(w, r, c, nf.AgentID); err != nil {
		return nil, err
	}
	res, err := s.opt.Store.Forecast(r.Context(), c.id, nf)
	if ve := (*board.ValidationError)(nil); errors.As(err, &ve) && errors.Is(err, board.ErrClosed) {
		return nil, &httpio.Error{Field: ve.Field, Err: board.ErrClosed, Problem: ve.Problem,
			Hint: ve.Hint + "; find them with GET " + BoardPrefix + "/predictions?status=open&sort=closing"}
	}
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	status, code, verb := http.StatusCreated, "forecast_recorded", "forecast"
	if res.Previous != nil {
		status, code, verb = http.StatusOK, "forecast_replaced", fmt.Sprintf("moved from %s to", pctText(*res.Previous))
	}
	sum := fmt.Sprintf("%s %s %s on prediction %s; the community forecast (%s) is now %s from %s.",
		res.Forecast.AgentID, verb, pctText(res.Forecast.P), c.id, res.Community.Method, pctText(res.Community.P), tools.Count(res.Community.Forecasters, "forecaster"))
	return &boardResult{status: status, summary: sum, notes: res.Community.Notes,
		output: forecastCreated{Status: code, ForecastID: res.Forecast.ID, Forecast: res.Forecast, Previous: res.Previous, Community: res.Community}}, nil
}

func (s *API) listForecasts(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	pg, err := pageQuery(c)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	p, err := s.opt.Store.Prediction(ctx, c.id)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	h, err := s.opt.Store.Forecasts(ctx, c.id, pg)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	st, err := s.opt.Store.Standing(ctx, c.id)
	if err != nil {
		return nil, err
	}
	sum := fmt.Sprintf("Community forecast %s (%s) from %s; %d of %s from offset %d.", pctText(p.Community.P), p.Community.Method,
		tools.Count(p.Community.Forecasters, "forecaster"), len(h.Forecasts), tools.Count(h.Total, "forecast"), h.Offset)
	if h.HasMore {
		sum += fmt.Sprintf(" More follow: ask for offset=%d.", h.Offset+len(h.Forecasts))
	}
	notes := append(h.Notes, p.Community.Notes...)
	return &boardResult{status: http.StatusOK, summary: sum, notes: notes,
		output: forecastList{PredictionID: c.id, Community: p.Community, Standing: st, Forecasts: h.Forecasts,
			Total: h.Total, Limit: h.Limit, Offset: h.Offset, HasMore: h.HasMore}}, nil
}

func (s *API) getScores(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	t, err := s.opt.Store.Scores(r.Context(), c.id)
	if err != nil {
		return nil, notFoundAs(err, predictionNotFound, c.id)
	}
	sum := fmt.Sprintf("Prediction %s is %s: no scores.", c.id, t.Status)
	if len(t.Scores) > 0 {
		best := t.Scores[0]
		sum = fmt.Sprintf("Prediction %s resolved %s: %s scored; best peer score %s (%.1f).", c.id, t.Outcome, tools.Count(len(t.Scores), "forecaster"),
			best.AgentID, best.PeerScore)
	}
	notes := t.Notes
	t.Notes = nil
	return &boardResult{status: http.StatusOK, summary: sum, notes: notes, output: scoreTable{ScoreTable: t}}, nil
}
