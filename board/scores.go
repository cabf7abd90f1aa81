package board

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// Score is one agent's score on a prediction resolved yes or no.
//
// Brier and LogScore are those of the agent's standing forecast at
// resolution (package scoring: (p − outcome)² and the natural log of the
// probability given to what happened, p clipped to [0.1%, 99.9%]).
// BaselineScore and PeerScore are Metaculus's scores, time-averaged over
// the prediction's life, and Coverage the share of that life the agent had
// a forecast standing: [scoring.TimeAveraged] gives the exact definition.
// ResolvedAt is when the prediction was first resolved.
type Score struct {
	PredictionID string `json:"prediction_id"`
	AgentID      string `json:"agent_id"`
	AgentName    string `json:"agent_name"`
	// P is the agent's standing forecast at resolution.
	P             float64   `json:"p"`
	Outcome       Outcome   `json:"outcome"`
	Brier         float64   `json:"brier"`
	LogScore      float64   `json:"log_score"`
	BaselineScore float64   `json:"baseline_score"`
	PeerScore     float64   `json:"peer_score"`
	Coverage      float64   `json:"coverage"`
	ResolvedAt    time.Time `json:"resolved_at"`
}

// ScoreTable is what [Store.Scores] returns.
type ScoreTable struct {
	PredictionID string  `json:"prediction_id"`
	Status       Status  `json:"status"`
	Outcome      Outcome `json:"outcome,omitempty"`
	// Scores lists every forecaster, highest peer score first (ties by
	// agent id); empty while the prediction is open or when it is void.
	Scores []Score `json:"scores"`
	// Community is the community forecast's score as a forecaster, by the
	// board's pooling method, its peer score against the agents above;
	// nil unless the prediction is resolved yes or no. Its AgentID is
	// "community" and its P the community forecast at the close.
	Community *Score `json:"community"`
	// Notes say why the table is empty, and what package scoring clipped
	// for the log score; never nil.
	Notes []string `json:"notes"`
}

// scorePrediction replaces the scores of a prediction by those of its
// current state (none unless resolved yes or no) and changes the running
// sums of every agent that forecast it by the difference, locking their
// rows in id order on PostgreSQL after the prediction's row, which the
// caller holds. An agent's sums change by its score here, not by a
// recount of its scores, so that a resolution costs the same on a board
// of any size ([agentSums] is the recount). first says the prediction was
// open until now: an open prediction has no scores (it is never reopened),
// so there are none to take back. The other running sums change through
// b (addScoreSums).
func scorePrediction(ctx context.Context, tx bun.Tx, pg bool, id string, first bool, b *sumBatch) error {
	var ps []struct {
		Domain    string       `bun:"domain"`
		CreatedAt time.Time    `bun:"created_at"`
		CloseAt   bun.NullTime `bun:"close_at"`
		ClosedAt  bun.NullTime `bun:"closed_at"`
		Resolved  bun.NullTime `bun:"resolved_at"`
		Status    string       `bun:"status"`
		Outcome   string       `bun:"outcome"`
	}
	if err := tx.NewRaw(`SELECT domain, created_at, close_at, closed_at, resolved_at, status, COALESCE(outcome, '') AS outcome FROM predictions WHERE id = ?`, id).Scan(ctx, &ps); err != nil {
		return err
	}
	if len(ps) == 0 {
		return notFound("prediction", id)
	}
	if pg {
		if _, err := tx.ExecContext(ctx, `SELECT a.id FROM agents AS a
	WHERE a.id IN (SELECT agent_id FROM standings WHERE prediction_id = ?) ORDER BY a.id FOR UPDATE`, id); err != nil {
			return err
		}
	}
	var old, scored []scoreSums
	var oldCom, scoredCom []communitySums
	if !first {
		if err := tx.NewRaw(`SELECT agent_id, p, outcome, peer_score, baseline_score, brier, log_score, coverage FROM scores WHERE prediction_id = ?`, id).Scan(ctx, &old); err != nil {
			return err
		}
		if err := tx.NewRaw(`SELECT method, peer_score, baseline_score, brier, log_score, coverage FROM community_scores WHERE prediction_id = ?`, id).Scan(ctx, &oldCom); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM scores WHERE prediction_id = ?`, `DELETE FROM community_scores WHERE prediction_id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
	}
	p := ps[0]
	if Status(p.Status) == StatusResolved {
		life := scoring.Life{Open: p.CreatedAt.UTC(), Close: p.CloseAt.Time.UTC(), ActualClose: p.ClosedAt.Time.UTC()}
		if p.CloseAt.IsZero() {
			life.Close = time.Time{}
		}
		var err error
		if scored, scoredCom, err = insertScores(ctx, tx, id, life, p.Resolved.Time.UTC(), Outcome(p.Outcome)); err != nil {
			return err
		}
	}
	return addScoreSums(ctx, tx, b, p.Domain, old, scored, oldCom, scoredCom)
}

// agentSums selects the running sums an agent's row keeps of its scores
// (the agent is agents.id).
const agentSums = `SELECT COUNT(*), COALESCE(SUM(sc.peer_score), 0), COALESCE(SUM(sc.baseline_score), 0),
		COALESCE(SUM(sc.brier), 0), COALESCE(SUM(sc.log_score), 0),
		COALESCE(SUM(sc.peer_score * sc.peer_score), 0), COALESCE(SUM(sc.coverage), 0)
	FROM scores AS sc WHERE sc.agent_id = agents.id`

// insertScores scores every forecaster of a prediction resolved yes or
// no over its life, and returns the scores it stored: Metaculus's baseline and peer scores and the coverage
// by [scoring.TimeAveraged], and the Brier and log scores of the standing
// forecast at the close by [scoring.Score].
func insertScores(ctx context.Context, tx bun.Tx, id string, life scoring.Life, resolved time.Time, outcome Outcome) ([]scoreSums, []communitySums, error) {
	var evs []historyRow
	if err := tx.NewRaw(`SELECT agent_id, p, created_at, community_geo, community_mean, community_median, community_recency, community_skill
	FROM forecasts WHERE prediction_id = ? ORDER BY seq`, id).Scan(ctx, &evs); err != nil {
		return nil, nil, err
	}
	if len(evs) == 0 {
		return nil, nil, nil
	}
	yes := outcome == OutcomeYes
	events := make([]scoring.TimedForecast, len(evs))
	final := map[string]float64{}
	for i, e := range evs {
		events[i] = scoring.TimedForecast{Who: e.AgentID, P: e.P, At: e.CreatedAt.UTC()}
		final[e.AgentID] = e.P
	}
	ts, err := scoring.TimeAveraged(events, life, yes)
	if err != nil {
		return nil, nil, fmt.Errorf("scoring: %w", err)
	}
	fs := make([]scoring.Forecast, 0, len(ts))
	for _, t := range ts {
		fs = append(fs, scoring.Forecast{Who: t.Who, P: final[t.Who], Outcome: yes})
	}
	res, err := scoring.Score(fs, scoring.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("scoring: %w", err)
	}
	by := map[string]scoring.Summary{}
	for _, f := range res.Forecasters {
		by[f.Who] = f.Summary
	}
	rows := make([][]any, len(ts))
	scored := make([]scoreSums, len(ts))
	for i, t := range ts {
		sum := by[t.Who]
		rows[i] = []any{id, t.Who, final[t.Who], string(outcome), sum.Brier, sum.LogScore, t.Baseline, t.Peer, t.Coverage, resolved}
		scored[i] = scoreSums{AgentID: t.Who, P: final[t.Who], Outcome: string(outcome), Peer: t.Peer, Baseline: t.Baseline, Brier: sum.Brier, Log: sum.LogScore, Coverage: t.Coverage}
	}
	if err := database.InsertRows(ctx, tx, `INSERT INTO scores
	(prediction_id, agent_id, p, outcome, brier, log_score, baseline_score, peer_score, coverage, resolved_at) VALUES `, rows, ""); err != nil {
		return nil, nil, err
	}
	com, err := scoreCommunity(ctx, tx, id, events, evs, life, resolved, outcome)
	return scored, com, err
}

// historyRow is a forecast of a prediction's history with the community
// forecast after it.
type historyRow struct {
	AgentID   string    `bun:"agent_id"`
	P         float64   `bun:"p"`
	CreatedAt time.Time `bun:"created_at"`
	pools
}

// communityWho names the community forecast among the forecasters given
// to package scoring; no agent id can hold a NUL.
const communityWho = "\x00community"

// scoreCommunity scores the community forecast of a prediction as a
// forecaster, by every method of package pool: its history hist (the
// community after each forecast, standing until the next) scored with
// the agents' forecasts events by [scoring.TimeAveraged], so that its
// peer score is against the agents, who are scored without it; its Brier
// and log scores are those of its value at the close.
func scoreCommunity(ctx context.Context, tx bun.Tx, id string, events []scoring.TimedForecast, hist []historyRow, life scoring.Life, resolved time.Time, outcome Outcome) ([]communitySums, error) {
	yes := outcome == OutcomeYes
	var rows [][]any
	var sums []communitySums
	for _, m := range pool.Methods() {
		all := slices.Clone(events)
		for _, h := range hist {
			all = append(all, scoring.TimedForecast{Who: communityWho, P: h.pick(m), At: h.CreatedAt.UTC()})
		}
		ts, err := scoring.TimeAveraged(all, life, yes)
		if err != nil {
			return nil, fmt.Errorf("scoring: %w", err)
		}
		final := hist[len(hist)-1].pick(m)
		res, err := scoring.Score([]scoring.Forecast{{Who: communityWho, P: final, Outcome: yes}}, scoring.Options{})
		if err != nil {
			return nil, fmt.Errorf("scoring: %w", err)
		}
		for _, t := range ts {
			if t.Who == communityWho {
				rows = append(rows, []any{id, string(m), final, string(outcome), res.Overall.Brier, res.Overall.LogScore, t.Baseline, t.Peer, t.Coverage, resolved})
				sums = append(sums, communitySums{Method: string(m), Peer: t.Peer, Baseline: t.Baseline, Brier: res.Overall.Brier, Log: res.Overall.LogScore, Coverage: t.Coverage})
			}
		}
	}
	return sums, database.InsertRows(ctx, tx, `INSERT INTO community_scores
	(prediction_id, method, p, outcome, brier, log_score, baseline_score, peer_score, coverage, resolved_at) VALUES `, rows, "")
}

type scoreRow struct {
	PredictionID string    `bun:"prediction_id"`
	AgentID      string    `bun:"agent_id"`
	AgentName    string    `bun:"agent_name"`
	P            float64   `bun:"p"`
	Outcome      string    `bun:"outcome"`
	Brier        float64   `bun:"brier"`
	LogScore     float64   `bun:"log_score"`
	Baseline     float64   `bun:"baseline_score"`
	Peer         float64   `bun:"peer_score"`
	Coverage     float64   `bun:"coverage"`
	ResolvedAt   time.Time `bun:"resolved_at"`
}

const scoreCols = `sc.prediction_id, sc.agent_id, (SELECT a.name FROM agents AS a WHERE a.id = sc.agent_id) AS agent_name,
	sc.p, sc.outcome, sc.brier, sc.log_score, sc.baseline_score, sc.peer_score, sc.coverage, sc.resolved_at`

func (r scoreRow) score() Score {
	return Score{
		PredictionID: r.PredictionID, AgentID: r.AgentID, AgentName: r.AgentName,
		P: r.P, Outcome: Outcome(r.Outcome), Brier: r.Brier, LogScore: r.LogScore,
		BaselineScore: r.Baseline, PeerScore: r.Peer, Coverage: r.Coverage, ResolvedAt: r.ResolvedAt.UTC(),
	}
}

// Scores returns the score table of a prediction.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id.
func (s *Store) Scores(ctx context.Context, predictionID string) (ScoreTable, error) {
	p, err := s.Prediction(ctx, predictionID)
	if err != nil {
		return ScoreTable{}, err
	}
	t := ScoreTable{PredictionID: p.ID, Status: p.Status, Outcome: p.Outcome, Scores: []Score{}, Notes: []string{}}
	switch p.Status {
	case StatusOpen:
		t.Notes = append(t.Notes, "the prediction is open: scores are given when a moderator resolves it yes or no")
		return t, nil
	case StatusVoid:
		t.Notes = append(t.Notes, "the prediction resolved void: void predictions are not scored")
		return t, nil
	}
	var rows []scoreRow
	if err := s.read.NewRaw(`SELECT `+scoreCols+` FROM scores AS sc WHERE sc.prediction_id = ?
	ORDER BY sc.peer_score DESC, sc.agent_id`, predictionID).Scan(ctx, &rows); err != nil {
		return ScoreTable{}, fmt.Errorf("board: scores: %w", err)
	}
	var com []scoreRow
	if err := s.read.NewRaw(`SELECT sc.prediction_id, 'community' AS agent_id, 'community forecast' AS agent_name,
	sc.p, sc.outcome, sc.brier, sc.log_score, sc.baseline_score, sc.peer_score, sc.coverage, sc.resolved_at
	FROM community_scores AS sc WHERE sc.prediction_id = ? AND sc.method = ?`, predictionID, string(s.method)).Scan(ctx, &com); err != nil {
		return ScoreTable{}, fmt.Errorf("board: scores: %w", err)
	}
	if len(com) > 0 {
		c := com[0].score()
		t.Community = &c
	}
	fs := make([]scoring.Forecast, 0, len(rows))
	for _, r := range rows {
		t.Scores = append(t.Scores, r.score())
		fs = append(fs, scoring.Forecast{Who: r.AgentID, P: r.P, Outcome: r.Outcome == string(OutcomeYes)})
	}
	if len(fs) > 0 {
		// The notes of package scoring, so that a clipped forecast is
		// explained in the tools' words.
		if res, err := scoring.Score(fs, scoring.Options{}); err == nil {
			t.Notes = append(t.Notes, res.Overall.Notes...)
		}
	}
	return t, nil
}
