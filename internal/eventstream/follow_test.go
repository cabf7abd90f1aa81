package eventstream

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// followLog is a scripted log for Follow: its nth read returns script[n]
// (after the script, nothing new), and the test wakes it by hand.
type followLog struct {
	t      *testing.T
	script []readResult
	calls  chan int64 // the after of each read, in order
	beats  atomic.Int32

	mu   sync.Mutex
	wake chan struct{}
	n    int
}

type readResult struct {
	last int64
	more bool
	err  error
}

func (l *followLog) read(ctx context.Context, after int64) (int64, bool, error) {
	l.mu.Lock()
	r := readResult{last: after}
	if l.n < len(l.script) {
		r = l.script[l.n]
	}
	l.n++
	l.mu.Unlock()
	l.calls <- after
	return r.last, r.more, r.err
}

func (l *followLog) changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wake
}

// wakeUp closes the channel changed gave, as an append does.
func (l *followLog) wakeUp() {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.wake)
	l.wake = make(chan struct{})
}

// next waits for the next read and checks its after.
func (l *followLog) next(want int64) {
	l.t.Helper()
	select {
	case got := <-l.calls:
		if got != want {
			l.t.Fatalf("read after %d, want after %d", got, want)
		}
	case <-time.After(5 * time.Second):
		l.t.Fatalf("no read after %d came", want)
	}
}

// none checks that no read comes for d.
func (l *followLog) none(d time.Duration) {
	l.t.Helper()
	select {
	case got := <-l.calls:
		l.t.Fatalf("read after %d; want none for %v", got, d)
	case <-time.After(d):
	}
}

var errRead = errors.New("read failed")

// followTests are TestFollow's cases.
var followTests = []struct {
	name   string
	script []readResult
	opt    func(l *followLog) FollowOptions
	// drive checks the reads and returns whether to cancel ctx.
	drive   func(t *testing.T, l *followLog) (cancel bool)
	wantErr error
}{
	{
		name:   "pages",
		script: []readResult{{last: 3, more: true}, {last: 6, more: true}, {last: 9}},
		opt:    func(l *followLog) FollowOptions { return FollowOptions{Wake: l.changed, Poll: time.Hour} },
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			l.next(3)
			l.next(6)
			l.none(50 * time.Millisecond)
			return true
		},
		wantErr: context.Canceled,
	},
	{
		name:   "wake",
		script: []readResult{{last: 1}, {last: 2}},
		opt:    func(l *followLog) FollowOptions { return FollowOptions{Wake: l.changed, Poll: time.Hour} },
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			l.none(50 * time.Millisecond)
			l.wakeUp()
			l.next(1)
			l.wakeUp()
			l.next(2)
			return true
		},
		wantErr: context.Canceled,
	},
	{
		name:   "poll",
		script: []readResult{{last: 1}, {last: 2}},
		opt:    func(l *followLog) FollowOptions { return FollowOptions{Poll: 60 * time.Millisecond} },
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			start := time.Now()
			l.next(1)
			if d := time.Since(start); d < 40*time.Millisecond {
				t.Errorf("polled after %v, want about 60 ms", d)
			}
			l.next(2)
			return true
		},
		wantErr: context.Canceled,
	},
	{
		name:   "cancellation",
		script: []readResult{{last: 1}},
		opt:    func(l *followLog) FollowOptions { return FollowOptions{Wake: l.changed, Poll: time.Hour} },
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			return true
		},
		wantErr: context.Canceled,
	},
	{
		name:   "error from read",
		script: []readResult{{last: 1}, {last: 1, err: errRead}},
		opt:    func(l *followLog) FollowOptions { return FollowOptions{Wake: l.changed, Poll: time.Hour} },
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			l.wakeUp()
			l.next(1)
			return false
		},
		wantErr: errRead,
	},
	{
		name:   "woken says no",
		script: []readResult{{last: 1}, {last: 2}},
		opt: func(l *followLog) FollowOptions {
			return FollowOptions{Wake: l.changed, Poll: 200 * time.Millisecond,
				Woken: func(context.Context) bool { return false }}
		},
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			l.wakeUp()
			l.none(50 * time.Millisecond)
			l.next(1) // at the poll, which the wake did not put off
			return true
		},
		wantErr: context.Canceled,
	},
	{
		name:   "min gap",
		script: []readResult{{last: 1}, {last: 2}},
		opt: func(l *followLog) FollowOptions {
			return FollowOptions{Wake: l.changed, Poll: time.Hour, MinGap: 100 * time.Millisecond}
		},
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			start := time.Now()
			l.wakeUp()
			l.next(1)
			if d := time.Since(start); d < 80*time.Millisecond {
				t.Errorf("read %v after a wake that came right after a read, want MinGap (100 ms)", d)
			}
			return true
		},
		wantErr: context.Canceled,
	},
	{
		name: "beat",
		opt: func(l *followLog) FollowOptions {
			return FollowOptions{Wake: l.changed, Poll: time.Hour, Beat: func() { l.beats.Add(1) }, BeatEvery: 10 * time.Millisecond}
		},
		drive: func(t *testing.T, l *followLog) bool {
			l.next(0)
			deadline := time.Now().Add(5 * time.Second)
			for l.beats.Load() < 3 {
				if time.Now().After(deadline) {
					t.Fatalf("%d beats in 5 s, want one every 10 ms", l.beats.Load())
				}
				time.Sleep(5 * time.Millisecond)
			}
			l.none(30 * time.Millisecond) // a beat does not read
			return true
		},
		wantErr: context.Canceled,
	},
}

// TestFollow: Follow reads the pages one after another at once, reads
// again on a wake or at the poll and not otherwise, asks Woken after a
// wake only, waits MinGap after a read before the read a wake starts,
// beats while it waits, and ends with ctx's error or read's.
func TestFollow(t *testing.T) {
	for _, tt := range followTests {
		t.Run(tt.name, func(t *testing.T) {
			l := &followLog{t: t, script: tt.script, calls: make(chan int64, 16), wake: make(chan struct{})}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- Follow(ctx, 0, l.read, tt.opt(l)) }()
			if tt.drive(t, l) {
				cancel()
			}
			select {
			case err := <-done:
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("Follow returned %v, want %v", err, tt.wantErr)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Follow did not return")
			}
		})
	}
}
