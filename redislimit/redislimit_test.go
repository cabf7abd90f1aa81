package redislimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/redislimit"
	"github.com/predictions-md/predictions/redislimit/redistest"
)

// The tests take 60 an hour in bursts of 20 (Redis keeps time itself):
// no event comes back while a test runs, however slow the machine.

// takes counts allowed and refused events of n takes, alternating
// between the limiters as a client alternates between replicas.
func takes(t *testing.T, n int, key string, ls ...*redislimit.Limiter) map[string]int {
	t.Helper()
	got := map[string]int{}
	for i := range n {
		d, err := ls[i%len(ls)].Take(context.Background(), key, 60, time.Hour, 20)
		if err != nil {
			t.Fatal(err)
		}
		if d == 0 {
			got["allowed"]++
		} else {
			got["refused"]++
			if d > time.Minute {
				t.Errorf("take %d: delay %v, want at most one emission interval (1 min)", i, d)
			}
		}
	}
	return got
}

func TestSharedBudgetAtTheBoundary(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := redistest.Open(t, prefix), redistest.Open(t, prefix)
	// Two replicas, one budget of burst 20: the 21st is refused, whichever
	// replica it reaches.
	if diff := cmp.Diff(map[string]int{"allowed": 20}, takes(t, 20, "agent:x", a, b)); diff != "" {
		t.Errorf("the burst over two replicas (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"refused": 2}, takes(t, 2, "agent:x", a, b)); diff != "" {
		t.Errorf("past the burst (-want +got):\n%s", diff)
	}
	// Another key has a budget of its own.
	if diff := cmp.Diff(map[string]int{"allowed": 20, "refused": 1}, takes(t, 21, "agent:y", b, a)); diff != "" {
		t.Errorf("another key (-want +got):\n%s", diff)
	}
	// Another prefix too.
	c := redistest.Open(t, prefix+"other:")
	if diff := cmp.Diff(map[string]int{"allowed": 20, "refused": 1}, takes(t, 21, "agent:x", c)); diff != "" {
		t.Errorf("another prefix (-want +got):\n%s", diff)
	}
}

func TestRefund(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := redistest.Open(t, prefix), redistest.Open(t, prefix)
	ctx := context.Background()
	// A refund on a full budget does not raise it past the burst.
	for range 3 {
		if err := a.Refund(ctx, "agent:v", 60, time.Hour, 20); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(map[string]int{"allowed": 20, "refused": 1}, takes(t, 21, "agent:v", a, b)); diff != "" {
		t.Errorf("after refunds on a full budget (-want +got):\n%s", diff)
	}
	// A refund right after a take from a full budget gives it back whole.
	if _, err := a.Take(ctx, "agent:w", 60, time.Hour, 20); err != nil {
		t.Fatal(err)
	}
	if err := b.Refund(ctx, "agent:w", 60, time.Hour, 20); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"allowed": 20, "refused": 1}, takes(t, 21, "agent:w", a, b)); diff != "" {
		t.Errorf("after a take and its refund (-want +got):\n%s", diff)
	}
	// Each refund, from either replica, gives back exactly one.
	for _, l := range []*redislimit.Limiter{a, b} {
		if err := l.Refund(ctx, "agent:v", 60, time.Hour, 20); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(map[string]int{"allowed": 2, "refused": 1}, takes(t, 3, "agent:v", a, b)); diff != "" {
		t.Errorf("after two refunds (-want +got):\n%s", diff)
	}
}

func TestUnreachable(t *testing.T) {
	l, err := redislimit.Open("redis://127.0.0.1:1/0", redislimit.Options{}) // nothing listens on port 1
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := time.Now()
	if _, err := l.Take(context.Background(), "agent:x", 60, time.Hour, 20); err == nil {
		t.Fatal("Take with Redis down: no error")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Take with Redis down took %v; the timeout is %v", d, redislimit.DefaultTimeout)
	}
	if err := l.Refund(context.Background(), "agent:x", 60, time.Hour, 20); err == nil {
		t.Error("Refund with Redis down: no error")
	}
}

func TestClosed(t *testing.T) {
	l := redistest.Open(t, redistest.Prefix(t))
	l.Close()
	if _, err := l.Take(context.Background(), "agent:x", 60, time.Hour, 20); err == nil {
		t.Fatal("Take on a closed limiter: no error")
	}
}

func TestOpen(t *testing.T) {
	for _, bad := range []string{"", "http://127.0.0.1:6379", "redis://127.0.0.1:6379/x"} {
		if _, err := redislimit.Open(bad, redislimit.Options{}); err == nil {
			t.Errorf("Open(%q): no error", bad)
		}
	}
	l, err := redislimit.Open("redis://127.0.0.1:6379/0", redislimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Prefix() != redislimit.DefaultPrefix {
		t.Errorf("Prefix() = %q, want %q", l.Prefix(), redislimit.DefaultPrefix)
	}
	if _, err := l.Take(context.Background(), "k", 0, time.Minute, 1); err == nil {
		t.Error("Take with 0 events: no error")
	}
}
