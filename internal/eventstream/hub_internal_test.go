package eventstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
)

// testHub opens a board on SQLite and a hub over its event log whose
// streams buffer that many events; the hub looks at the log only when
// woken.
func testHub(t *testing.T, buffer int) (*board.Store, *Hub[board.Event]) {
	t.Helper()
	store, err := board.Open(context.Background(), boardtest.SQLite(t), board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store, NewHub(Config[board.Event]{Log: boardLog{store}, Encode: encodeBoardEvent,
		Logger: slog.New(slog.DiscardHandler), Buffer: buffer, Poll: time.Hour, Heartbeat: time.Hour})
}

// boardLog is a board's event log as the hub follows it.
type boardLog struct{ store *board.Store }

func (l boardLog) LastID(ctx context.Context) (int64, error) { return l.store.LastEventID(ctx) }
func (l boardLog) Changed() <-chan struct{}                  { return l.store.EventsChanged() }
func (l boardLog) Read(ctx context.Context, after int64) (Page[board.Event], error) {
	p, err := l.store.Events(ctx, board.EventQuery{After: after, Limit: board.MaxEventPage})
	if errors.Is(err, board.ErrEventsTrimmed) {
		err = ErrTrimmed
	}
	return Page[board.Event]{Events: p.Events, Last: p.LastID, More: p.HasMore}, err
}

// encodeBoardEvent is a board event as its stream sends it.
func encodeBoardEvent(e board.Event) (int64, string, []byte) {
	data, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	return e.ID, string(e.Type), data
}

// subscribeAll subscribes a stream to every event.
func subscribeAll(ctx context.Context, h *Hub[board.Event]) (*eventSub, error) {
	return h.subscribe(ctx, "", func(board.Event) bool { return true })
}

// writePredictions writes n predictions; each write must end within 2 s,
// far longer than a write takes: a hub that waited for a stream would
// hold it until the stream's deadline.
func writePredictions(t *testing.T, store *board.Store, n int) {
	t.Helper()
	c := 0.5
	for i := range n {
		start := time.Now()
		if _, err := store.CreatePrediction(context.Background(), board.NewPrediction{AgentID: "w", Title: "t", Body: "b", Confidence: &c, Timeframe: "soon", Domain: "AI"}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("write %d took %v", i, d)
		}
	}
}

// TestEventHubDropsSlowStream: a stream that takes nothing from its
// buffer is dropped once the buffer is full (its channel closed), while
// the writes go on at their own pace and a stream that keeps up gets
// every event.
func TestEventHubDropsSlowStream(t *testing.T) {
	ctx := context.Background()
	store, h := testHub(t, 3)
	slow, err := subscribeAll(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := subscribeAll(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer h.unsubscribe(fast)
	const n = 10
	got := make(chan int)
	go func() {
		count := 0
		for range fast.ch {
			if count++; count == n {
				break
			}
		}
		got <- count
	}()
	writePredictions(t, store, n)
	select {
	case c := <-got:
		if c != n {
			t.Errorf("the stream that keeps up got %d of %d", c, n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream that keeps up did not get every event")
	}
	received := 0
	for range slow.ch { // closed when dropped
		received++
	}
	if received != 3 {
		t.Errorf("the slow stream held %d events before it was dropped, want its buffer of 3", received)
	}
}

// TestEventHubGroups: streams with the same filters share a group (one
// match an event) and each still gets the event; a stream of another
// group gets only what its filters match; a group's last stream leaving
// removes the group.
func TestEventHubGroups(t *testing.T) {
	ctx := context.Background()
	store, h := testHub(t, 8)
	sub := func(key string, q board.EventQuery) *eventSub {
		t.Helper()
		s, err := h.subscribe(ctx, key, q.Match)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ai1 := sub("ai", board.EventQuery{Domain: "AI"})
	ai2 := sub("ai created", board.EventQuery{Domain: "ai", Types: []board.EventType{board.EventPredictionCreated}})
	ai3 := sub("ai", board.EventQuery{Domain: "AI"})
	sci := sub("science", board.EventQuery{Domain: "Science"})
	h.mu.Lock()
	groups := len(h.groups)
	h.mu.Unlock()
	if groups != 3 {
		t.Errorf("%d groups, want 3 (AI, AI prediction.created, Science)", groups)
	}
	c := 0.5
	p, err := store.CreatePrediction(ctx, board.NewPrediction{AgentID: "w", Title: "t", Body: "b", Confidence: &c, Timeframe: "soon", Domain: "AI"})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []*eventSub{ai1, ai2, ai3} {
		select {
		case f := <-s.ch:
			if !strings.Contains(string(f.b), `"prediction_id":"`+p.ID+`"`) {
				t.Errorf("stream %d got %q", i, f.b)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("stream %d got nothing", i)
		}
	}
	select {
	case f := <-sci.ch:
		t.Errorf("the Science stream got %q", f.b)
	case <-time.After(100 * time.Millisecond):
	}
	for _, s := range []*eventSub{ai1, ai3} {
		h.unsubscribe(s)
	}
	h.unsubscribe(ai3) // twice: no effect
	h.mu.Lock()
	groups, n := len(h.groups), h.n
	h.mu.Unlock()
	if groups != 2 || n != 2 {
		t.Errorf("after two left: %d groups, %d streams; want 2 and 2", groups, n)
	}
	h.unsubscribe(ai2)
	h.unsubscribe(sci)
}

// readFrames reads what a parked stream's client receives until want
// event ids have come or the connection ends, and returns the ids in
// the order read (heartbeats aside) and whether a heartbeat came.
func readFrames(t *testing.T, c net.Conn, want int) (ids []string, beat bool, err error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	for len(ids) < want {
		line, err := r.ReadString('\n')
		if err != nil {
			return ids, beat, err
		}
		switch {
		case strings.HasPrefix(line, "id: "):
			ids = append(ids, strings.TrimSpace(strings.TrimPrefix(line, "id: ")))
		case line == ": heartbeat\n":
			beat = true
		}
	}
	return ids, beat, nil
}

// TestEventHubParked: a parked stream first gets the events its channel
// held that come after what its backlog sent, then the events the hub
// offers, in order, then heartbeats; the counts follow it; stop closes
// it, and a stream parked after stop is closed at once.
func TestEventHubParked(t *testing.T) {
	ctx := context.Background()
	store, h := testHub(t, 16)
	h.cfg.Heartbeat = 20 * time.Millisecond // before the first subscribe starts run
	sub, err := subscribeAll(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	c := 0.5
	create := func() string {
		t.Helper()
		p, err := store.CreatePrediction(ctx, board.NewPrediction{AgentID: "w", Title: "t", Body: "b", Confidence: &c, Timeframe: "soon", Domain: "AI"})
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	create()
	create()
	var held []*frame
	for len(held) < 2 {
		select {
		case f := <-sub.ch:
			held = append(held, f)
		case <-time.After(5 * time.Second):
			t.Fatal("the stream got nothing before it was parked")
		}
	}
	for _, f := range held {
		sub.ch <- f // as if not yet taken when the handler parks it
	}
	server, client := net.Pipe()
	defer client.Close()
	h.park(sub, server, held[0].id) // the backlog sent the first
	if open, parked := h.Counts(); open != 1 || parked != 1 {
		t.Errorf("counts after park = %d open, %d parked; want 1, 1", open, parked)
	}
	create()
	ids, beat, err := readFrames(t, client, 2)
	if err != nil {
		t.Fatalf("reading the parked stream: %v (got %v)", err, ids)
	}
	want := []string{strconv.FormatInt(held[1].id, 10), strconv.FormatInt(held[1].id+1, 10)}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("event ids on the parked stream (-want +got):\n%s", diff)
	}
	if !beat {
		line, err := bufio.NewReader(client).ReadString('\n') // nothing else is written meanwhile
		if err != nil || line != ": heartbeat\n" {
			t.Fatalf("the parked stream sent %q, %v; want a heartbeat", line, err)
		}
	}
	h.Stop()
	if open, parked := h.Counts(); open != 0 || parked != 0 {
		t.Errorf("counts after stop = %d open, %d parked; want 0, 0", open, parked)
	}
	client.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, client); err != nil {
		t.Errorf("the parked stream was not closed by stop: %v", err)
	}

	late, err := subscribeAll(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	server2, client2 := net.Pipe()
	defer client2.Close()
	h.park(late, server2, 0)
	client2.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, client2); err != nil {
		t.Errorf("a stream parked after stop was not closed: %v", err)
	}
	if open, _ := h.Counts(); open != 0 {
		t.Errorf("%d streams open after a stream parked after stop, want 0", open)
	}
}

// TestEventHubParkedSlow: a parked stream whose client reads nothing
// (net.Pipe: every write waits for a read) is closed once its queue is
// full; the hub never waits for it, and a parked stream that reads gets
// every event.
func TestEventHubParkedSlow(t *testing.T) {
	ctx := context.Background()
	store, h := testHub(t, 3)
	park := func() net.Conn {
		t.Helper()
		sub, err := subscribeAll(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		server, client := net.Pipe()
		t.Cleanup(func() { client.Close() })
		h.mu.Lock()
		from := h.last
		h.mu.Unlock()
		h.park(sub, server, from)
		return client
	}
	slow, fast := park(), park()
	const n = 10
	got := make(chan []string, 1)
	go func() {
		ids, _, _ := readFrames(t, fast, n)
		got <- ids
	}()
	writePredictions(t, store, n)
	select {
	case ids := <-got:
		if len(ids) != n {
			t.Errorf("the stream that keeps up got %d of %d events: %v", len(ids), n, ids)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream that keeps up did not get every event")
	}
	// The slow stream's first write waits for a read; 3 more fill its
	// queue and the next closes it: what it can still read is that one
	// frame, then the end.
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	ids, _, err := readFrames(t, slow, n)
	if err == nil || len(ids) > 1 {
		t.Errorf("the slow stream read %v, %v; want at most the one frame in flight, then the end", ids, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		open, parked := h.Counts()
		if open == 1 && parked == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("counts = %d open, %d parked; want the fast stream alone", open, parked)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEventHubParkedSlowTCP: over TCP, a parked stream whose client reads
// nothing takes events until its socket's buffers are full, then queues
// them, and is closed once its queue is full; the writes never wait for
// it, and a parked stream that reads gets every event in order.
func TestEventHubParkedSlowTCP(t *testing.T) {
	ctx := context.Background()
	store, h := testHub(t, 3)
	park := func(readBuffer int) net.Conn {
		t.Helper()
		sub, err := subscribeAll(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		server, client := tcpPair(t)
		if readBuffer > 0 { // small buffers: a few events fill them
			client.(*net.TCPConn).SetReadBuffer(readBuffer)
			server.(*net.TCPConn).SetWriteBuffer(readBuffer)
		}
		h.mu.Lock()
		from := h.last
		h.mu.Unlock()
		h.park(sub, server, from)
		return client
	}
	slow, fast := park(1024), park(0)
	defer slow.Close()
	const max = 2000
	got := make(chan []string, 1)
	stop := make(chan int, 1)
	go func() {
		n := <-stop
		ids, _, _ := readFrames(t, fast, n)
		got <- ids
	}()
	n := 0
	for n < max {
		writePredictions(t, store, 10)
		n += 10
		if open, _ := h.Counts(); open == 1 {
			break
		}
	}
	if open, parked := h.Counts(); open != 1 || parked != 1 {
		t.Fatalf("after %d events: %d open, %d parked; want the slow stream closed and the fast one parked", n, open, parked)
	}
	stop <- n
	select {
	case ids := <-got:
		if len(ids) != n {
			t.Fatalf("the stream that keeps up got %d of %d events", len(ids), n)
		}
		for i := 1; i < len(ids); i++ {
			a, _ := strconv.ParseInt(ids[i-1], 10, 64)
			b, _ := strconv.ParseInt(ids[i], 10, 64)
			if b != a+1 {
				t.Fatalf("event %d has id %s after %s; want them in order, none missing", i, ids[i], ids[i-1])
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream that keeps up did not get every event")
	}
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, slow); err != nil && !isReset(err) {
		t.Errorf("the slow stream's connection did not end: %v", err)
	}
	t.Logf("the slow stream was closed after %d events", n)
}

// isReset reports whether err is a connection reset (the server closed a
// socket with data unread).
func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// BenchmarkHubOfferParked measures the hub's work for a page of 10
// events offered to 1,000 parked streams on loopback TCP, whose clients
// read everything: matching, encoding each event once, queueing and
// writing without waiting (allocs/op is per page).
func BenchmarkHubOfferParked(b *testing.B) {
	const streams, events = 1000, 10
	ctx := context.Background()
	h := NewHub(Config[board.Event]{Encode: encodeBoardEvent, Buffer: 1 << 20})
	h.running = true // no log: the benchmark offers the pages itself
	for range streams {
		sub, err := subscribeAll(ctx, h)
		if err != nil {
			b.Fatal(err)
		}
		server, client := tcpPair(b)
		go io.Copy(io.Discard, client)
		h.park(sub, server, 0)
	}
	page := make([]board.Event, events)
	var dirty []*parkedConn
	var id int64
	for b.Loop() {
		for i := range page {
			id++
			page[i] = board.Event{ID: id, Type: board.EventForecast, PredictionID: "p1", Domain: "AI", AgentID: "a"}
		}
		h.mu.Lock()
		dirty = h.offerPage(page, dirty[:0])
		h.mu.Unlock()
		dirty = flushAll(dirty)
	}
	if open, parked := h.Counts(); open != streams || parked != streams {
		b.Fatalf("%d open, %d parked after the pages; want every stream kept", open, parked)
	}
}
