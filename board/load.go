package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/predictions-md/predictions/scoring"
	"github.com/uptrace/bun"
)

// LoadQuestion is a whole prediction for [Store.Load]: the post, every
// forecast with its time and, for a resolved or void prediction, its
// outcome and close. A translation that reads predictions from elsewhere
// builds it (package boardfile reads them from a forecast file).
type LoadQuestion struct {
	// ID is the prediction's id, stable across loads, as
	// [ValidPredictionID] takes it. A prediction the board has is not
	// created again.
	ID string
	// Prediction is the post, validated as [Store.CreatePrediction]
	// validates it. Its AgentID and Confidence are those of the first
	// forecast; its CloseAt is not read (CloseAt below is the close).
	Prediction NewPrediction
	// OpensAt is the prediction's creation, when it opens.
	OpensAt time.Time
	// CloseAt is the scheduled close; zero for none.
	CloseAt time.Time
	// Forecasts are every forecast in time order, at least one; the
	// first is the author's.
	Forecasts []LoadForecast
	// Outcome resolves a prediction as it is created: yes, no or void;
	// "" leaves it open. A load never resolves a prediction the board
	// already has.
	Outcome Outcome
	// ClosedAt is the actual close and the time of the resolution when
	// Outcome is set.
	ClosedAt time.Time
}

// LoadForecast is one forecast of a [LoadQuestion]: the forecast as
// [Store.Forecast] takes it (AgentName names the agent; "" leaves its
// name alone) and when it was made.
type LoadForecast struct {
	NewForecast
	// At is when it was made; it is stored to the microsecond.
	At time.Time
}

// LoadResult says what [Store.Load] did.
type LoadResult struct {
	// Questions has what was done with each [LoadQuestion], in order.
	Questions []LoadedQuestion
	// NewAgents are the ids of the agents created with the predictions
	// created, sorted; never nil. (An agent first seen on a forecast added
	// to a prediction the board had is created too, but not listed.)
	NewAgents []string
}

// LoadedQuestion is what [Store.Load] did with one [LoadQuestion].
type LoadedQuestion struct {
	// Created says the prediction was created; false, the board had it.
	Created bool
	// Status is the prediction's stored status after the load: open,
	// resolved or void (an open prediction past its close_at is open).
	Status Status
	// Forecasts is the number of forecasts stored: every one of a
	// prediction created, those added to one the board had.
	Forecasts int
	// Skipped are the forecasts not stored on a prediction the board
	// had, in order, and why. A forecast the board has already (the same
	// forecaster at the same microsecond) is neither stored nor skipped.
	Skipped []SkippedForecast
}

// SkippedForecast is a forecast of a prediction the board had that
// [Store.Load] did not store because it could not have been made there.
type SkippedForecast struct {
	// Index is the forecast's index in [LoadQuestion.Forecasts].
	Index int
	// Reason says why it was not stored.
	Reason SkipReason
	// Bound is the prediction's close_at for [SkipAfterClose], and its
	// latest forecast then for [SkipBeforeLatest].
	Bound time.Time
}

// SkipReason says why [Store.Load] did not store a forecast on a
// prediction the board had.
type SkipReason int

const (
	// SkipNotOpen: the prediction is resolved or void and takes no
	// forecasts ([LoadedQuestion.Status] says which).
	SkipNotOpen SkipReason = iota + 1
	// SkipAfterClose: the forecast is at or after the prediction's
	// close_at.
	SkipAfterClose
	// SkipBeforeLatest: the forecast is before the prediction's latest
	// forecast, and the board keeps forecasts in the order they were
	// made.
	SkipBeforeLatest
	// SkipFuture: the forecast is in the future.
	SkipFuture
)

// loadLockKey is the PostgreSQL advisory lock under which loads take
// turns, so that two loads of one question create it once: the second
// finds the first's rows ("predload").
const loadLockKey int64 = 0x707265646c6f6164

// Load writes whole predictions in one write transaction. Each
// [LoadQuestion] whose ID the board lacks is created at its OpensAt with
// every forecast, each at its time, replacing its forecaster's standing
// one with the community forecast recomputed after each, as
// [Store.Forecast] does; with an Outcome it is then resolved as
// [Store.Resolve] does, by "import", at ClosedAt, and every forecaster
// is scored. Of a question whose ID the board has, the forecasts the
// board lacks (matched by forecaster and time, to the microsecond) are
// added when they could have been made there: the prediction still open,
// before its close_at, not before its latest stored forecast, not in the
// future; each other one is in [LoadedQuestion.Skipped]. So loading the
// same questions again changes nothing. Agents are created as needed;
// nobody is notified by mail.
//
// It appends one event a question, not one a forecast: a prediction
// created is prediction.created (at its opening), then its resolution's
// event if it has an Outcome; a prediction given forecasts is
// community.moved when the community forecast moved. Loads take turns
// (on PostgreSQL under an advisory lock; SQLite has one writer), so
// concurrent loads of one question create it once.
//
// Errors: a *[ValidationError] for a question the board cannot store
// (nothing is written), wrapping [ErrTaken] for a forecaster whose id the
// board holds for the other kind (LoadForecast's Kind); otherwise the database's, as [Classify] gives it.
// The cost of a load grows with its forecasts: a caller with many splits
// them into loads of whole questions, so that other writes wait for one.
func (s *Store) Load(ctx context.Context, qs []LoadQuestion) (LoadResult, error) {
	if len(qs) == 0 {
		return LoadResult{Questions: []LoadedQuestion{}, NewAgents: []string{}}, nil
	}
	l := &loader{s: s, names: map[string]string{}, kinds: map[string]string{}, now: s.clock()}
	if err := l.prepare(qs); err != nil {
		return LoadResult{}, err
	}
	if err := s.writeTx(ctx, l.run); err != nil {
		if errors.Is(err, ErrTaken) {
			if named := s.kindsTaken(ctx, l.kinds); named != nil {
				return LoadResult{}, named
			}
		}
		return LoadResult{}, err
	}
	return l.res, nil
}

// loader is one [Store.Load]: its questions validated, the display name
// to give each agent, its time and its result.
type loader struct {
	s     *Store
	qs    []loadQuestion
	names map[string]string
	kinds map[string]string // each forecaster's kind
	now   time.Time
	res   LoadResult
}

// loadQuestion is a validated [LoadQuestion].
type loadQuestion struct {
	id      string
	v       validPrediction
	opens   time.Time
	closed  time.Time // the actual close, with an outcome
	outcome Outcome   // "" for open
	lines   []loadLine
}

// loadLine is a validated [LoadForecast].
type loadLine struct {
	agentID, note string
	p             float64
	at            time.Time
}

// prepare validates qs into l.qs.
func (l *loader) prepare(qs []LoadQuestion) error {
	seen := make(map[string]bool, len(qs))
	l.qs = make([]loadQuestion, len(qs))
	for i, q := range qs {
		bad := func(err error) error { return fmt.Errorf("board: load: question %s: %w", q.ID, err) }
		switch {
		case !ValidPredictionID(q.ID):
			return bad(invalid("id", fmt.Sprintf("%q is not 1 to %d letters, digits, dots, underscores or hyphens", truncate(q.ID, 70), MaxAgentID), "give each question a stable id such as rain-2026"))
		case seen[q.ID]:
			return bad(invalid("id", "is given to two questions of one load", "give each question an id of its own"))
		case len(q.Forecasts) == 0:
			return bad(invalid("forecasts", "is empty", "give a question at least its author's forecast"))
		}
		seen[q.ID] = true
		v, err := q.Prediction.validate()
		if err != nil {
			return bad(err)
		}
		lq := loadQuestion{id: q.ID, v: v, opens: q.OpensAt, closed: q.ClosedAt}
		if q.Outcome != "" {
			if lq.outcome, err = parseOutcome(q.Outcome); err != nil {
				return bad(err)
			}
		}
		lq.v.closeAt = nil
		if !q.CloseAt.IsZero() {
			t := q.CloseAt.UTC()
			lq.v.closeAt = &t
		}
		for j, f := range q.Forecasts {
			vf, err := f.validate()
			if err != nil {
				return bad(err)
			}
			if j == 0 && (vf.agentID != v.agentID || vf.p != v.confidence) {
				return bad(invalid("forecasts", "do not start with the author's forecast", "make the first forecast the prediction's agent_id and confidence"))
			}
			if vf.agentName != "" {
				l.names[vf.agentID] = vf.agentName
			}
			if k, ok := l.kinds[vf.agentID]; ok && k != vf.kind {
				return bad(invalid("agent_id", fmt.Sprintf("%q forecasts as an agent and as a person", vf.agentID), "give one forecaster one kind"))
			}
			l.kinds[vf.agentID] = vf.kind
			lq.lines = append(lq.lines, loadLine{agentID: vf.agentID, note: vf.note, p: vf.p, at: f.At})
		}
		l.qs[i] = lq
	}
	return nil
}

// run is the load's transaction: the predictions the board has get the
// forecasts they lack, then those it lacks are created.
func (l *loader) run(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
	// A transaction run again starts afresh.
	l.res = LoadResult{Questions: make([]LoadedQuestion, len(l.qs)), NewAgents: []string{}}
	if l.s.pg {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, loadLockKey); err != nil {
			return err
		}
	}
	ids := make([]string, len(l.qs))
	for i, q := range l.qs {
		ids[i] = q.id
	}
	var got []string
	if err := tx.NewRaw(`SELECT id FROM predictions WHERE id IN (?)`, bun.List(ids)).Scan(ctx, &got); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	have := make(map[string]bool, len(got))
	for _, id := range got {
		have[id] = true
	}
	var todo []int
	for i, q := range l.qs {
		if !have[q.id] {
			todo = append(todo, i)
			continue
		}
		if err := l.extend(ctx, tx, ev, i); err != nil {
			return err
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return l.create(ctx, tx, ev, todo)
}

// create stores the questions l.qs[i], i in todo, that the board lacks.
func (l *loader) create(ctx context.Context, tx bun.Tx, ev *eventBatch, todo []int) error {
	// Agents first, in id order (the lock order of scoring), with their
	// counters: predictions posted and predictions forecast.
	type counts struct{ predictions, forecasts int }
	agents := map[string]*counts{}
	for _, i := range todo {
		q := &l.qs[i]
		seen := map[string]bool{}
		for j, fc := range q.lines {
			c := agents[fc.agentID]
			if c == nil {
				c = &counts{}
				agents[fc.agentID] = c
			}
			if j == 0 {
				c.predictions++
			}
			if !seen[fc.agentID] {
				seen[fc.agentID] = true
				c.forecasts++
			}
		}
	}
	order := slices.Sorted(maps.Keys(agents))
	var old []string
	if err := tx.NewRaw(`SELECT id FROM agents WHERE id IN (?)`, bun.List(order)).Scan(ctx, &old); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	existed := make(map[string]bool, len(old))
	for _, id := range old {
		existed[id] = true
	}
	ws := make([]agentWrite, len(order))
	for i, id := range order {
		ws[i] = l.s.agentWrite(id, l.names[id], l.now)
		ws[i].kind = l.kinds[id]
		ws[i].predictions, ws[i].forecasts = agents[id].predictions, agents[id].forecasts
		if !existed[id] {
			l.res.NewAgents = append(l.res.NewAgents, id)
		}
	}
	if err := upsertAgents(ctx, tx, ws); err != nil {
		return err
	}
	// The skills known of every forecaster from the earliest forecast
	// on, read once for the load; each resolution below adds its scores.
	from := l.qs[todo[0]].lines[0].at
	for _, i := range todo {
		if at := l.qs[i].lines[0].at; at.Before(from) {
			from = at
		}
	}
	hist, err := skillHistory(ctx, tx, order, from)
	if err != nil {
		return err
	}
	// The domains' counters change last, once a domain, in name order
	// (counters come last in the lock order, and are then held for the
	// least time).
	domains := map[string]*domainDelta{}
	var sums sumBatch
	for _, i := range todo {
		d, err := l.createOne(ctx, tx, ev, &sums, i, hist)
		if err != nil {
			return err
		}
		if domains[l.qs[i].v.domain] == nil {
			domains[l.qs[i].v.domain] = &domainDelta{}
		}
		domains[l.qs[i].v.domain].plus(d)
	}
	if err := sums.flush(ctx, tx); err != nil {
		return err
	}
	for _, domain := range slices.Sorted(maps.Keys(domains)) {
		if err := bumpDomain(ctx, tx, domain, *domains[domain]); err != nil {
			return err
		}
	}
	return nil
}

// createOne inserts the prediction of l.qs[i] with its forecasts and,
// with an outcome, its resolution (whose scores it adds to hist, the
// skills known of the load's forecasters; the other running sums of its
// scores go into sums), and returns the change to its domain's counters.
func (l *loader) createOne(ctx context.Context, tx bun.Tx, ev *eventBatch, sums *sumBatch, i int, hist *scoring.History) (domainDelta, error) {
	q := &l.qs[i]
	flags := l.s.flags(q.v.title, q.v.body, q.v.timeframe)
	if err := insertPredictionRow(ctx, tx, q.id, q.v, flags, q.opens); err != nil {
		return domainDelta{}, err
	}
	// The first forecast is the author's and has the prediction's id, as
	// [Store.CreatePrediction] stores it.
	lines := make([]line, len(q.lines))
	for j, fc := range q.lines {
		id := q.id
		if j > 0 {
			var err error
			if id, err = newID(); err != nil {
				return domainDelta{}, err
			}
		}
		lines[j] = line{id: id, agentID: fc.agentID, note: fc.note, p: fc.p, at: fc.at}
	}
	if _, err := appendForecasts(ctx, tx, q.id, 0, map[string]standing{}, lines, hist); err != nil {
		return domainDelta{}, err
	}
	ev.add(Event{Type: EventPredictionCreated, At: q.opens, PredictionID: q.id, Domain: q.v.domain, AuthorID: q.v.agentID, AgentID: q.v.agentID},
		createdData{Title: q.v.title, Confidence: q.v.confidence, CloseAt: q.v.closeAt})
	d := domainDelta{predictions: 1}
	status := StatusOpen
	if q.outcome != "" {
		r, err := l.s.recordResolution(ctx, tx, q.id, q.v.agentID, StatusOpen, "", q.outcome, derefTime(q.v.closeAt), q.closed, "import", sums)
		if err != nil {
			return domainDelta{}, err
		}
		if err := addScores(ctx, tx, hist, q.id); err != nil {
			return domainDelta{}, err
		}
		closed := q.closed // the actual close, as recordResolution takes it
		if q.v.closeAt != nil && q.v.closeAt.Before(closed) {
			closed = *q.v.closeAt
		}
		ev.add(resolutionEvent(Prediction{ID: q.id, Domain: q.v.domain, AgentID: q.v.agentID, Outcome: q.outcome, ClosedAt: &closed,
			Resolutions: []Resolution{{At: q.closed}}}, StatusOpen, "", "import"))
		d.plus(r)
		status = StatusResolved
		if q.outcome == OutcomeVoid {
			status = StatusVoid
		}
	}
	l.res.Questions[i] = LoadedQuestion{Created: true, Status: status, Forecasts: len(q.lines)}
	return d, nil
}
