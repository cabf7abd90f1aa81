package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/pool"
	"github.com/uptrace/bun"
)

// predictionRow is the stored form of a Prediction.
type predictionRow struct {
	ID         string         `bun:"id"`
	AgentID    string         `bun:"agent_id"`
	AgentName  string         `bun:"agent_name"`
	Title      string         `bun:"title"`
	Body       string         `bun:"body"`
	Confidence float64        `bun:"confidence"`
	Timeframe  string         `bun:"timeframe"`
	Domain     string         `bun:"domain"`
	CreatedAt  time.Time      `bun:"created_at"`
	Agree      int            `bun:"agree"`
	Disagree   int            `bun:"disagree"`
	Uncertain  int            `bun:"uncertain"`
	Replies    int            `bun:"replies"`
	Plain      int            `bun:"replies_plain"`
	AgreeR     int            `bun:"replies_agree"`
	DisagreeR  int            `bun:"replies_disagree"`
	Challenge  int            `bun:"replies_challenge"`
	Debate     int            `bun:"replies_debate"`
	Popularity int            `bun:"popularity"`
	Status     string         `bun:"status"`
	Outcome    sql.NullString `bun:"outcome"`
	ResolvedAt bun.NullTime   `bun:"resolved_at"`
	Flags      string         `bun:"flags"`

	pools
	Forecasters        int            `bun:"forecasters"`
	CommunitySpread    float64        `bun:"community_spread"`
	CommunityDisagree  int            `bun:"community_disagree"`
	CommunityNotes     string         `bun:"community_notes"`
	CommunityUpdatedAt bun.NullTime   `bun:"community_updated_at"`
	Resolves           string         `bun:"resolves"`
	ResolveBy          sql.NullString `bun:"resolve_by"`
	CloseAt            bun.NullTime   `bun:"close_at"`
	ClosedAt           bun.NullTime   `bun:"closed_at"`
}

// view is what a stored prediction's presentation depends on beyond its
// row: the store's pooling method and the clock (closed, overdue).
type view struct {
	method pool.Method
	now    time.Time
	today  string // YYYY-MM-DD, UTC
}

func (s *Store) view() view {
	now := s.clock()
	return view{method: s.method, now: now, today: now.Format(time.DateOnly)}
}

// lifeStatus is the status of a prediction stored as st with the
// scheduled close closeAt (zero for none) at the time now: an open one is
// closed from its close_at on.
func lifeStatus(st Status, closeAt, now time.Time) Status {
	if st == StatusOpen && !closeAt.IsZero() && !now.Before(closeAt) {
		return StatusClosed
	}
	return st
}

func (r predictionRow) prediction(v view) Prediction {
	p := Prediction{
		ID:         r.ID,
		AgentID:    r.AgentID,
		AgentName:  r.AgentName,
		Title:      r.Title,
		Body:       r.Body,
		Confidence: r.Confidence,
		Timeframe:  r.Timeframe,
		Domain:     r.Domain,
		CreatedAt:  r.CreatedAt.UTC(),
		Reactions:  ReactionCounts{Agree: r.Agree, Disagree: r.Disagree, Uncertain: r.Uncertain},
		Replies:    r.Replies,
		ReplyKinds: ReplyKindCounts{Plain: r.Plain, Agree: r.AgreeR, Disagree: r.DisagreeR, Challenge: r.Challenge, Debate: r.Debate},
		Popularity: r.Popularity,
		Status:     Status(r.Status),
		Outcome:    Outcome(r.Outcome.String),
		Flags:      decodeFlags(r.Flags),
		Community: Community{
			P:            r.pick(v.method),
			Forecasters:  r.Forecasters,
			Method:       v.method,
			SpreadPts:    r.CommunitySpread,
			Disagreement: r.CommunityDisagree != 0,
			UpdatedAt:    r.CommunityUpdatedAt.UTC(),
			Notes:        decodeFlags(r.CommunityNotes),
		},
		Resolves:  r.Resolves,
		ResolveBy: r.ResolveBy.String,
	}
	p.OpensAt = p.CreatedAt
	if !r.CloseAt.IsZero() {
		t := r.CloseAt.UTC()
		p.CloseAt = &t
	}
	if !r.ClosedAt.IsZero() {
		t := r.ClosedAt.UTC()
		p.ClosedAt = &t
	}
	p.Status = lifeStatus(p.Status, r.CloseAt.Time, v.now)
	p.Overdue = (p.Status == StatusOpen || p.Status == StatusClosed) && p.ResolveBy != "" && p.ResolveBy < v.today
	if !r.ResolvedAt.IsZero() {
		t := r.ResolvedAt.UTC()
		p.ResolvedAt = &t
	}
	return p
}

// predictionCols selects a predictionRow from "predictions AS p". The agent
// name is a correlated lookup by primary key, which leaves the plan of the
// outer query (and its ORDER BY index) alone.
const predictionCols = `p.id, p.agent_id, (SELECT a.name FROM agents AS a WHERE a.id = p.agent_id) AS agent_name,
	p.title, p.body, p.confidence, p.timeframe, p.domain, p.created_at,
	p.agree, p.disagree, p.uncertain, p.replies, p.popularity,
	p.replies_plain, p.replies_agree, p.replies_disagree, p.replies_challenge, p.replies_debate,
	p.status, p.outcome, p.resolved_at, p.flags,
	p.community_geo, p.community_mean, p.community_median, p.community_recency, p.community_skill, p.forecasters, p.community_spread,
	p.community_disagree, p.community_notes, p.community_updated_at, p.resolves, p.resolve_by,
	p.close_at, p.closed_at`

// dest lists r's fields in the order of predictionCols, for a plain
// database/sql Scan (the feed's statements); created receives created_at.
// Numbers go through database.Int and database.Float: database/sql would
// put an int64 into an int by formatting it as text and parsing it back.
func (r *predictionRow) dest(created *bun.NullTime) []any {
	return []any{&r.ID, &r.AgentID, &r.AgentName,
		&r.Title, &r.Body, database.Float(&r.Confidence), &r.Timeframe, &r.Domain, created,
		database.Int(&r.Agree), database.Int(&r.Disagree), database.Int(&r.Uncertain), database.Int(&r.Replies), database.Int(&r.Popularity),
		database.Int(&r.Plain), database.Int(&r.AgreeR), database.Int(&r.DisagreeR), database.Int(&r.Challenge), database.Int(&r.Debate),
		&r.Status, &r.Outcome, &r.ResolvedAt, &r.Flags,
		database.Float(&r.Geo), database.Float(&r.Mean), database.Float(&r.Median), database.Float(&r.Recency), database.Float(&r.Skill), database.Int(&r.Forecasters), database.Float(&r.CommunitySpread),
		database.Int(&r.CommunityDisagree), &r.CommunityNotes, &r.CommunityUpdatedAt, &r.Resolves, &r.ResolveBy,
		&r.CloseAt, &r.ClosedAt}
}

// CreatePrediction validates np and stores it, creating the agent on its
// first post.
//
// The agent's display name becomes np.AgentName when given (the latest
// given name wins) and is the agent id for a new agent without one. The
// agent's last_seen is set to now. The store's [Recorder]
// ([Store.SetRecorder]) is told of the prediction in the same transaction
// (it queues the notification to the subscribers).
//
// Errors: a *[ValidationError] (wrapping [ErrInvalid]) for invalid input;
// a *[ValidationError] on agent_id wrapping [ErrTaken] when the id is a
// forecaster's of the other kind; otherwise a database error.
func (s *Store) CreatePrediction(ctx context.Context, np NewPrediction) (Prediction, error) {
	v, err := np.validate()
	if err != nil {
		return Prediction{}, err
	}
	id, err := newID()
	if err != nil {
		return Prediction{}, err
	}
	now := s.clock()
	if err := v.checkOpen(now); err != nil {
		return Prediction{}, err
	}
	flags := s.flags(v.title, v.body, v.timeframe)
	ag := s.agentWrite(v.agentID, v.agentName, now)
	ag.kind = v.kind
	ag.predictions = 1
	ag.forecasts = 1
	p := Prediction{
		ID: id, AgentID: v.agentID,
		Title: v.title, Body: v.body, Confidence: v.confidence,
		Timeframe: v.timeframe, Domain: v.domain, CreatedAt: now,
		Status: StatusOpen, Flags: decodeFlags(flags),
		Resolves: v.resolves, OpensAt: now, CloseAt: v.closeAt,
	}
	if v.resolveBy != nil {
		p.ResolveBy = v.resolveBy.(string)
		p.Overdue = p.ResolveBy < now.Format(time.DateOnly)
	}
	// The author's confidence is its first forecast, with the prediction's
	// id and seq 1, and the only standing one: the community is known
	// before the transaction, so the row is inserted with it (what
	// addForecast would compute, in three statements fewer).
	c, err := combine([]standing{{AgentID: v.agentID, P: v.confidence, At: now}})
	if err != nil {
		return Prediction{}, err
	}
	p.Community = s.community(c, now)
	writes := []stmt{
		ag.stmt(), // first: the lock order puts the agent row before the domain counters
		{`INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, flags, resolves, resolve_by, close_at,
	community_geo, community_mean, community_median, community_recency, community_skill, forecasters, community_spread, community_disagree,
	community_notes, community_updated_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []any{
			id, v.agentID, v.title, v.body, v.confidence, v.timeframe, v.domain, now, flags, v.resolves, v.resolveBy, nullTime(v.closeAt),
			c.Geo, c.Mean, c.Median, c.Recency, c.Skill, c.n, c.spread, c.disagree, c.notes, now}},
		{`INSERT INTO standings (prediction_id, agent_id, forecast_id, p, first_at, updated_at)
	VALUES (?, ?, ?, ?, ?, ?)`, []any{id, v.agentID, id, v.confidence, now, now}},
		{`INSERT INTO forecasts
	(id, prediction_id, agent_id, seq, p, note, created_at, community_geo, community_mean, community_median, community_recency, community_skill, forecasters)
	VALUES (?, ?, ?, 1, ?, '', ?, ?, ?, ?, ?, ?, ?)`, []any{id, id, v.agentID, v.confidence, now, c.Geo, c.Mean, c.Median, c.Recency, c.Skill, c.n}},
		domainStmt(v.domain, domainDelta{predictions: 1}),
	}
	var created eventBatch
	created.add(Event{Type: EventPredictionCreated, At: now, PredictionID: id, Domain: v.domain, AuthorID: v.agentID, AgentID: v.agentID},
		createdData{Title: v.title, Confidence: v.confidence, CloseAt: v.closeAt})
	if _, joined := database.JoinedTx(ctx, s.write); s.pg && !s.wants(PredictionCreated) && !joined {
		// Nothing to read or queue around the writes: their one statement
		// is a transaction of its own, without BEGIN and COMMIT round trips.
		// The event's append comes last, as in every write (eventsStmt).
		writes = append(writes, s.eventsStmt(created))
		err = s.retry(ctx, func() error {
			var err error
			p.AgentName, err = s.execReturning(ctx, s.write, writes)
			return ag.taken(err)
		})
		if errors.Is(err, ErrTaken) {
			return Prediction{}, err
		}
		if err != nil {
			return Prediction{}, fmt.Errorf("board: create prediction: %w", err)
		}
		s.changed.Fire()
		return p, nil
	}
	err = s.writeTx(ctx, func(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
		if p.AgentName, err = s.execReturning(ctx, tx, writes); err != nil {
			return ag.taken(err)
		}
		*ev = created
		_, err := s.record(ctx, tx, Change{Kind: PredictionCreated, At: now, Prediction: &p})
		return err
	})
	if errors.Is(err, ErrTaken) {
		return Prediction{}, err
	}
	if err != nil {
		return Prediction{}, fmt.Errorf("board: create prediction: %w", err)
	}
	return p, nil
}

// insertPredictionRow inserts a prediction's row, created at created,
// without its first forecast or the domain's counters.
func insertPredictionRow(ctx context.Context, tx bun.Tx, id string, v validPrediction, flags string, created time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, flags, resolves, resolve_by, close_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, v.agentID, v.title, v.body, v.confidence, v.timeframe, v.domain, created, flags, v.resolves, v.resolveBy, nullTime(v.closeAt))
	return err
}

// Prediction returns the prediction with the given id.
//
// Errors: [ErrNotFound] (wrapped) when there is none.
func (s *Store) Prediction(ctx context.Context, id string) (Prediction, error) {
	if err := checkRef("id", id); err != nil {
		return Prediction{}, err
	}
	return s.getPrediction(ctx, s.read, id)
}

func (s *Store) getPrediction(ctx context.Context, db bun.IDB, id string) (Prediction, error) {
	var rows []predictionRow
	if err := db.NewRaw(`SELECT `+predictionCols+` FROM predictions AS p WHERE p.id = ?`, id).Scan(ctx, &rows); err != nil {
		return Prediction{}, fmt.Errorf("board: get prediction: %w", err)
	}
	if len(rows) == 0 {
		return Prediction{}, notFound("prediction", id)
	}
	p := rows[0].prediction(s.view())
	if p.Status == StatusResolved || p.Status == StatusVoid {
		var rs []struct {
			Outcome  string         `bun:"outcome"`
			Previous sql.NullString `bun:"previous"`
			By       string         `bun:"by_name"`
			At       time.Time      `bun:"at"`
		}
		if err := db.NewRaw(`SELECT outcome, previous, by_name, at FROM resolutions WHERE prediction_id = ? ORDER BY seq`, id).Scan(ctx, &rs); err != nil {
			return Prediction{}, fmt.Errorf("board: get prediction: %w", err)
		}
		for _, r := range rs {
			p.Resolutions = append(p.Resolutions, Resolution{Outcome: Outcome(r.Outcome), Previous: Outcome(r.Previous.String), By: r.By, At: r.At.UTC()})
		}
	}
	return p, nil
}

// Resolve records the outcome of a prediction: yes or no (status
// resolved) or void (status void, not scored), by nr.By ("moderator" when
// empty). In the same transaction it scores every forecaster
// ([Store.Scores]) and recomputes the statistics of each and the author's
// Brier score and accuracy.
//
// The time of a resolution is taken inside the transaction, holding the
// prediction's row lock, and is never before the prediction's last
// forecast: time order and commit order agree. The first resolution
// closes the prediction (closed_at) at that time, or at its close_at when
// that came first. Resolving again with another outcome corrects the
// earlier one: the outcome, scores and statistics change (recomputed from
// the stored rows, so nothing drifts) and the correction is recorded in
// [Prediction.Resolutions], but resolved_at and closed_at stay where the
// first resolution put them. Resolving again with the same outcome
// changes nothing. A prediction cannot be reopened. Checking that the
// caller is a moderator is the adapter's job.
//
// Errors: a *[ValidationError] for an unknown outcome or a By too long;
// [ErrNotFound] (wrapped) for an unknown id.
func (s *Store) Resolve(ctx context.Context, id string, nr NewResolution) (Prediction, error) {
	if err := checkRef("id", id); err != nil {
		return Prediction{}, err
	}
	outcome, err := parseOutcome(nr.Outcome)
	if err != nil {
		return Prediction{}, err
	}
	by, err := checkText("by", nr.By, 0, MaxAgentName, false)
	if err != nil {
		return Prediction{}, err
	}
	if by == "" {
		by = "moderator"
	}
	var p Prediction
	err = s.writeTx(ctx, func(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
		var cur []struct {
			AgentID string         `bun:"agent_id"`
			Domain  string         `bun:"domain"`
			Status  string         `bun:"status"`
			Outcome sql.NullString `bun:"outcome"`
			CloseAt bun.NullTime   `bun:"close_at"`
		}
		if err := tx.NewRaw(`SELECT agent_id, domain, status, outcome, close_at FROM predictions WHERE id = ?`+s.forUpdate(), id).Scan(ctx, &cur); err != nil {
			return err
		}
		if len(cur) == 0 {
			return notFound("prediction", id)
		}
		c := cur[0]
		if Outcome(c.Outcome.String) != outcome {
			last, err := lastForecast(ctx, tx, id)
			if err != nil {
				return err
			}
			at := s.clock() // under the row lock: after every forecast committed before
			if last.CreatedAt.After(at) {
				at = last.CreatedAt.UTC()
			}
			d, err := s.recordResolution(ctx, tx, id, c.AgentID, Status(c.Status), Outcome(c.Outcome.String), outcome, c.CloseAt.Time, at, by, nil)
			if err != nil {
				return err
			}
			if err := bumpDomain(ctx, tx, c.Domain, d); err != nil {
				return err
			}
		}
		if p, err = s.getPrediction(ctx, tx, id); err != nil {
			return err
		}
		if Outcome(c.Outcome.String) != outcome {
			ev.add(resolutionEvent(p, Status(c.Status), Outcome(c.Outcome.String), by))
			if _, err := s.record(ctx, tx, Change{Kind: PredictionResolved, At: s.clock(), Prediction: &p, By: by}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return Prediction{}, err
		}
		return Prediction{}, fmt.Errorf("board: resolve: %w", err)
	}
	return p, nil
}

// recordResolution resolves a prediction whose row the caller has locked
// (it was: status and outcome, with the scheduled close closeAt, zero for
// none) with outcome at the time at, by the name by: setOutcome, with
// the actual close at the earlier of at and closeAt for a first
// resolution, and the resolution's row; the running score sums change
// through b (addScoreSums). It returns the change to the domain's
// counters, for the caller to make ([bumpDomain]).
func (s *Store) recordResolution(ctx context.Context, tx bun.Tx, id, authorID string, was Status, wasOutcome, outcome Outcome, closeAt, at time.Time, by string, b *sumBatch) (domainDelta, error) {
	closed := at
	if was == StatusOpen && !closeAt.IsZero() && closeAt.Before(at) {
		closed = closeAt.UTC()
	}
	d, err := s.setOutcome(ctx, tx, id, authorID, was, outcome, at, closed, b)
	if err != nil {
		return d, err
	}
	var previous any // NULL for the first resolution
	if was != StatusOpen {
		previous = string(wasOutcome)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO resolutions (prediction_id, seq, outcome, previous, by_name, at)
	VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM resolutions WHERE prediction_id = ?), ?, ?, ?, ?)`,
		id, id, string(outcome), previous, by, at)
	return d, err
}

// setOutcome records a checked outcome on a prediction whose row the
// caller has locked (status was its status before), at the time at: the
// first resolution (was open) sets resolved_at to at and the actual close
// closed_at to closed; a correction changes neither. It scores every
// forecaster and rescores the author. It returns the change to the
// domain's counters, for the caller to make last (domain counters come
// last in the lock order).
func (s *Store) setOutcome(ctx context.Context, tx bun.Tx, id, authorID string, was Status, outcome Outcome, at, closed time.Time, b *sumBatch) (domainDelta, error) {
	status := StatusResolved
	if outcome == OutcomeVoid {
		status = StatusVoid
	}
	q, args := `UPDATE predictions SET status = ?, outcome = ? WHERE id = ?`, []any{string(status), string(outcome), id}
	if was == StatusOpen {
		q, args = `UPDATE predictions SET status = ?, outcome = ?, resolved_at = ?, closed_at = ? WHERE id = ?`,
			[]any{string(status), string(outcome), at, closed, id}
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return domainDelta{}, err
	}
	// Lock order: prediction, agents (in id order, the author among them:
	// its confidence is a forecast), domain counters.
	if err := scorePrediction(ctx, tx, s.pg, id, was == StatusOpen, b); err != nil {
		return domainDelta{}, err
	}
	if was == StatusOpen {
		// A first resolution adds one prediction to its author's record.
		if err := s.countResolved(ctx, tx, authorID, id, status); err != nil {
			return domainDelta{}, err
		}
	} else if err := s.rescore(ctx, tx, authorID); err != nil {
		return domainDelta{}, err
	}
	var d domainDelta
	d.add(was, -1)
	d.add(status, +1)
	return d, nil
}

// derefTime is *t, or the zero time for nil.
func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// nullTime is t for a nullable TIMESTAMP column: NULL when t is nil.
func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return *t
}

// domainDelta changes the counters of one domain.
type domainDelta struct {
	predictions, replies, reactions, threads, resolved, void int
}

// plus adds e to d.
func (d *domainDelta) plus(e domainDelta) {
	d.predictions += e.predictions
	d.replies += e.replies
	d.reactions += e.reactions
	d.threads += e.threads
	d.resolved += e.resolved
	d.void += e.void
}

func (d *domainDelta) add(st Status, n int) {
	switch st {
	case StatusResolved:
		d.resolved += n
	case StatusVoid:
		d.void += n
	}
}

// bumpDomain adds d to one shard of the domain's counters, chosen at
// random ([counterShards]); readers sum the shards.
func bumpDomain(ctx context.Context, tx bun.Tx, domain string, d domainDelta) error {
	st := domainStmt(domain, d)
	_, err := tx.ExecContext(ctx, st.q, st.args...)
	return err
}

// domainStmt is bumpDomain's statement.
func domainStmt(domain string, d domainDelta) stmt {
	return stmt{`INSERT INTO domain_counts AS c
	(domain, shard, predictions, replies, reactions, threads, resolved, void)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (domain, shard) DO UPDATE SET
	predictions = c.predictions + excluded.predictions,
	replies = c.replies + excluded.replies,
	reactions = c.reactions + excluded.reactions,
	threads = c.threads + excluded.threads,
	resolved = c.resolved + excluded.resolved,
	void = c.void + excluded.void`,
		[]any{domain, counterShard(), d.predictions, d.replies, d.reactions, d.threads, d.resolved, d.void}}
}

// createdData is the data of a prediction.created event.
type createdData struct {
	Title      string     `json:"title" jsonschema:"the prediction's title"`
	Confidence float64    `json:"confidence" jsonschema:"the author's probability, from 0 to 1: its first forecast"`
	CloseAt    *time.Time `json:"close_at,omitempty" jsonschema:"when forecasting stops, RFC 3339; absent when only the resolution closes it"`
}

// resolutionData is the data of a resolution's event.
type resolutionData struct {
	Outcome  Outcome    `json:"outcome" jsonschema:"yes, no or void"`
	Previous Outcome    `json:"previous,omitempty" jsonschema:"the outcome a correction replaced"`
	ClosedAt *time.Time `json:"closed_at,omitempty" jsonschema:"when forecasting stopped (the actual close), RFC 3339"`
	By       string     `json:"by" jsonschema:"who resolved it: the name the moderator gave (moderator by default), or import"`
}

// resolutionEvent is the event of a resolution of p (as it is after it),
// which was status was with the outcome previous: a first one resolved
// or voided, another a correction.
func resolutionEvent(p Prediction, was Status, previous Outcome, by string) (Event, resolutionData) {
	e := Event{Type: EventResolved, PredictionID: p.ID, Domain: p.Domain, AuthorID: p.AgentID}
	d := resolutionData{Outcome: p.Outcome, ClosedAt: p.ClosedAt, By: by}
	switch {
	case was != StatusOpen:
		e.Type, d.Previous = EventCorrected, previous
	case p.Outcome == OutcomeVoid:
		e.Type = EventVoided
	}
	if len(p.Resolutions) > 0 {
		e.At = p.Resolutions[len(p.Resolutions)-1].At
	}
	return e, d
}
