package boardapi

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
)

// TestEventHubDropsSlowStream: a stream that takes nothing from its
// buffer is dropped once the buffer is full (its channel closed), while
// the writes go on at their own pace and a stream that keeps up gets
// every event.
func TestEventHubDropsSlowStream(t *testing.T) {
	ctx := context.Background()
	store, err := board.Open(ctx, boardtest.SQLite(t), board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := newEventHub(store, slog.New(slog.DiscardHandler), 3, time.Hour)
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
