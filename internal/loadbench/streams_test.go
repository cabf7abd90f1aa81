package loadbench

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
)

// TestHoldStreams: the streams open, each receives every event, and all
// stop when the context ends.
func TestHoldStreams(t *testing.T) {
	store, err := board.Open(context.Background(), boardtest.SQLite(t), board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ts := httptest.NewServer(httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: store}), RateLimit: middleware.RateLimit{Off: true}}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	var st StreamStats
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); HoldStreams(ctx, ts.URL, "", 5, 0, &st) }()
	wait := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s", what, st.String())
			}
		}
	}
	wait("5 open", func() bool { return st.Open.Load() == 5 })
	c := 0.5
	if _, err := store.CreatePrediction(ctx, board.NewPrediction{AgentID: "w", Title: "t", Body: "b", Confidence: &c, Timeframe: "soon", Domain: "AI"}); err != nil {
		t.Fatal(err)
	}
	wait("5 events", func() bool { return st.Events.Load() == 5 })
	cancel()
	wg.Wait()
	if st.Open.Load() != 0 || st.Failed.Load() != 0 {
		t.Errorf("after the end: %s", st.String())
	}
}
