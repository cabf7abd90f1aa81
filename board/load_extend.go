package board

import (
	"context"
	"slices"
	"time"

	"github.com/uptrace/bun"
)

// loadTarget is a prediction the board has, as [loader.extend] reads it
// holding its row lock.
type loadTarget struct {
	status   Status
	closeAt  time.Time // zero for none
	authorID string
	domain   string
	was      float64              // the community forecast before the load
	have     map[forecastKey]bool // the forecasts stored
	last     time.Time            // the latest forecast stored
	standing map[string]standing  // the standing forecasts by agent
	newcomer map[string]bool      // agents new to the prediction: their forecasts counter goes up
}

// forecastKey matches a forecast to a stored one: forecaster and time to
// the microsecond.
type forecastKey struct {
	agent string
	at    int64
}

// extend adds to the prediction the board has of l.qs[i] the forecasts it
// lacks that could have been made there (see [Store.Load]), and records
// the others as skipped.
func (l *loader) extend(ctx context.Context, tx bun.Tx, ev *eventBatch, i int) error {
	q := &l.qs[i]
	t, err := l.s.loadTarget(ctx, tx, q.id)
	if err != nil {
		return err
	}
	out := LoadedQuestion{Status: t.status}
	var lines []line
	for j, fc := range q.lines {
		at := fc.at.Truncate(time.Microsecond)
		k := forecastKey{fc.agentID, at.UnixMicro()}
		if t.have[k] {
			continue // stored before: loading again changes nothing
		}
		skip := SkippedForecast{Index: j}
		switch {
		case t.status != StatusOpen:
			skip.Reason = SkipNotOpen
		case !t.closeAt.IsZero() && !at.Before(t.closeAt):
			skip.Reason, skip.Bound = SkipAfterClose, t.closeAt
		case at.Before(t.last):
			skip.Reason, skip.Bound = SkipBeforeLatest, t.last
		case at.After(l.now):
			skip.Reason = SkipFuture
		default:
			id, err := newID()
			if err != nil {
				return err
			}
			if _, ok := t.standing[fc.agentID]; !ok {
				t.newcomer[fc.agentID] = true
			}
			lines = append(lines, line{id: id, agentID: fc.agentID, note: fc.note, p: fc.p, at: at})
			t.have[k] = true
			t.last = at
			continue
		}
		out.Skipped = append(out.Skipped, skip)
	}
	if len(lines) > 0 {
		if err := l.appendTo(ctx, tx, ev, q.id, t, lines); err != nil {
			return err
		}
	}
	out.Forecasts = len(lines)
	l.res.Questions[i] = out
	return nil
}

// loadTarget reads the prediction id, locking its row.
func (s *Store) loadTarget(ctx context.Context, tx bun.Tx, id string) (*loadTarget, error) {
	var cur []struct {
		Status  string       `bun:"status"`
		CloseAt bun.NullTime `bun:"close_at"`
		AgentID string       `bun:"agent_id"`
		Domain  string       `bun:"domain"`
		pools
	}
	if err := tx.NewRaw(`SELECT status, close_at, agent_id, domain,
	community_geo, community_mean, community_median, community_recency, community_skill FROM predictions WHERE id = ?`+s.forUpdate(), id).Scan(ctx, &cur); err != nil {
		return nil, err
	}
	if len(cur) == 0 {
		return nil, notFound("prediction", id)
	}
	c := cur[0]
	t := &loadTarget{status: Status(c.Status), authorID: c.AgentID, domain: c.Domain, was: c.pick(s.method),
		have: map[forecastKey]bool{}, standing: map[string]standing{}, newcomer: map[string]bool{}}
	if !c.CloseAt.IsZero() {
		t.closeAt = c.CloseAt.Time.UTC()
	}
	var stored []struct {
		AgentID   string    `bun:"agent_id"`
		CreatedAt time.Time `bun:"created_at"`
	}
	if err := tx.NewRaw(`SELECT agent_id, created_at FROM forecasts WHERE prediction_id = ? ORDER BY seq`, id).Scan(ctx, &stored); err != nil {
		return nil, err
	}
	for _, f := range stored {
		t.have[forecastKey{f.AgentID, f.CreatedAt.UnixMicro()}] = true
		if f.CreatedAt.After(t.last) {
			t.last = f.CreatedAt.UTC()
		}
	}
	var stand []standing
	if err := tx.NewRaw(`SELECT agent_id, p, updated_at FROM standings WHERE prediction_id = ?`, id).Scan(ctx, &stand); err != nil {
		return nil, err
	}
	for _, st := range stand {
		st.At = st.At.UTC()
		t.standing[st.AgentID] = st
	}
	return t, nil
}

// appendTo stores lines on the prediction id the board has: the
// forecasters' rows first, in id order (the lock order of scoring), then
// the forecasts, and community.moved when the community forecast moved.
func (l *loader) appendTo(ctx context.Context, tx bun.Tx, ev *eventBatch, id string, t *loadTarget, lines []line) error {
	var agents []string
	for _, ln := range lines {
		agents = append(agents, ln.agentID)
	}
	slices.Sort(agents)
	agents = slices.Compact(agents)
	ws := make([]agentWrite, len(agents))
	for i, a := range agents {
		ws[i] = l.s.agentWrite(a, l.names[a], l.now)
		ws[i].kind = l.kinds[a]
		if t.newcomer[a] {
			ws[i].forecasts = 1
		}
	}
	if err := upsertAgents(ctx, tx, ws); err != nil {
		return err
	}
	prev, err := lastForecast(ctx, tx, id)
	if err != nil {
		return err
	}
	c, err := appendForecasts(ctx, tx, id, prev.Seq, t.standing, lines, nil)
	if err != nil {
		return err
	}
	if moved := c.pick(l.s.method); moved != t.was {
		ev.add(Event{Type: EventCommunityMoved, At: t.last, PredictionID: id, Domain: t.domain, AuthorID: t.authorID},
			movedData{P: moved, Previous: t.was, Forecasters: c.n, Method: string(l.s.method)})
	}
	return nil
}
