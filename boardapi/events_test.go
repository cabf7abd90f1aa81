package boardapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// sseEvent is one event as a client reads it off the stream.
type sseEvent struct {
	ID, Event string
	Data      map[string]any
}

// sseClient reads a stream line by line, as the HTML standard's
// "interpret an event stream" does for the fields the board sends.
type sseClient struct {
	resp     *http.Response
	events   chan sseEvent
	comments chan string
	cancel   context.CancelFunc
	done     chan struct{}
}

func openStream(t testing.TB, e *apitest.Env, query string, header http.Header) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.TS.URL+"/api/events"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.TS.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("GET /api/events%s: %d %s", query, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c := &sseClient{resp: resp, events: make(chan sseEvent, 1000), comments: make(chan string, 100), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" {
					c.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				select {
				case c.comments <- strings.TrimSpace(line[1:]):
				default:
				}
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[6:]), &ev.Data); err != nil {
					t.Errorf("data line is not JSON: %q", line)
				}
			case strings.HasPrefix(line, "retry: "):
			default:
				t.Errorf("unexpected line %q", line)
			}
		}
	}()
	t.Cleanup(c.close)
	return c
}

func (c *sseClient) close() {
	c.cancel()
	c.resp.Body.Close()
	<-c.done
}

// next returns the next n events, failing after a few seconds.
func (c *sseClient) next(t testing.TB, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	deadline := time.After(5 * time.Second)
	for len(out) < n {
		select {
		case e, ok := <-c.events:
			if !ok {
				t.Fatalf("stream ended after %d of %d events", len(out), n)
			}
			out = append(out, e)
		case <-deadline:
			t.Fatalf("got %d of %d events: %v", len(out), n, out)
		}
	}
	return out
}

// quiet checks that no event comes for a moment.
func (c *sseClient) quiet(t *testing.T) {
	t.Helper()
	select {
	case e := <-c.events:
		t.Errorf("unexpected event %v", e)
	case <-time.After(150 * time.Millisecond):
	}
}

func kinds(evs []sseEvent) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

func eventEnv(t *testing.T, opt boardapi.Options) (*apitest.Env, *board.Store) {
	t.Helper()
	if opt.Store == nil {
		opt.Store = apitest.OpenStore(t)
	}
	opt.ModeratorToken = apitest.ModToken
	return apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(opt)}), opt.Store.(*board.Store)
}

// TestEventStream: a stream opened without Last-Event-ID gets the
// events committed after it, each with its id, type and JSON data.
func TestEventStream(t *testing.T) {
	e, _ := eventEnv(t, boardapi.Options{})
	apitest.CreatePred(t, e) // before: not sent
	c := openStream(t, e, "", nil)
	id := apitest.CreatePred(t, e)
	e.Post(t, "/api/predictions/"+id+"/forecasts", "agent-b", map[string]any{"agent_id": "agent-b", "p": 0.2}, apitest.MustPass, 201)
	got := c.next(t, 3)
	if diff := cmp.Diff([]string{"prediction.created", "forecast.created", "community.moved"}, kinds(got)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	for i, ev := range got {
		if ev.ID != strconv.Itoa(i+2) || ev.Data["id"] != float64(i+2) || ev.Data["type"] != ev.Event || ev.Data["prediction_id"] != id {
			t.Errorf("event %d = %+v", i, ev)
		}
	}
	if d := got[1].Data; d["agent_id"] != "agent-b" || d["author_id"] != "agent-a" || d["domain"] != "Climate" {
		t.Errorf("forecast event = %v", d)
	}
	if p := got[1].Data["data"].(map[string]any)["p"]; p != 0.2 {
		t.Errorf("forecast p = %v", p)
	}
	c.quiet(t)
}

// TestEventStreamResume: Last-Event-ID (or last_event_id) resumes
// exactly after that event, then follows; the header wins.
func TestEventStreamResume(t *testing.T) {
	e, _ := eventEnv(t, boardapi.Options{})
	for range 4 {
		apitest.CreatePred(t, e)
	}
	for _, c := range []struct {
		name   string
		query  string
		header http.Header
		first  string
	}{
		{"header", "", http.Header{"Last-Event-ID": {"1"}}, "2"},
		{"query", "?last_event_id=2", nil, "3"},
		{"header wins", "?last_event_id=3", http.Header{"Last-Event-ID": {"0"}}, "1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openStream(t, e, c.query, c.header)
			first, _ := strconv.Atoi(c.first)
			got := s.next(t, 4-first+1)
			for i, ev := range got {
				if ev.ID != strconv.Itoa(first+i) {
					t.Errorf("event %d has id %s, want %d", i, ev.ID, first+i)
				}
			}
			s.quiet(t)
		})
	}
	s := openStream(t, e, "", http.Header{"Last-Event-ID": {"4"}})
	s.quiet(t)
	apitest.CreatePred(t, e)
	if got := s.next(t, 1); got[0].ID != "5" {
		t.Errorf("live after resume: %v", got)
	}
}

// TestEventStreamFilters: each filter keeps what it says, on the backlog
// and live.
func TestEventStreamFilters(t *testing.T) {
	e, _ := eventEnv(t, boardapi.Options{})
	a := apitest.CreatePred(t, e)
	b := apitest.CreatePred(t, e, "agent_id", "agent-b", "domain", "Science")
	r := e.Post(t, "/api/predictions/"+b+"/threads", "agent-b", map[string]any{"agent_id": "agent-b", "body": "Note."}, apitest.MustPass, 201)
	e.Post(t, "/api/predictions/"+b+"/threads", "agent-c", map[string]any{"agent_id": "agent-c", "body": "Answer.", "parent_id": r["reply_id"]}, apitest.MustPass, 201)
	e.Post(t, "/api/predictions/"+a+"/threads", "agent-b", map[string]any{"agent_id": "agent-b", "body": "On a."}, apitest.MustPass, 201)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"?last_event_id=0&type=reply.created", []string{"3", "4", "5"}},
		{"?last_event_id=0&type=prediction.created,reply.created&prediction_id=" + a, []string{"1", "5"}},
		{"?last_event_id=0&agent_id=agent-b", []string{"2", "3", "4"}},
		{"?last_event_id=0&agent_id=agent-a", []string{"1", "5"}},
		{"?last_event_id=0&domain=science", []string{"2", "3", "4"}},
	} {
		t.Run(c.query, func(t *testing.T) {
			s := openStream(t, e, c.query, nil)
			var ids []string
			for _, ev := range s.next(t, len(c.want)) {
				ids = append(ids, ev.ID)
			}
			if diff := cmp.Diff(c.want, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			s.quiet(t)
		})
	}
	// Live: only agent-b's.
	s := openStream(t, e, "?agent_id=agent-b", nil)
	e.Post(t, "/api/predictions/"+a+"/reactions", "agent-c", map[string]any{"agent_id": "agent-c", "reaction": "agree"}, apitest.MustPass, 201)
	e.Post(t, "/api/predictions/"+b+"/reactions", "agent-c", map[string]any{"agent_id": "agent-c", "reaction": "agree"}, apitest.MustPass, 201)
	if got := s.next(t, 1); got[0].Data["prediction_id"] != b {
		t.Errorf("live filtered event: %v", got)
	}
	s.quiet(t)
}

// TestEventStreamRefusals: a malformed id or filter, or an id past the
// log's end, is a 400 naming it, an id older than the log keeps a 410
// naming last_event_id; both are Problems sent before the stream starts.
func TestEventStreamRefusals(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	store, err := board.Open(context.Background(), boardtest.SQLite(t), board.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e, _ := eventEnv(t, boardapi.Options{Store: store})
	for range 3 {
		apitest.CreatePred(t, e)
	}
	clk.advance(8 * 24 * time.Hour)
	apitest.CreatePred(t, e)
	if n, err := store.TrimEvents(context.Background(), 0); err != nil || n != 3 {
		t.Fatalf("TrimEvents = %d, %v", n, err)
	}
	for _, c := range []struct {
		path    string
		header  http.Header
		status  int
		field   string
		pastEnd bool
	}{
		{"/api/events?last_event_id=abc", nil, 400, "last_event_id", false},
		{"/api/events?last_event_id=-1", nil, 400, "last_event_id", false},
		{"/api/events", http.Header{"Last-Event-ID": {"x1"}}, 400, "Last-Event-ID", false},
		{"/api/events?type=forecast", nil, 400, "type", false},
		{"/api/events?type=", nil, 400, "type", false},
		{"/api/events?domain=cooking", nil, 400, "domain", false},
		{"/api/events?agent_id=a%20b", nil, 400, "agent_id", false},
		{"/api/events?prediction_id=a%20b", nil, 400, "prediction_id", false},
		{"/api/events?last_event_id=1", nil, 410, "last_event_id", false},
		{"/api/events", http.Header{"Last-Event-ID": {"2"}}, 410, "Last-Event-ID", false},
		{"/api/events.json?since=1", nil, 410, "since", false},
		{"/api/events.json?since=x", nil, 400, "since", false},
		{"/api/events.json?limit=0", nil, 400, "limit", false},
		// Past the log's end (its newest event is 4): another board's id,
		// or one from before a restore.
		{"/api/events?last_event_id=1000000", nil, 400, "last_event_id", true},
		{"/api/events", http.Header{"Last-Event-ID": {"5"}}, 400, "Last-Event-ID", true},
		{"/api/events.json?since=5", nil, 400, "since", true},
		{"/api/events.json?since=1000000&type=reply.created", nil, 400, "since", true},
	} {
		rv := apitest.AnyValid
		if c.pastEnd {
			rv = apitest.Beyond // no schema knows where the log ends
		}
		resp, body := e.Do(t, http.MethodGet, c.path, nil, c.header, rv)
		p := apitest.ProblemOf(t, body)
		if resp.StatusCode != c.status || !strings.HasPrefix(p.Error, c.field+":") || p.Hint == "" {
			t.Errorf("GET %s %v: %d %q (hint %q); want %d naming %s", c.path, c.header, resp.StatusCode, p.Error, p.Hint, c.status, c.field)
		}
	}
	// At the log's end: nothing yet, no refusal.
	if resp, body := e.Do(t, http.MethodGet, "/api/events.json?since=4", nil, nil, apitest.AnyValid); resp.StatusCode != 200 {
		t.Errorf("GET /api/events.json?since=4 (the newest event): %d %s", resp.StatusCode, body)
	}
	// From the oldest kept, or after it: no 410.
	s := openStream(t, e, "?last_event_id=3", nil)
	if got := s.next(t, 1); got[0].ID != "4" {
		t.Errorf("after the trimmed: %v", got)
	}
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestEventStreamHeartbeat: a quiet stream sends a comment line every
// heartbeat.
func TestEventStreamHeartbeat(t *testing.T) {
	e, _ := eventEnv(t, boardapi.Options{Heartbeat: 30 * time.Millisecond})
	s := openStream(t, e, "", nil)
	for range 2 {
		select {
		case c := <-s.comments:
			if c != "heartbeat" {
				t.Errorf("comment %q", c)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("no heartbeat")
		}
	}
}

// TestEventList: GET /api/events.json pages the log with the stream's
// filters; its answers match openapi.json.
func TestEventList(t *testing.T) {
	e, _ := eventEnv(t, boardapi.Options{})
	id := apitest.CreatePred(t, e)
	e.Post(t, "/api/predictions/"+id+"/forecasts", "agent-b", map[string]any{"agent_id": "agent-b", "p": 0.2}, apitest.MustPass, 201)
	apitest.CreatePred(t, e)
	got := e.Get(t, "/api/events.json?limit=2", 200)
	if got["last_id"] != 2.0 || got["has_more"] != true || len(got["events"].([]any)) != 2 {
		t.Errorf("first page: %v", got)
	}
	got = e.Get(t, "/api/events.json?since=2&type=community.moved,prediction.created", 200)
	evs := got["events"].([]any)
	if len(evs) != 2 || got["last_id"] != 4.0 || got["has_more"] != false {
		t.Fatalf("second page: %v", got)
	}
	if ev := evs[0].(map[string]any); ev["type"] != "community.moved" || ev["data"].(map[string]any)["forecasters"] != 2.0 {
		t.Errorf("community.moved: %v", ev)
	}
}

// BenchmarkCommitToStream measures, in one process, the time from a
// write's return (its commit) to its event read off an open stream:
// commit_to_event_ms is the mean (the goal is 50 ms at p99).
func BenchmarkCommitToStream(b *testing.B) {
	store := apitest.OpenStore(b)
	api := boardapi.New(boardapi.Options{Store: store})
	e := apitest.NewEnv(b, httpapi.Options{Board: api})
	s := openStream(b, e, "", nil)
	ctx := context.Background()
	var total time.Duration
	var worst time.Duration
	for i := 0; b.Loop(); i++ {
		_, err := store.CreatePrediction(ctx, board.NewPrediction{AgentID: "bench", Title: "t", Body: "b", Confidence: ptr(0.5), Timeframe: "soon", Domain: "AI"})
		if err != nil {
			b.Fatal(err)
		}
		at := time.Now()
		s.next(b, 1)
		d := time.Since(at)
		total += d
		worst = max(worst, d)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "commit_to_event_ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max_ms")
}

func ptr[T any](v T) *T { return &v }

// TestEventListMCP: the MCP tool list_events is the route, with the same
// filters and refusals.
func TestEventListMCP(t *testing.T) {
	store := apitest.OpenStore(t)
	ts := mcpBoardOn(t, store, boardapi.AuthID)
	cs := mcpSession(t, ts, "")
	ctx := context.Background()
	p, err := store.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "t", Body: "b", Confidence: ptr(0.5), Timeframe: "soon", Domain: "AI"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Reply(ctx, p.ID, board.NewReply{AgentID: "critic", Body: "[DEBATE] Is it?"}); err != nil {
		t.Fatal(err)
	}
	got, isErr := callTool(t, cs, "list_events", map[string]any{"since": 1, "type": "debate.entry"})
	evs, _ := got["events"].([]any)
	if isErr || len(evs) != 1 || evs[0].(map[string]any)["agent_id"] != "critic" || got["last_id"] != 3.0 { // 2 is the debate's reply.created
		t.Errorf("list_events = %v (error %v)", got, isErr)
	}
	got, isErr = callTool(t, cs, "list_events", map[string]any{"type": "debate"})
	if !isErr || !strings.HasPrefix(got["error"].(string), "type:") {
		t.Errorf("list_events with a bad type = %v (error %v)", got, isErr)
	}
}

// TestEventStreamOutlivesWriteTimeout: a server's WriteTimeout (and
// ReadTimeout) bound requests, not streams: each write of a stream sets
// its own deadline.
func TestEventStreamOutlivesWriteTimeout(t *testing.T) {
	store := apitest.OpenStore(t)
	h := httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: store, Heartbeat: 40 * time.Millisecond}),
		Logger: apitest.Discard, RateLimit: apitest.NoLimits})
	ts := httptest.NewUnstartedServer(h)
	ts.Config.WriteTimeout = 150 * time.Millisecond
	ts.Config.ReadTimeout = 150 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)
	c := openStream(t, &apitest.Env{TS: ts}, "", nil)
	time.Sleep(500 * time.Millisecond)
	if _, err := store.CreatePrediction(context.Background(), board.NewPrediction{AgentID: "scout", Title: "t", Body: "b", Confidence: ptr(0.5), Timeframe: "soon", Domain: "AI"}); err != nil {
		t.Fatal(err)
	}
	if got := c.next(t, 1); got[0].Event != "prediction.created" {
		t.Errorf("after the write timeout: %v", got)
	}
}

// TestEventStreamManyStreams: an event written after a thousand streams
// connect reaches every one of them, the same bytes on each (the hub
// encodes it once). Not timed: it keeps the fan-out covered; the
// 10,000-stream figures are the load benchmark's (docs/BENCHMARKS.md).
func TestEventStreamManyStreams(t *testing.T) {
	const n = 1000
	e, _ := eventEnv(t, boardapi.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	defer client.CloseIdleConnections()
	frames := make(chan string, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	for range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.TS.URL+"/api/events", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req) // answered once the stream has subscribed
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			t.Fatalf("GET /api/events: %d", resp.StatusCode)
		}
		wg.Go(func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			var frame strings.Builder
			for sc.Scan() {
				line := sc.Text()
				switch {
				case line != "":
					frame.WriteString(line + "\n")
				case strings.HasPrefix(frame.String(), "id: "):
					frames <- frame.String()
					return
				default: // retry: or a heartbeat
					frame.Reset()
				}
			}
			frames <- "stream ended: " + frame.String()
		})
	}
	id := apitest.CreatePred(t, e)
	var first string
	deadline := time.After(30 * time.Second)
	for i := range n {
		select {
		case f := <-frames:
			if i == 0 {
				first = f
				if !strings.HasPrefix(f, "id: 1\nevent: prediction.created\ndata: {") || !strings.Contains(f, `"prediction_id":"`+id+`"`) {
					t.Fatalf("frame = %q", f)
				}
			} else if f != first {
				t.Fatalf("stream %d got %q, stream 0 got %q", i, f, first)
			}
		case <-deadline:
			t.Fatalf("%d of %d streams got the event", i, n)
		}
	}
	cancel()
}
