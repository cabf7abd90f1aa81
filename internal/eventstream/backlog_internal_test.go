package eventstream

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadBacklogTakesTurns: however many streams read their backlog at
// once, at most Config.BacklogReads reads run together; a stream whose
// client goes while it waits returns at once with its context's error.
func TestReadBacklogTakesTurns(t *testing.T) {
	h := NewHub(Config[int]{Encode: func(e int) (int64, string, []byte) { return int64(e), "", nil }, BacklogReads: 3})
	var running, most atomic.Int32
	read := func(ctx context.Context) (Page[int], error) {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		return Page[int]{Last: 1}, nil
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if _, err := h.ReadBacklog(context.Background(), "k", int64(i), read); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := most.Load(); got != 3 {
		t.Errorf("at most %d backlog reads ran at once, want 3", got)
	}

	// Every turn taken: a waiting stream whose client went returns.
	hold := make(chan struct{})
	for i := range 3 {
		wg.Go(func() {
			_, _ = h.ReadBacklog(context.Background(), "hold", int64(i), func(context.Context) (Page[int], error) { <-hold; return Page[int]{}, nil })
		})
	}
	for len(h.backlog) < 3 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := h.ReadBacklog(ctx, "k", 1000, read); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting with every turn taken: %v, want the context's error", err)
	}
	close(hold)
	wg.Wait()
}

// TestReadBacklogShared: streams asking at once for the same full page
// (same filters, same id) share one read; the log's last page (not More)
// is read by each, so that none misses what was appended meanwhile.
func TestReadBacklogShared(t *testing.T) {
	for _, tc := range []struct {
		name  string
		more  bool
		reads int32
	}{{"full page", true, 1}, {"last page", false, 20}} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHub(Config[int]{Encode: func(e int) (int64, string, []byte) { return int64(e), "", nil }})
			var reads atomic.Int32
			start := make(chan struct{})
			read := func(context.Context) (Page[int], error) {
				reads.Add(1)
				<-start
				return Page[int]{Events: []int{1, 2}, Last: 2, More: tc.more}, nil
			}
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() {
					p, err := h.ReadBacklog(context.Background(), "k", 0, read)
					if err != nil || p.Last != 2 || len(p.Events) != 2 {
						t.Errorf("ReadBacklog = %+v, %v", p, err)
					}
				})
			}
			time.Sleep(20 * time.Millisecond) // the 20 are waiting
			close(start)
			wg.Wait()
			if got := reads.Load(); got != tc.reads {
				t.Errorf("%d reads for 20 streams, want %d", got, tc.reads)
			}
		})
	}
}
