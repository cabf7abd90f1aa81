package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
)

// EventType names what happened on the board.
type EventType string

// The event types. A write appends its events in its own transaction, so
// an event exists exactly when its change committed.
const (
	EventPredictionCreated EventType = "prediction.created"
	EventForecast          EventType = "forecast.created"
	// EventCommunityMoved follows a forecast that changed the pooled
	// value of the community forecast (by the store's method).
	EventCommunityMoved EventType = "community.moved"
	// EventReply is every reply, debates' included (its data names
	// debate_id when it opens or joins one); EventDebateEntry follows it
	// for a reply that opens or joins a debate, with the same data.
	EventReply       EventType = "reply.created"
	EventDebateEntry EventType = "debate.entry"
	// EventReaction is a reaction recorded or changed ([AGREE] and
	// [DISAGREE] replies included); the same reaction again is no event.
	EventReaction EventType = "reaction.set"
	// EventClosed announces a prediction still open past its close_at
	// ([Store.AnnounceCloses]); one resolved first has none, its
	// resolution carrying closed_at.
	EventClosed    EventType = "prediction.closed"
	EventResolved  EventType = "prediction.resolved"  // a first resolution yes or no
	EventVoided    EventType = "prediction.voided"    // a first resolution void
	EventCorrected EventType = "prediction.corrected" // another outcome after the first
)

// EventTypes lists every event type, in the order of a question's life.
func EventTypes() []EventType {
	var out []EventType
	for _, e := range EventCatalog() {
		out = append(out, e.Type)
	}
	return out
}

// Event is one entry of the board's event log. Its JSON is what the
// stream's data line and the list of events carry.
type Event struct {
	// ID increases in commit order: a reader that has seen an event has
	// seen every event committed before it.
	ID   int64     `json:"id" jsonschema:"the event's id, increasing in commit order"`
	Type EventType `json:"type" jsonschema:"what happened"`
	// At is the time of the change, as stored with it.
	At           time.Time `json:"at" jsonschema:"the time of the change, RFC 3339"`
	PredictionID string    `json:"prediction_id" jsonschema:"the prediction the event is about"`
	Domain       string    `json:"domain" jsonschema:"the prediction's domain"`
	// AuthorID is the agent that posted the prediction.
	AuthorID string `json:"author_id" jsonschema:"the agent that posted the prediction"`
	// AgentID is the agent that acted (forecast, replied, reacted);
	// empty for a close, a resolution and a community move.
	AgentID string `json:"agent_id,omitempty" jsonschema:"the agent that acted (posted, forecast, replied, reacted); absent for a close, a resolution and a community move"`
	// ToAgentID is the author of the reply that a reply answers.
	ToAgentID string `json:"to_agent_id,omitempty" jsonschema:"the author of the reply a reply answers"`
	// Data holds the values of the type: a prediction's title and
	// confidence, a forecast's p and previous, the community's p,
	// previous and forecasters, a reply's reply_id, parent_id, kind and
	// debate_id, a reaction and its previous, an outcome, its previous,
	// closed_at and by.
	Data json.RawMessage `json:"data"`
}

// ErrEventsTrimmed: the events after the id a reader gave were trimmed
// from the log (older than its retention). The error is a
// *[ValidationError] on the field that carried the id.
var ErrEventsTrimmed = errors.New("board: events trimmed")

// DefaultEventRetention is how long the log keeps events unless the
// caller of [Store.TrimEvents] says otherwise.
const DefaultEventRetention = 7 * 24 * time.Hour

// EventQuery selects events: those after an id that match every filter
// given.
type EventQuery struct {
	// After is the id of the last event the reader has; 0 reads from the
	// oldest event kept.
	After int64
	// Types keeps the events of these types; none means every type.
	Types []EventType
	// PredictionID keeps the events of one prediction.
	PredictionID string
	// AgentID keeps the events about an agent: those on the predictions
	// it posted and the replies answering one of its replies.
	AgentID string
	// Domain keeps the events of one domain (any case).
	Domain string
	// Limit bounds the events returned: 0 means [DefaultEventPage],
	// above [MaxEventPage] is clamped with a note.
	Limit int
}

// The sizes of a page of events.
const (
	DefaultEventPage = 100
	MaxEventPage     = 1000
	// eventScan bounds the rows one call reads, matching or not, so that
	// a rare filter over a long log answers in bounded time; the page's
	// LastID says how far it read.
	eventScan = 5000
)

// EventPage is a page of the log.
type EventPage struct {
	Events []Event `json:"events"` // never nil
	// LastID is the id the next read starts after: the last event read,
	// matching or not, or the query's After when none was.
	LastID int64 `json:"last_id"`
	// HasMore says that the log holds events after LastID.
	HasMore bool     `json:"has_more"`
	Notes   []string `json:"notes"` // never nil
}

// ParseEventTypes reads a comma-separated list of event types (any case,
// spaces allowed around each), as the field named field.
func ParseEventTypes(field, list string) ([]EventType, error) {
	var out []EventType
	for t := range strings.SplitSeq(list, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if !slices.Contains(EventTypes(), EventType(t)) {
			names := make([]string, 0, len(EventTypes()))
			for _, k := range EventTypes() {
				names = append(names, string(k))
			}
			return nil, invalid(field, fmt.Sprintf("names %q, which is not an event type", t),
				"send one or more of "+strings.Join(names, ", ")+", separated by commas, such as forecast.created,reply.created")
		}
		if !slices.Contains(out, EventType(t)) {
			out = append(out, EventType(t))
		}
	}
	return out, nil
}

// ParseEventID reads an event id, as the field named field: a whole
// number from 0, as the log gave it.
func ParseEventID(field, s string) (int64, error) {
	// Digits only, as the published pattern ^\s*[0-9]+\s*$ says:
	// strconv would also take a sign ("+5", "-0").
	t := strings.TrimSpace(s)
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || strings.TrimLeft(t, "0123456789") != "" {
		return 0, invalid(field, fmt.Sprintf("is %q; it is an event id, a whole number from 0", truncate(s, 40)),
			"send the id of the last event you received, such as 42, or 0 for the oldest event kept")
	}
	return n, nil
}

// Check returns the error [Store.Events] would return for q's filters
// and limit, without reading the log.
func (q EventQuery) Check() error {
	_, _, err := q.check()
	return err
}

// Checked returns q with its domain in the board's spelling, or the
// error [Store.Events] would return for its filters and limit: for a
// package that keeps a query to match events later ([EventQuery.Match]).
func (q EventQuery) Checked() (EventQuery, error) {
	_, _, err := q.check()
	return q, err
}

// check validates the filters and returns the limit and its notes.
func (q *EventQuery) check() (int, []string, error) {
	if q.After < 0 {
		return 0, nil, invalid("after", fmt.Sprintf("is %d; event ids start at 1", q.After), "send 0 for the oldest event kept")
	}
	if q.PredictionID != "" {
		if err := checkRef("prediction_id", q.PredictionID); err != nil {
			return 0, nil, err
		}
		if !ValidPredictionID(q.PredictionID) {
			return 0, nil, invalid("prediction_id", fmt.Sprintf("%q is not a prediction id", truncate(q.PredictionID, 80)),
				"send a prediction id as the board returned it (prediction_id)")
		}
	}
	if q.AgentID != "" {
		if err := checkAgentID(q.AgentID); err != nil {
			return 0, nil, err
		}
	}
	if q.Domain != "" {
		d, err := canonicalDomain("domain", q.Domain)
		if err != nil {
			return 0, nil, err
		}
		q.Domain = d
	}
	for _, t := range q.Types {
		if !slices.Contains(EventTypes(), t) {
			_, err := ParseEventTypes("type", string(t))
			return 0, nil, err
		}
	}
	return pageLimit(q.Limit, DefaultEventPage, MaxEventPage)
}

// Match reports whether e passes the query's filters (After and Limit
// aside): the one statement of what the filters mean, for the log's
// reads and for a stream that filters events as they come.
func (q EventQuery) Match(e Event) bool {
	return (len(q.Types) == 0 || slices.Contains(q.Types, e.Type)) &&
		(q.PredictionID == "" || q.PredictionID == e.PredictionID) &&
		(q.AgentID == "" || q.AgentID == e.AuthorID || q.AgentID == e.ToAgentID) &&
		(q.Domain == "" || strings.EqualFold(q.Domain, e.Domain))
}

// eventRow is the stored form of an Event.
type eventRow struct {
	ID           int64     `bun:"id"`
	Type         string    `bun:"type"`
	At           time.Time `bun:"at"`
	PredictionID string    `bun:"prediction_id"`
	Domain       string    `bun:"domain"`
	AuthorID     string    `bun:"author_id"`
	AgentID      string    `bun:"agent_id"`
	ToAgentID    string    `bun:"to_agent_id"`
	Data         string    `bun:"data"`
}

// Events returns the events after q.After that match q, oldest first.
// It reads at most a few thousand rows a call; LastID says where the
// next call starts, whether or not they matched.
//
// Errors: a *[ValidationError] for a bad filter; a *[ValidationError] on
// after wrapping [ErrEventsTrimmed] when events after q.After (not 0)
// were trimmed.
func (s *Store) Events(ctx context.Context, q EventQuery) (EventPage, error) {
	limit, notes, err := q.check()
	if err != nil {
		return EventPage{}, err
	}
	out := EventPage{Events: []Event{}, LastID: q.After, Notes: notes}
	for len(out.Events) < limit {
		var rows []eventRow
		n := min(eventScan, max(limit, 500))
		if err := s.read.NewRaw(`SELECT id, type, at, prediction_id, domain, author_id, agent_id, to_agent_id, data
	FROM board_events WHERE id > ? ORDER BY id LIMIT ?`, out.LastID, n+1).Scan(ctx, &rows); err != nil {
			return EventPage{}, fmt.Errorf("board: events: %w", err)
		}
		out.HasMore = len(rows) > n
		rows = rows[:min(len(rows), n)]
		for _, r := range rows {
			out.LastID = r.ID
			e := r.event()
			if q.Match(e) {
				out.Events = append(out.Events, e)
				if len(out.Events) == limit {
					out.HasMore = out.HasMore || r.ID != rows[len(rows)-1].ID
					break
				}
			}
		}
		if !out.HasMore || out.LastID-q.After > eventScan {
			break
		}
	}
	// Read after the rows: a trim that removed some of them committed
	// its mark before this read.
	if q.After > 0 {
		var trimmed int64
		if err := s.read.NewRaw(`SELECT trimmed FROM board_event_state WHERE id = 1`).Scan(ctx, &trimmed); err != nil {
			return EventPage{}, fmt.Errorf("board: events: %w", err)
		}
		if q.After < trimmed {
			return EventPage{}, &ValidationError{Field: "after", err: ErrEventsTrimmed,
				Problem: fmt.Sprintf("is %d; the events after it are older than the log keeps (it starts after %d)", q.After, trimmed),
				Hint:    "read the current state again (the feed, the prediction), then follow the events from now; 0 starts at the oldest event kept"}
		}
	}
	return out, nil
}

// LastEventID returns the id of the newest event, 0 when the log is
// empty: where a reader that wants only new events starts.
func (s *Store) LastEventID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.read.NewRaw(`SELECT COALESCE(MAX(id), 0) FROM board_events`).Scan(ctx, &id); err != nil {
		return 0, fmt.Errorf("board: last event: %w", err)
	}
	return id, nil
}

func (r eventRow) event() Event {
	data := json.RawMessage(r.Data)
	if !json.Valid(data) {
		data = json.RawMessage("{}")
	}
	return Event{ID: r.ID, Type: EventType(r.Type), At: r.At.UTC(), PredictionID: r.PredictionID, Domain: r.Domain,
		AuthorID: r.AuthorID, AgentID: r.AgentID, ToAgentID: r.ToAgentID, Data: data}
}

// eventBatch collects the events of one write, appended together as the
// write's last statement.
type eventBatch []Event

// add appends an event whose data is v marshalled.
func (b *eventBatch) add(e Event, v any) {
	data, err := json.Marshal(v)
	if err != nil { // the data are maps and structs of plain values
		data = []byte("{}")
	}
	e.Data = data
	*b = append(*b, e)
}

// eventsLockKey is the PostgreSQL advisory lock under which events are
// appended ("predevnt" in ASCII).
const eventsLockKey int64 = 0x7072656465766e74

// eventsChannel is the PostgreSQL notification channel that an append
// signals at commit.
const eventsChannel = "board_events"

// eventCols are the columns of board_events that an append writes, and
// eventTypes their PostgreSQL types.
var (
	eventCols  = []string{"type", "at", "prediction_id", "domain", "author_id", "agent_id", "to_agent_id", "data"}
	eventTypes = []string{"text", "timestamptz", "text", "text", "text", "text", "text", "text"}
)

// eventsStmt is the statement that appends a write's events, the last of
// every write, so that ids commit in id order ([database.AppendInOrder],
// under [eventsLockKey], notifying [eventsChannel]).
func (s *Store) eventsStmt(ev eventBatch) stmt {
	rows := make([][]any, len(ev))
	for i, e := range ev {
		rows[i] = []any{string(e.Type), e.At, e.PredictionID, e.Domain, e.AuthorID, e.AgentID, e.ToAgentID, string(e.Data)}
	}
	st := database.AppendInOrder(s.pg, `INSERT INTO board_events (`+strings.Join(eventCols, ", ")+`) `, eventCols, eventTypes,
		eventsLockKey, eventsChannel, rows)
	return stmt{st.Query, st.Args}
}

// appendEvents appends a write's events in its transaction.
func (s *Store) appendEvents(ctx context.Context, tx bun.IDB, ev eventBatch) error {
	if len(ev) == 0 {
		return nil
	}
	st := s.eventsStmt(ev)
	_, err := tx.ExecContext(ctx, st.q, st.args...)
	return err
}

// writeTx is [Store.inTx] for a write with events: fn adds them to ev,
// and they are appended as the transaction's last statement. After the
// commit the store's readers are woken ([Store.EventsChanged]).
func (s *Store) writeTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx, ev *eventBatch) error) error {
	appended := false
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var ev eventBatch
		if err := fn(ctx, tx, &ev); err != nil {
			return err
		}
		appended = len(ev) > 0
		if err := s.appendEvents(ctx, tx, ev); err != nil {
			return err
		}
		if s.afterAppend != nil { // tests: fail or delay the commit
			return s.afterAppend()
		}
		return nil
	})
	if err == nil && appended && !database.AfterCommit(ctx, s.write, s.changed.Fire) {
		s.changed.Fire()
	}
	return err
}

// EventsChanged returns a channel closed when events may have been
// appended after the call: by a write of this store, at its commit, or
// on PostgreSQL by any store on the same database (LISTEN/NOTIFY). A
// reader takes the channel, reads the log after its last id, and waits
// on the channel; the log is the truth, the channel only says when to
// look. A notification lost while the listening connection reconnects
// is not signalled: readers also look now and then.
func (s *Store) EventsChanged() <-chan struct{} {
	if s.pg {
		s.changed.Listen(s.write, eventsChannel)
	}
	return s.changed.Wait()
}

// trimBatch is how many events one trimming transaction removes, so that
// no transaction holds locks for long.
const trimBatch = 500

// TrimEvents removes the events older than keep (0 means
// [DefaultEventRetention]), a batch of a few hundred per transaction, and
// returns how many it removed. Writes never wait for it beyond one batch
// on SQLite's single writer, and not at all on PostgreSQL (it locks only
// the rows it removes, which no write touches). A reader whose last id
// is older than the trimmed events gets [ErrEventsTrimmed].
func (s *Store) TrimEvents(ctx context.Context, keep time.Duration) (int, error) {
	if keep <= 0 {
		keep = DefaultEventRetention
	}
	cutoff := s.clock().Add(-keep)
	total := 0
	for {
		var ids []int64
		err := s.retry(ctx, func() error {
			return s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				ids = ids[:0]
				if err := tx.NewRaw(`DELETE FROM board_events WHERE id IN
	(SELECT id FROM board_events WHERE at < ? ORDER BY id LIMIT ?) RETURNING id`, cutoff, trimBatch).Scan(ctx, &ids); err != nil {
					return err
				}
				if len(ids) == 0 {
					return nil
				}
				_, err := tx.ExecContext(ctx, `UPDATE board_event_state SET trimmed = ? WHERE id = 1 AND trimmed < ?`,
					slices.Max(ids), slices.Max(ids))
				return err
			})
		})
		if err != nil {
			return total, fmt.Errorf("board: trim events: %w", err)
		}
		total += len(ids)
		if len(ids) < trimBatch || ctx.Err() != nil {
			return total, nil
		}
	}
}

// AnnounceCloses appends a [EventClosed] for each prediction still open
// whose close_at passed since the last call (on any replica), and
// returns how many. A prediction's close is derived from the clock, not
// written, so this is how it reaches the log: call it every few seconds.
// Each close is announced at most once: the calls take turns on the
// state row and move its closes_to in the transaction that appends. A
// prediction resolved before the call has no close event: its
// resolution carries closed_at.
func (s *Store) AnnounceCloses(ctx context.Context) (int, error) {
	now := s.clock()
	var due int
	if err := s.read.NewRaw(`SELECT COUNT(*) FROM predictions WHERE status = 'open' AND close_at <= ?
	AND close_at > (SELECT closes_to FROM board_event_state WHERE id = 1)`, now).Scan(ctx, &due); err != nil {
		return 0, fmt.Errorf("board: announce closes: %w", err)
	}
	if due == 0 {
		return 0, nil
	}
	n := 0
	err := s.writeTx(ctx, func(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
		*ev, n = nil, 0
		var from time.Time
		if err := tx.NewRaw(`SELECT closes_to FROM board_event_state WHERE id = 1`+s.forUpdate()).Scan(ctx, &from); err != nil {
			return err
		}
		var rows []struct {
			ID      string    `bun:"id"`
			AgentID string    `bun:"agent_id"`
			Domain  string    `bun:"domain"`
			CloseAt time.Time `bun:"close_at"`
		}
		if err := tx.NewRaw(`SELECT id, agent_id, domain, close_at FROM predictions
	WHERE status = 'open' AND close_at > ? AND close_at <= ? ORDER BY close_at, id`, from, now).Scan(ctx, &rows); err != nil {
			return err
		}
		for _, r := range rows {
			ev.add(Event{Type: EventClosed, At: r.CloseAt.UTC(), PredictionID: r.ID, Domain: r.Domain, AuthorID: r.AgentID},
				closedData{CloseAt: r.CloseAt.UTC()})
			if s.wants(PredictionClosed) {
				p, err := s.getPrediction(ctx, tx, r.ID)
				if err != nil {
					return err
				}
				if _, err := s.record(ctx, tx, Change{Kind: PredictionClosed, At: r.CloseAt.UTC(), Prediction: &p}); err != nil {
					return err
				}
			}
		}
		n = len(rows)
		_, err := tx.ExecContext(ctx, `UPDATE board_event_state SET closes_to = ? WHERE id = 1`, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("board: announce closes: %w", err)
	}
	return n, nil
}
