package boardapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// The board's event log, served two ways: GET /api/events streams it as
// Server-Sent Events (the HTML standard, "Server-sent events"), and
// GET /api/events.json (the MCP tool list_events) pages through it.
//
// The stream is written with net/http's ResponseController, not an SSE
// library: the format is four kinds of lines (id, event, data, comments),
// the server needs one writer per stream with its own write deadline
// (SetWriteDeadline, past the server's WriteTimeout) and flushes, which
// ResponseController gives through every middleware that unwraps, and the
// libraries (r3labs/sse, tmaxmax/go-sse) bring their own fan-out and
// replay, which the board's log and eventHub already are.
// ResponseController also hands over the connection (Hijack) once a
// stream has sent its backlog, for the hub to write (parked.go): what
// lets one server hold 10,000 streams in about 110 MB.

const (
	eventStreamType = "text/event-stream"
	// LastEventIDHeader is the header with which an EventSource resumes.
	LastEventIDHeader = "Last-Event-ID"
	// DefaultHeartbeat is how often a quiet stream sends a comment, so
	// that proxies and clients see it alive.
	DefaultHeartbeat = 15 * time.Second
	// DefaultEventBuffer is how many events a stream may hold unsent
	// before it is dropped.
	DefaultEventBuffer = 256
	// DefaultEventPoll is how often the streams look at the log without
	// being woken.
	DefaultEventPoll = 5 * time.Second
	// streamWriteWait bounds each write of a stream: a client that reads
	// nothing for that long is dropped.
	streamWriteWait = 30 * time.Second
	// streamRetryMillis is the reconnection time the stream asks of an
	// EventSource.
	streamRetryMillis = 2000
)

// eventList is the answer of GET /api/events.json.
type eventList struct {
	Events  []board.Event `json:"events" jsonschema:"the events after since that match the filters, oldest first (at most limit)"`
	LastID  int64         `json:"last_id" jsonschema:"send it back as since for the next page: the last event read, matching or not"`
	HasMore bool          `json:"has_more" jsonschema:"whether the log holds events after last_id"`
}

// eventsText describes the events and the filters.
const eventsText = "Every change an agent may care about is an event, appended in the same transaction as the change, with an id that increases in commit order: " +
	"prediction.created, forecast.created, community.moved (a forecast changed the community forecast), reply.created, debate.entry (a reply that opens or joins a debate), " +
	"reaction.set (a reaction recorded or changed), prediction.closed (announced within seconds of close_at, once; a prediction resolved first has none), " +
	"prediction.resolved, prediction.voided and prediction.corrected. Each event has id, type, at, prediction_id, domain, author_id (the prediction's author), " +
	"agent_id (who acted), to_agent_id (the author of the reply answered) and data, the values of its type (a forecast's p and previous, the community's p, previous " +
	"and forecasters, a reply's reply_id, parent_id, kind and debate_id, a reaction and its previous, an outcome, previous, closed_at and by). " +
	"The log keeps events 7 days by default (the server's --events-retention); an id older than that is a 410."

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
		Description: "resume after this event id, for clients that cannot send the Last-Event-ID header (which wins when both are sent); 0 starts at the oldest event kept"}})
	page := append(eventFilterParams(),
		boardParam{"since", &jsonschema.Schema{Type: "integer", Minimum: num(0),
			Description: "the events after this id: 0 (the default) starts at the oldest event kept; then send the last_id of the previous page"}},
		boardParam{"limit", intSchema(fmt.Sprintf("page size; above %d is clamped to %d with a note", board.MaxEventPage, board.MaxEventPage), 1, board.DefaultEventPage)},
	)
	return []*boardRoute{
		{
			method: http.MethodGet, path: BoardPrefix + "/events", name: "stream_events", summary: "Follow the board's events as they happen",
			description: "A Server-Sent Events stream (text/event-stream, the HTML standard): each event as id: <id>, event: <type> and one data: line of JSON, " +
				"as they commit, and a comment line (: heartbeat) every 15 seconds while it is quiet. Without Last-Event-ID it starts with the events after " +
				"the moment it connects; with the Last-Event-ID header (an EventSource sends it when it reconnects) or last_event_id, it first sends every event after " +
				"that id, exactly, then follows. A client that falls behind by more than a few hundred events is disconnected: reconnect with the last id received. " +
				eventsText + " No authentication. Errors before the stream starts are Problems: 400 names the field, 410 names last_event_id.",
			params: stream, exampleQuery: "?type=forecast.created,reply.created&agent_id=forecaster-7", produces: eventStreamType, success: []int{200}, errors: []int{400, 410},
			headers: []apidoc.Parameter{{Name: "Last-Event-ID", In: "header",
				Description: "resume after this event id (an EventSource sends it when it reconnects); it wins over last_event_id",
				Schema:      &jsonschema.Schema{Type: "string", Pattern: `^\s*[0-9]+\s*$`}}},
			run: (*API).streamEvents,
		},
		{
			method: http.MethodGet, path: BoardPrefix + "/events.json", name: "list_events", tool: "list_events", summary: "Read the board's events after an id",
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
	ctx := r.Context()
	// The stream keeps its own deadlines from the start: the server's
	// WriteTimeout and ReadTimeout bound requests, not streams.
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(streamWriteWait))
	_ = rc.SetReadDeadline(time.Time{})
	q, err := eventQuery(c)
	if err != nil {
		return nil, err
	}
	resume, field := int64(-1), ""
	if h := r.Header.Values(LastEventIDHeader); len(h) > 0 {
		field = LastEventIDHeader
		if resume, err = board.ParseEventID(field, h[0]); err != nil {
			return nil, err
		}
	} else if v, ok := c.query["last_event_id"]; ok {
		field = "last_event_id"
		if resume, err = board.ParseEventID(field, v[0]); err != nil {
			return nil, err
		}
	}
	sub, err := s.hub.subscribe(ctx, q)
	if err != nil {
		return nil, err
	}
	parked := false
	defer func() {
		if !parked {
			s.hub.unsubscribe(sub)
		}
	}()
	after := sub.from
	q.After, q.Limit = after, board.MaxEventPage
	var page board.EventPage
	if resume >= 0 {
		// The backlog: the events after the client's last, up to where
		// the hub's channel takes over.
		q.After = resume
		if page, err = s.opt.Store.Events(ctx, q); err != nil { // checks the filters and the id
			return nil, afterAs(err, field)
		}
	} else {
		// No backlog: what comes after sub.from comes on the channel.
		// Not reading the log here keeps thousands of streams opened at
		// once from each waiting for a database connection.
		if err := q.Check(); err != nil {
			return nil, err
		}
		page = board.EventPage{LastID: after}
	}

	h := w.Header()
	h.Set("Content-Type", eventStreamType)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	// Not chunked: the body runs to the end of the connection, as the
	// HTML standard's event streams may, and net/http then sends each
	// flush as it is, without a chunk header formatted (and allocated)
	// per flush per stream, which with thousands of streams was most of
	// their cost. net/http removes this header from the response.
	if r.ProtoMajor == 1 && r.ProtoMinor >= 1 { // HTTP/1.0 is never chunked; HTTP/2 frames its own
		h.Set("Transfer-Encoding", "identity")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil, nil
	}
	sw := &sseWriter{w: w, rc: rc}
	sw.begin()
	sw.printf("retry: %d\n\n", streamRetryMillis)
	for {
		sw.begin() // a deadline a page
		for _, e := range page.Events {
			sw.write(newSSEFrame(e))
		}
		after = page.LastID
		if !page.HasMore || sw.err != nil {
			break
		}
		q.After = after
		if page, err = s.opt.Store.Events(ctx, q); err != nil {
			return nil, nil // the stream has begun: the client resumes
		}
	}
	if sw.flush() != nil {
		return nil, nil
	}
	// Caught up: over HTTP/1.x the hub takes the connection (parked.go)
	// and this goroutine ends. HTTP/2 streams share their connection and
	// stay here.
	if r.ProtoMajor == 1 {
		if conn, _, err := rc.Hijack(); err == nil {
			parked = true
			s.hub.park(sub, conn, after)
			return nil, nil
		}
	}
	beat := time.NewTicker(s.heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-s.stopped:
			return nil, nil
		case f, ok := <-sub.ch:
			if !ok {
				return nil, nil // dropped for falling behind: the client resumes with Last-Event-ID
			}
			if f.id <= after { // sent from the log already
				continue
			}
			after = f.id
			sw.begin()
			sw.write(f)
		drain:
			for range len(sub.ch) { // what came meanwhile, in one flush
				select {
				case f, ok := <-sub.ch:
					if !ok {
						break drain
					}
					if f.id > after {
						after = f.id
						sw.write(f)
					}
				default:
					break drain
				}
			}
		case <-beat.C:
			sw.begin()
			sw.writeBytes(heartbeat)
		}
		if sw.flush() != nil {
			return nil, nil
		}
	}
}

// sseWriter writes a stream's lines, remembering the first error. Each
// batch of writes (what one wake of the stream sends, then its flush)
// has its own write deadline, set by begin.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

// begin starts a batch: its writes and its flush must end within
// streamWriteWait.
func (sw *sseWriter) begin() {
	if sw.err == nil {
		sw.err = sw.rc.SetWriteDeadline(time.Now().Add(streamWriteWait))
	}
}

func (sw *sseWriter) printf(format string, args ...any) {
	if sw.err == nil {
		_, sw.err = fmt.Fprintf(sw.w, format, args...)
	}
}

func (sw *sseWriter) write(f *sseFrame) { sw.writeBytes(f.b) }

func (sw *sseWriter) writeBytes(b []byte) {
	if sw.err == nil {
		_, sw.err = sw.w.Write(b)
	}
}

func (sw *sseWriter) flush() error {
	if sw.err == nil {
		sw.err = sw.rc.Flush()
	}
	return sw.err
}

// sseFrame is one event as the stream sends it: its id line, its type
// and its JSON on one data line (JSON from encoding/json holds no line
// break), and the blank line that ends it. The hub encodes an event once
// and shares the frame among the streams it goes to; they only read it.
type sseFrame struct {
	id int64
	b  []byte
}

func newSSEFrame(e board.Event) *sseFrame {
	data, err := json.Marshal(e)
	if err != nil { // strings, numbers, a time and JSON validated on reading
		data = []byte("{}")
	}
	b := make([]byte, 0, len(data)+len(e.Type)+40)
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, e.ID, 10)
	b = append(b, "\nevent: "...)
	b = append(b, e.Type...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	return &sseFrame{id: e.ID, b: b}
}
