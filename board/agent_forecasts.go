package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// calibration is the calibration table of an agent's scored forecasts,
// from its running sums (calibration_sums); nil when it has none.
func (s *Store) calibration(ctx context.Context, agentID string) ([]scoring.Bin, error) {
	var rows []struct {
		Bin  int     `bun:"bin"`
		N    int     `bun:"scored"`
		Yes  int     `bun:"yes"`
		PSum float64 `bun:"p_sum"`
	}
	if err := s.read.NewRaw(`SELECT bin, scored, yes, p_sum FROM calibration_sums WHERE agent_id = ?`, agentID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: agent calibration: %w", err)
	}
	sums := make([]scoring.BinSums, calibrationBins)
	for _, r := range rows {
		if r.Bin >= 0 && r.Bin < len(sums) {
			sums[r.Bin] = scoring.BinSums{Count: r.N, Yes: r.Yes, SumP: r.PSum}
		}
	}
	bins, err := scoring.CalibrationFromSums(sums)
	if errors.Is(err, scoring.ErrEmpty) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("board: agent calibration: %w", err)
	}
	return bins, nil
}

// MaxResolved is the most predictions [Store.Resolved] returns.
const MaxResolved = 1000

// Resolved returns an agent's predictions resolved yes or no (void ones are
// not scored), most recently resolved first, at most limit of them: the
// input of a calibration plot. A limit of 0 or less, or above
// [MaxResolved], means MaxResolved. An unknown agent has none: the result
// is empty, never nil. The filter uses the index predictions_agent_scored,
// so only the agent's resolved predictions are read and sorted.
func (s *Store) Resolved(ctx context.Context, agentID string, limit int) ([]Prediction, error) {
	if err := checkRef("agent_id", agentID); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > MaxResolved {
		limit = MaxResolved
	}
	var rows []predictionRow
	if err := s.read.NewRaw(`SELECT `+predictionCols+` FROM predictions AS p
	WHERE p.agent_id = ? AND p.status = ?
	ORDER BY p.resolved_at DESC, p.id DESC LIMIT ?`, agentID, string(StatusResolved), limit).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: resolved predictions: %w", err)
	}
	out := make([]Prediction, 0, len(rows))
	v := s.view()
	for _, r := range rows {
		out = append(out, r.prediction(v))
	}
	return out, nil
}

// AgentForecast is an agent's standing forecast on one prediction, for
// the agent's page.
type AgentForecast struct {
	PredictionID string  `json:"prediction_id"`
	Title        string  `json:"title"`
	Domain       string  `json:"domain"`
	Status       Status  `json:"status"`
	Outcome      Outcome `json:"outcome,omitempty"`
	ResolveBy    string  `json:"resolve_by,omitempty"`
	// P is the agent's standing forecast; FirstAt its first forecast on
	// the prediction and UpdatedAt its latest.
	P         float64   `json:"p"`
	FirstAt   time.Time `json:"first_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Community is the prediction's community forecast now.
	Community CommunityPoint `json:"community"`
	// Score is set once the prediction resolved yes or no.
	Score *Score `json:"score,omitempty"`
}

// AgentForecastPage is a page of [AgentForecast].
type AgentForecastPage struct {
	Forecasts []AgentForecast `json:"forecasts"` // never nil
	Total     int             `json:"total"`
	Limit     int             `json:"limit"`
	Offset    int             `json:"offset"`
	HasMore   bool            `json:"has_more"`
	Notes     []string        `json:"notes"` // never nil
}

// AgentForecasts returns a page of the predictions an agent has forecast,
// open and resolved, most recently forecast first, with its standing
// forecast, the community forecast and, once resolved, its score. An
// unknown agent has none.
//
// Errors: a *[ValidationError] for a bad page.
func (s *Store) AgentForecasts(ctx context.Context, agentID string, pg Page) (AgentForecastPage, error) {
	limit, notes, err := checkPage(pg)
	if err != nil {
		return AgentForecastPage{}, err
	}
	out := AgentForecastPage{Forecasts: []AgentForecast{}, Limit: limit, Offset: pg.Offset, Notes: notes}
	if err := s.read.NewRaw(`SELECT COUNT(*) FROM standings WHERE agent_id = ?`, agentID).Scan(ctx, &out.Total); err != nil {
		return AgentForecastPage{}, fmt.Errorf("board: agent forecasts: %w", err)
	}
	var rows []struct {
		PredictionID string         `bun:"prediction_id"`
		Title        string         `bun:"title"`
		Domain       string         `bun:"domain"`
		Status       string         `bun:"status"`
		Outcome      sql.NullString `bun:"outcome"`
		ResolveBy    sql.NullString `bun:"resolve_by"`
		CloseAt      bun.NullTime   `bun:"close_at"`
		P            float64        `bun:"p"`
		FirstAt      time.Time      `bun:"first_at"`
		UpdatedAt    time.Time      `bun:"updated_at"`
		pools
		Forecasters int             `bun:"forecasters"`
		Brier       sql.NullFloat64 `bun:"brier"`
		LogScore    float64         `bun:"log_score"`
		Baseline    float64         `bun:"baseline_score"`
		Peer        float64         `bun:"peer_score"`
		Coverage    float64         `bun:"coverage"`
		ScoredP     float64         `bun:"scored_p"`
		ResolvedAt  bun.NullTime    `bun:"resolved_at"`
	}
	if err := s.read.NewRaw(`SELECT s.prediction_id, p.title, p.domain, p.status, p.outcome, p.resolve_by, p.close_at,
	s.p, s.first_at, s.updated_at, p.community_geo, p.community_mean, p.community_median, p.community_recency, p.community_skill, p.forecasters,
	sc.brier, COALESCE(sc.log_score, 0.0) AS log_score, COALESCE(sc.baseline_score, 0.0) AS baseline_score,
	COALESCE(sc.peer_score, 0.0) AS peer_score, COALESCE(sc.coverage, 0.0) AS coverage, COALESCE(sc.p, 0.0) AS scored_p, sc.resolved_at
	FROM standings AS s JOIN predictions AS p ON p.id = s.prediction_id
	LEFT JOIN scores AS sc ON sc.prediction_id = s.prediction_id AND sc.agent_id = s.agent_id
	WHERE s.agent_id = ? ORDER BY s.updated_at DESC, s.prediction_id LIMIT ? OFFSET ?`, agentID, limit, pg.Offset).Scan(ctx, &rows); err != nil {
		return AgentForecastPage{}, fmt.Errorf("board: agent forecasts: %w", err)
	}
	now := s.clock()
	for _, r := range rows {
		f := AgentForecast{
			PredictionID: r.PredictionID, Title: r.Title, Domain: r.Domain,
			Status: lifeStatus(Status(r.Status), r.CloseAt.Time, now), Outcome: Outcome(r.Outcome.String), ResolveBy: r.ResolveBy.String,
			P: r.P, FirstAt: r.FirstAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
			Community: CommunityPoint{P: r.pick(s.method), Forecasters: r.Forecasters},
		}
		if r.Brier.Valid {
			f.Score = &Score{
				PredictionID: r.PredictionID, AgentID: agentID, P: r.ScoredP, Outcome: f.Outcome,
				Brier: r.Brier.Float64, LogScore: r.LogScore, BaselineScore: r.Baseline, PeerScore: r.Peer,
				Coverage: r.Coverage, ResolvedAt: r.ResolvedAt.UTC(),
			}
		}
		out.Forecasts = append(out.Forecasts, f)
	}
	out.HasMore = out.Offset+len(out.Forecasts) < out.Total
	return out, nil
}
