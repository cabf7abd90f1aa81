package boardapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/eventstream"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// The board's event log, served two ways: GET /api/events streams it as
// Server-Sent Events (the HTML standard, "Server-sent events"), and
// GET /api/events.json (the MCP tool list_events) pages through it. The
// stream's engine, which writes the streams and fans the log out to them,
// is internal/eventstream; this file reads the request and hands the
// stream to it.

const (
	eventStreamType = eventstream.ContentType
	// LastEventIDHeader is the header with which an EventSource resumes.
	LastEventIDHeader = eventstream.LastEventIDHeader
	// DefaultHeartbeat is how often a quiet stream sends a comment, so
	// that proxies and clients see it alive.
	DefaultHeartbeat = eventstream.DefaultHeartbeat
	// DefaultEventBuffer is how many events a stream may hold unsent
	// before it is dropped.
	DefaultEventBuffer = eventstream.DefaultBuffer
	// DefaultEventPoll is how often the streams look at the log without
	// being woken.
	DefaultEventPoll = eventstream.DefaultPoll
)

// eventList is the answer of GET /api/events.json.
type eventList struct {
	Events  []board.Event `json:"events" jsonschema:"the events after since that match the filters, oldest first (at most limit)"`
	LastID  int64         `json:"last_id" jsonschema:"send it back as since for the next page: the last event read, matching or not"`
	HasMore bool          `json:"has_more" jsonschema:"whether the log holds events after last_id"`
}

func eventFilterParams() []boardParam {
	names := make([]string, 0, len(board.EventTypes()))
	for _, t := range board.EventTypes() {
		names = append(names, string(t))
	}
	return []boardParam{
		{"type", eventTypesSchema("only events of these types, in any case, separated by commas: "+strings.Join(names, ", "), names)},
		{"prediction_id", &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(forecastfile.MaxID), Pattern: forecastfile.IDPattern,
			Description: "only the events of this prediction"}},
		{"agent_id", &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(board.MaxAgentID), Pattern: board.AgentIDPattern,
			Description: "only the events about this agent: those on the predictions it posted and the replies answering its replies"}},
		{"domain", anyCase("only the events of this domain, in any case", false, board.Domains()...)},
	}
}

// eventTypesSchema is the schema of a list of event types as
// board.ParseEventTypes reads it: one or more, separated by commas, each
// in any case with white space around it.
func eventTypesSchema(desc string, names []string) *jsonschema.Schema {
	one := anyCase("", false, names...).AnyOf[1].Pattern // ^\s*(?:…)\s*$
	one = strings.TrimSuffix(strings.TrimPrefix(one, "^"), "$")
	return &jsonschema.Schema{Type: "string", Description: desc, Pattern: "^" + one + "(?:," + one + ")*$"}
}

// eventRoutes are the event routes, appended to the board table.
func eventRoutes() []*boardRoute {
	stream := append(eventFilterParams(), boardParam{"last_event_id", &jsonschema.Schema{Type: "integer", Minimum: num(0),
		Description: "resume after this event id, for clients that cannot send the Last-Event-ID header (which wins when both are sent); 0 starts at the oldest event kept; an id past the newest event (another board's, or one from before a restore) is a 400 naming the newest"}})
	page := append(eventFilterParams(),
		boardParam{"since", &jsonschema.Schema{Type: "integer", Minimum: num(0),
			Description: "the events after this id: 0 (the default) starts at the oldest event kept; then send the last_id of the previous page; an id past the newest event is a 400 naming the newest"}},
		boardParam{"limit", intSchema(fmt.Sprintf("page size; above %d is clamped to %d with a note", board.MaxEventPage, board.MaxEventPage), 1, board.DefaultEventPage)},
	)
	return []*boardRoute{
		{
			method: http.MethodGet, path: BoardPrefix + "/events", name: "stream_events", summary: "Follow the board's events as they happen",
			description: "A Server-Sent Events stream (text/event-stream, the HTML standard): each event as id: <id>, event: <type> and one data: line of JSON, " +
				"as they commit, and a comment line (: heartbeat) every 15 seconds while it is quiet. Without Last-Event-ID it starts with the events after " +
				"the moment it connects; with the Last-Event-ID header (an EventSource sends it when it reconnects) or last_event_id, it first sends every event after " +
				"that id, exactly, then follows. A client that falls behind by more than a few hundred events is disconnected: reconnect with the last id received. " +
				eventsText + " No authentication. Errors before the stream starts are Problems: 400 names the field (an id past the newest event among them), 410 names last_event_id.",
			params: stream, exampleQuery: "?type=forecast.created,reply.created&agent_id=forecaster-7", produces: eventStreamType, success: []int{200}, errors: []int{400, 410},
			headers: []apidoc.Parameter{{Name: "Last-Event-ID", In: "header",
				Description: "resume after this event id (an EventSource sends it when it reconnects); it wins over last_event_id",
				Schema:      &jsonschema.Schema{Type: "string", Pattern: `^\s*[0-9]+\s*$`}}},
			run: (*API).streamEvents,
		},
		{
			method: http.MethodGet, path: BoardPrefix + "/events.json", name: "list_events", mcp: true, summary: "Read the board's events after an id",
			description: "A page of the event log after since, oldest first, with the same filters as the stream (GET /api/events): for agents that poll or speak only MCP. " +
				"Read the next page with since=last_id; has_more says whether the log holds more now. " + eventsText,
			params: page, exampleQuery: "?since=0&agent_id=forecaster-7", result: boardResultSchema[eventList](), success: []int{200}, errors: []int{400, 410},
			run: (*API).listEvents,
		},
	}
}

// eventQuery reads the filters of an event route.
func eventQuery(c *call) (board.EventQuery, error) {
	var q board.EventQuery
	if v, ok := c.query["type"]; ok {
		types, err := board.ParseEventTypes("type", v[0])
		if err != nil {
			return q, err
		}
		q.Types = types
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"prediction_id", &q.PredictionID}, {"agent_id", &q.AgentID}, {"domain", &q.Domain}} {
		if v, ok := c.query[p.name]; ok {
			if v[0] == "" {
				return q, &httpio.Error{Field: p.name, Err: httpio.ErrBadRequest, Problem: "is empty", Hint: "leave it out, or send a value"}
			}
			*p.dst = v[0]
		}
	}
	return q, nil
}

// afterAs names the board's field "after" as the route calls it.
func afterAs(err error, field string) error {
	var ve *board.ValidationError
	if errors.As(err, &ve) && ve.Field == "after" {
		cp := *ve
		cp.Field = field
		return &cp
	}
	return err
}

func (s *API) listEvents(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	q, err := eventQuery(c)
	if err != nil {
		return nil, err
	}
	if v, ok := c.query["since"]; ok {
		if q.After, err = board.ParseEventID("since", v[0]); err != nil {
			return nil, err
		}
	}
	if q.Limit, _, err = intParam(c, "limit", 1, board.DefaultEventPage); err != nil {
		return nil, err
	}
	page, err := s.opt.Store.Events(r.Context(), q)
	if err != nil {
		return nil, afterAs(err, "since")
	}
	if err := s.checkAhead(r.Context(), q.After, page, "since"); err != nil {
		return nil, err
	}
	sum := fmt.Sprintf("%s after id %d; read on with since=%d.", tools.Count(len(page.Events), "event"), q.After, page.LastID)
	if !page.HasMore {
		sum = fmt.Sprintf("%s after id %d; nothing more yet (since=%d for what comes next).", tools.Count(len(page.Events), "event"), q.After, page.LastID)
	}
	return &boardResult{status: http.StatusOK, summary: sum, notes: page.Notes,
		output: eventList{Events: page.Events, LastID: page.LastID, HasMore: page.HasMore}}, nil
}

// streamEvents serves the stream. Everything that can be refused is
// checked before the first byte, so that it is a Problem; from then on
// the stream ends only when the client goes, when it is dropped for
// falling behind, or when a write fails.
func (s *API) streamEvents(w http.ResponseWriter, r *http.Request, c *call) (*boardResult, error) {
	q, err := eventQuery(c)
	if err != nil {
		return nil, err
	}
	resume, field, err := lastEventID(r, c)
	if err != nil {
		return nil, err
	}
	st, err := s.hub.Open(w, r, filterKey(q), q.Match)
	if err != nil {
		return nil, err
	}
	q.Limit = backlogPage
	backlog, err := s.backlog(r.Context(), q, resume, st.From())
	if err == nil && resume > 0 && len(backlog.Events) == 0 && backlog.Last == resume {
		err = s.checkAhead(r.Context(), resume, board.EventPage{LastID: backlog.Last}, field)
	}
	if err != nil {
		st.Close()
		return nil, afterAs(err, field)
	}
	st.Serve(backlog, func(ctx context.Context, after int64) (eventstream.Page[board.Event], error) {
		q.After = after
		page, err := s.opt.Store.Events(ctx, q)
		return eventPage(page), err
	})
	return nil, nil
}

// checkAhead refuses a resume point past the end of the log: after, sent
// as field, read nothing (page) and is above the newest event's id. A
// client resuming against another board, or a board restored from an
// older backup, would otherwise wait in silence until the ids pass it.
// It reads the log's end only when the page read nothing.
func (s *API) checkAhead(ctx context.Context, after int64, page board.EventPage, field string) error {
	if after <= 0 || page.LastID != after || len(page.Events) > 0 {
		return nil
	}
	last, err := s.opt.Store.LastEventID(ctx)
	if err != nil || after <= last {
		return err
	}
	return &httpio.Error{Field: field, Err: httpio.ErrBadRequest,
		Problem: fmt.Sprintf("is %d, past the end of this board's event log, whose newest event is %d", after, last),
		Hint:    fmt.Sprintf("resume from an id this board gave (at most %d), or read the current state again and follow the events from now (leave it out; 0 starts at the oldest event kept)", last)}
}

// lastEventID reads the id after which the client resumes, from the
// Last-Event-ID header or else the query's last_event_id, and the name
// of the field it came from; -1 when the client sent neither.
func lastEventID(r *http.Request, c *call) (resume int64, field string, err error) {
	if h := r.Header.Values(LastEventIDHeader); len(h) > 0 {
		resume, err = board.ParseEventID(LastEventIDHeader, h[0])
		return resume, LastEventIDHeader, err
	}
	if v, ok := c.query["last_event_id"]; ok {
		resume, err = board.ParseEventID("last_event_id", v[0])
		return resume, "last_event_id", err
	}
	return -1, "", nil
}

// backlog reads the first page of what a stream sends before the hub's
// events (those after from): the events after resume that match q, or,
// without resume (-1), none. Its errors refuse the stream.
func (s *API) backlog(ctx context.Context, q board.EventQuery, resume, from int64) (eventstream.Page[board.Event], error) {
	if resume < 0 {
		// No backlog: what comes after from comes from the hub. Not
		// reading the log here keeps thousands of streams opened at
		// once from each waiting for a database connection.
		return eventstream.Page[board.Event]{Last: from}, q.Check()
	}
	// The backlog: the events after the client's last, up to where the
	// hub takes over, read in the hub's turn.
	q.After = resume
	return s.hub.ReadBacklog(ctx, filterKey(q), resume, func(ctx context.Context) (eventstream.Page[board.Event], error) {
		page, err := s.opt.Store.Events(ctx, q) // checks the filters and the id
		return eventPage(page), err
	})
}

// backlogPage is the page a stream reads its backlog in: what one stream
// holds in memory while its client takes it (about 30 KB), however long
// the backlog, and what one turn of the hub's backlog reads costs.
const backlogPage = 50

// eventPage is page as the stream engine reads it.
func eventPage(page board.EventPage) eventstream.Page[board.Event] {
	return eventstream.Page[board.Event]{Events: page.Events, Last: page.LastID, More: page.HasMore}
}

// newEventHub returns the engine that streams store's event log; the
// zero values of buffer, poll and heartbeat mean the engine's defaults.
func newEventHub(store Board, log *slog.Logger, buffer int, poll, heartbeat time.Duration) *eventstream.Hub[board.Event] {
	return eventstream.NewHub(eventstream.Config[board.Event]{
		Log: eventLog{store}, Encode: encodeEvent, Logger: log,
		Buffer: buffer, Poll: poll, Heartbeat: heartbeat,
	})
}

// eventLog is the board's event log as the stream engine follows it.
type eventLog struct{ store Board }

func (l eventLog) LastID(ctx context.Context) (int64, error) { return l.store.LastEventID(ctx) }

func (l eventLog) Changed() <-chan struct{} { return l.store.EventsChanged() }

func (l eventLog) Read(ctx context.Context, after int64) (eventstream.Page[board.Event], error) {
	page, err := l.store.Events(ctx, board.EventQuery{After: after, Limit: board.MaxEventPage})
	if errors.Is(err, board.ErrEventsTrimmed) {
		err = fmt.Errorf("%w: %w", eventstream.ErrTrimmed, err)
	}
	return eventPage(page), err
}

// encodeEvent is what a stream sends of e: its id, its type as the
// event's name, and its JSON.
func encodeEvent(e board.Event) (int64, string, []byte) {
	data, err := json.Marshal(e)
	if err != nil { // strings, numbers, a time and JSON validated on reading
		data = []byte("{}")
	}
	return e.ID, string(e.Type), data
}

// filterKey names a query's filters (After and Limit aside): two queries
// with the same key match the same events.
func filterKey(q board.EventQuery) string {
	types := make([]string, len(q.Types))
	for i, t := range q.Types {
		types[i] = string(t)
	}
	slices.Sort(types)
	return strings.Join(types, ",") + "\x00" + q.PredictionID + "\x00" + q.AgentID + "\x00" + strings.ToLower(q.Domain)
}
