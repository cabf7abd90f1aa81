package boardapi

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
)

// testHub opens a board on SQLite and a hub over it whose streams
// buffer that many events; the hub looks at the log only when woken.
func testHub(t *testing.T, buffer int) (*board.Store, *eventHub) {
	t.Helper()
	store, err := board.Open(context.Background(), boardtest.SQLite(t), board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store, newEventHub(store, slog.New(slog.DiscardHandler), buffer, time.Hour)
}

// TestEventHubDropsSlowStream: a stream that takes nothing from its
// buffer is dropped once the buffer is full (its channel closed), while
// the writes go on at their own pace and a stream that keeps up gets
// every event.
func TestEventHubDropsSlowStream(t *testing.T) {
	ctx := context.Background()
	store, h := testHub(t, 3)
	slow, err := h.subscribe(ctx, board.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.subscribe(ctx, board.EventQuery{})
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
	for i := range n {
		c := 0.5
		start := time.Now()
		if _, err := store.CreatePrediction(ctx, board.NewPrediction{AgentID: "w", Title: "t", Body: "b", Confidence: &c, Timeframe: "soon", Domain: "AI"}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("write %d took %v", i, d)
		}
	}
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
	sub := func(q board.EventQuery) *eventSub {
		t.Helper()
		s, err := h.subscribe(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ai1 := sub(board.EventQuery{Domain: "AI"})
	ai2 := sub(board.EventQuery{Domain: "ai", Types: []board.EventType{board.EventPredictionCreated}})
	ai3 := sub(board.EventQuery{Domain: "AI"})
	sci := sub(board.EventQuery{Domain: "Science"})
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
