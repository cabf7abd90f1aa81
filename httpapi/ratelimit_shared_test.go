package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/redislimit"
	"github.com/predictions-md/predictions/redislimit/redistest"
)

// logBuffer collects log lines for a test, safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// metricValue reads one sample of the server's /metrics, "" when absent.
func metricValue(t *testing.T, h http.Handler, name string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.RemoteAddr = "198.18.0.1:1" // an address of its own, not limited by the test's requests
	h.ServeHTTP(rec, req)
	for line := range strings.SplitSeq(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	return ""
}

// replica is one server of several sharing a store and a rate-limit store.
func replicas(t *testing.T, n int, rl middleware.RateLimit, shared func() middleware.SharedLimits) []*limited {
	t.Helper()
	store := apitest.OpenStore(t)
	var out []*limited
	for range n {
		clk := newTestClock()
		r := rl
		r.Shared = shared()
		out = append(out, &limited{h: httpapi.New(httpapi.Options{Logger: apitest.Discard, Now: clk.Now, RateLimit: r, Board: boardapi.New(boardapi.Options{Store: store})}), clk: clk})
	}
	return out
}

func TestSharedLimitsAcrossReplicas(t *testing.T) {
	prefix := redistest.Prefix(t)
	// Redis keeps time itself: rates of an hour, so that nothing comes back
	// while the test runs, however slow the machine.
	rs := replicas(t, 2, middleware.RateLimit{Agent: middleware.Rate{Events: 60, Per: time.Hour, Burst: 20},
		Address: middleware.Rate{Events: 60, Per: time.Hour, Burst: 30}},
		func() middleware.SharedLimits { return redistest.Open(t, prefix) })
	post := func(i int, addr string) *httptest.ResponseRecorder {
		return rs[i%2].do("POST", "/api/predictions", addr, "flood", apitest.JSONBody(t, apitest.Pred("agent_id", "flood")))
	}
	// One agent budget over two replicas: burst 20, then 429 on both.
	if diff := cmp.Diff(map[int]int{201: 20, 429: 2}, statuses(22, func(i int) *httptest.ResponseRecorder {
		return post(i, fmt.Sprintf("192.0.2.%d:1000", i+1)) // a new address each time: only the agent limit bites
	})); diff != "" {
		t.Errorf("22 posts of one agent over two replicas (-want +got):\n%s", diff)
	}
	rec := post(0, "198.51.100.1:1")
	// At most one emission interval (60 s); less by the seconds Redis's
	// own clock has run since the budget ran out, on a slow machine.
	if ra, err := strconv.Atoi(rec.Header().Get("Retry-After")); rec.Code != 429 || err != nil || ra < 1 || ra > 60 {
		t.Errorf("over the shared limit: %d, Retry-After %q, want 429 and 1 to 60", rec.Code, rec.Header().Get("Retry-After"))
	}
	// One address budget over two replicas: burst 30 for reads (writes
	// have a budget of their own).
	if diff := cmp.Diff(map[int]int{200: 30, 429: 1}, statuses(31, func(i int) *httptest.ResponseRecorder {
		return rs[i%2].do("GET", "/healthz", "198.51.100.1:1", "", nil)
	})); diff != "" {
		t.Errorf("30 reads of one address over two replicas (-want +got):\n%s", diff)
	}
	if v := metricValue(t, rs[1].h, "predictions_rate_limit_redis_up"); v != "1" {
		t.Errorf("predictions_rate_limit_redis_up = %q, want 1", v)
	}
	if v := metricValue(t, rs[1].h, "predictions_rate_limit_redis_fallbacks_total"); v != "0" {
		t.Errorf("predictions_rate_limit_redis_fallbacks_total = %q, want 0", v)
	}
}

// Redis going away: the replica keeps serving with its own limits.
func TestSharedLimitsRedisGone(t *testing.T) {
	l := redistest.Open(t, redistest.Prefix(t))
	var logs logBuffer
	clk := newTestClock()
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Now: clk.Now, Board: boardapi.New(boardapi.Options{Store: apitest.OpenStore(t)}),
		RateLimit: middleware.RateLimit{Agent: middleware.Rate{Events: 60, Per: time.Hour, Burst: 20}, Shared: l}})
	srv := &limited{h: h, clk: clk}
	post := func(int) *httptest.ResponseRecorder {
		return srv.do("POST", "/api/predictions", "192.0.2.1:1", "a", apitest.JSONBody(t, apitest.Pred("agent_id", "a")))
	}
	if diff := cmp.Diff(map[int]int{201: 5}, statuses(5, post)); diff != "" {
		t.Errorf("with Redis (-want +got):\n%s", diff)
	}
	l.Close()
	// The local budget is whole (Redis held the first five): 20, then 429.
	if diff := cmp.Diff(map[int]int{201: 20, 429: 3}, statuses(23, post)); diff != "" {
		t.Errorf("after Redis is gone (-want +got):\n%s", diff)
	}
	if n := logs.count("does not answer"); n != 1 {
		t.Errorf("%d log lines about the outage, want 1:\n%s", n, logs.b.String())
	}
	if v := metricValue(t, h, "predictions_rate_limit_redis_up"); v != "0" {
		t.Errorf("predictions_rate_limit_redis_up = %q, want 0", v)
	}
	if v := metricValue(t, h, "predictions_rate_limit_redis_fallbacks_total"); v == "0" || v == "" {
		t.Errorf("predictions_rate_limit_redis_fallbacks_total = %q, want > 0", v)
	}
}

// A closed port: no Redis at all from the start. Needs no Redis to run.
func TestSharedLimitsUnreachable(t *testing.T) {
	l, err := redislimit.Open("redis://127.0.0.1:1/0", redislimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var logs logBuffer
	clk := newTestClock()
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Now: clk.Now, Board: boardapi.New(boardapi.Options{Store: apitest.OpenStore(t)}),
		RateLimit: middleware.RateLimit{Agent: middleware.Rate{Events: 60, Per: time.Minute, Burst: 20}, Shared: l}})
	srv := &limited{h: h, clk: clk}
	if diff := cmp.Diff(map[int]int{201: 20, 429: 5}, statuses(25, func(int) *httptest.ResponseRecorder {
		return srv.do("POST", "/api/predictions", "192.0.2.1:1", "a", apitest.JSONBody(t, apitest.Pred("agent_id", "a")))
	})); diff != "" {
		t.Errorf("posts with Redis unreachable (-want +got):\n%s", diff)
	}
	if n := logs.count("does not answer"); n != 1 {
		t.Errorf("%d log lines about the outage, want 1:\n%s", n, logs.b.String())
	}
	// Each of the 25 posts is a fallback for the address and for the agent
	// limit, and the scrape of /metrics one for its address.
	if v := metricValue(t, h, "predictions_rate_limit_redis_fallbacks_total"); v != "51" {
		t.Errorf("predictions_rate_limit_redis_fallbacks_total = %q, want 51 (25 posts × 2 limits + 1 scrape)", v)
	}
}

// flakyShared is a shared store that can be taken down and brought back;
// while up it allows everything.
type flakyShared struct {
	down  atomic.Bool
	calls atomic.Int64
}

func (f *flakyShared) Take(ctx context.Context, key string, events int, per time.Duration, burst int) (time.Duration, error) {
	f.calls.Add(1)
	if f.down.Load() {
		return 0, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	}
	return 0, nil
}

func (f *flakyShared) Refund(ctx context.Context, key string, events int, per time.Duration, burst int) error {
	return nil
}

func TestSharedLimitsOutageAndReturn(t *testing.T) {
	f := &flakyShared{}
	var logs logBuffer
	clk := newTestClock()
	h := httpapi.New(httpapi.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Now: clk.Now,
		RateLimit: middleware.RateLimit{Address: middleware.Rate{Events: 60, Per: time.Minute, Burst: 10}, Shared: f}})
	srv := &limited{h: h, clk: clk}
	get := func(int) *httptest.ResponseRecorder { return srv.do("GET", "/healthz", "192.0.2.1:1", "", nil) }
	if diff := cmp.Diff(map[int]int{200: 30}, statuses(30, get)); diff != "" {
		t.Errorf("store up, allowing all (-want +got):\n%s", diff)
	}
	f.down.Store(true)
	before := f.calls.Load()
	if diff := cmp.Diff(map[int]int{200: 10, 429: 20}, statuses(30, get)); diff != "" {
		t.Errorf("store down: local limit of burst 10 (-want +got):\n%s", diff)
	}
	// While down, only one request a second asks the store.
	if n := f.calls.Load() - before; n != 1 {
		t.Errorf("the store was asked %d times while down within a second, want 1", n)
	}
	clk.Advance(time.Second)
	_ = get(0)
	if n := f.calls.Load() - before; n != 2 {
		t.Errorf("the store was asked %d times after a second, want 2", n)
	}
	if v := metricValue(t, h, "predictions_rate_limit_redis_up"); v != "0" {
		t.Errorf("up while down = %q", v)
	}
	f.down.Store(false)
	clk.Advance(time.Second)
	if diff := cmp.Diff(map[int]int{200: 5}, statuses(5, get)); diff != "" {
		t.Errorf("store back (-want +got):\n%s", diff)
	}
	if v := metricValue(t, h, "predictions_rate_limit_redis_up"); v != "1" {
		t.Errorf("up after the return = %q", v)
	}
	for _, line := range []string{"does not answer", "answers again", "budgets are shared by the replicas through Redis"} {
		if n := logs.count(line); n != 1 {
			t.Errorf("%d log lines with %q, want 1:\n%s", n, line, logs.b.String())
		}
	}
}

// Failed writes in an agent's name do not spend its budget:
// 25 reactions as victim on a prediction that does not exist, then the
// victim's own post.
func TestRateLimitFailedWritesFree(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shared func(t *testing.T) middleware.SharedLimits
	}{
		{"local", func(*testing.T) middleware.SharedLimits { return nil }},
		{"redis", func(t *testing.T) middleware.SharedLimits { return redistest.Open(t, redistest.Prefix(t)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimited(t, middleware.RateLimit{Agent: middleware.Rate{Events: 60, Per: time.Hour, Burst: 20}, Shared: tc.shared(t)}, true)
			missing := "/api/predictions/01900000-0000-7000-8000-000000000000/reactions"
			if diff := cmp.Diff(map[int]int{404: 25}, statuses(25, func(int) *httptest.ResponseRecorder {
				return l.do("POST", missing, "203.0.113.9:1", "victim", []byte(`{"agent_id":"victim","reaction":"agree"}`))
			})); diff != "" {
				t.Errorf("reactions on a missing prediction (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[int]int{400: 25}, statuses(25, func(int) *httptest.ResponseRecorder {
				return l.do("POST", "/api/predictions", "203.0.113.9:1", "victim", []byte(`{"agent_id":"victim","title":""}`))
			})); diff != "" {
				t.Errorf("invalid posts (-want +got):\n%s", diff)
			}
			// The whole burst is still the victim's.
			if diff := cmp.Diff(map[int]int{201: 20, 429: 1}, statuses(21, func(int) *httptest.ResponseRecorder {
				return l.do("POST", "/api/predictions", "192.0.2.1:1", "victim", apitest.JSONBody(t, apitest.Pred("agent_id", "victim")))
			})); diff != "" {
				t.Errorf("the victim's own posts (-want +got):\n%s", diff)
			}
		})
	}
}
