package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/testclock"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want middleware.Rate
		str  string
	}{
		{"60/min:20", middleware.Rate{Events: 60, Per: time.Minute, Burst: 20}, "60/min:20"},
		{"1200/minute:200", middleware.Rate{Events: 1200, Per: time.Minute, Burst: 200}, "1200/min:200"},
		{" 10 / s ", middleware.Rate{Events: 10, Per: time.Second, Burst: 10}, "10/s:10"},
		{"5/sec:1", middleware.Rate{Events: 5, Per: time.Second, Burst: 1}, "5/s:1"},
		{"100/hour", middleware.Rate{Events: 100, Per: time.Hour, Burst: 100}, "100/h:100"},
		{"3/10s:2", middleware.Rate{Events: 3, Per: 10 * time.Second, Burst: 2}, "3/10s:2"},
		{"1/H", middleware.Rate{Events: 1, Per: time.Hour, Burst: 1}, "1/h:1"},
	} {
		got, err := middleware.ParseRate(tc.in)
		if err != nil {
			t.Errorf("ParseRate(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseRate(%q) (-want +got):\n%s", tc.in, diff)
		}
		if got.String() != tc.str {
			t.Errorf("ParseRate(%q).String() = %q, want %q", tc.in, got.String(), tc.str)
		}
	}
	for _, in := range []string{"", "60", "60/", "/min", "0/min", "-1/min", "x/min", "60/fortnight", "60/0s", "60/-1s", "60/48h",
		"60/min:", "60/min:0", "60/min:x", "60/min:20:3", "1e3/min", "2000000000/min"} {
		if _, err := middleware.ParseRate(in); err == nil || !strings.Contains(err.Error(), "60/min:20") {
			t.Errorf("ParseRate(%q) = %v, want an error with an example", in, err)
		}
	}
}

// FuzzParseRate: no panic; whatever parses prints back to the same rate.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"60/min:20", "1200/minute:200", "10/s", "3/10s:2", "1/h", "60/min:", "x", "5/1ms:1", "9/1h30m:7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := middleware.ParseRate(s)
		if err != nil {
			return
		}
		if r.Events < 1 || r.Burst < 1 || r.Per <= 0 {
			t.Fatalf("ParseRate(%q) = %+v", s, r)
		}
		back, err := middleware.ParseRate(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRate(%q) = %+v; its String %q reads back as %+v, %v", s, r, r.String(), back, err)
		}
	})
}

// testClock is a clock the test moves by hand: no test here waits.
type testClock = testclock.Clock

func newTestClock() *testClock { return testclock.New(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)) }

// limited is a handler under test with rate limits, called directly so
// that each request can come from any address.
type limited struct {
	h   http.Handler
	clk *testClock
}

func newLimited(t testing.TB, rl middleware.RateLimit, withBoard bool) *limited {
	t.Helper()
	clk := newTestClock()
	opt := httpapi.Options{Logger: apitest.Discard, Now: clk.Now, RateLimit: rl}
	if withBoard {
		opt.Board = boardapi.New(boardapi.Options{Store: apitest.OpenStore(t)})
	}
	return &limited{h: httpapi.New(opt), clk: clk}
}

// do serves one request from addr and returns the recorder.
func (l *limited) do(method, path, addr, agent string, body []byte) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	req.RemoteAddr = addr
	if agent != "" {
		req.Header = apitest.BearerH(agent)
	}
	rec := httptest.NewRecorder()
	l.h.ServeHTTP(rec, req)
	return rec
}

// statuses counts the statuses of n requests.
func statuses(n int, do func(i int) *httptest.ResponseRecorder) map[int]int {
	out := map[int]int{}
	for i := range n {
		out[do(i).Code]++
	}
	return out
}

func TestRateLimitAgent(t *testing.T) {
	l := newLimited(t, middleware.RateLimit{Agent: middleware.Rate{Events: 60, Per: time.Minute, Burst: 20}}, true)
	post := func(agent string) *httptest.ResponseRecorder {
		return l.do("POST", "/api/predictions", "192.0.2.1:1000", agent, apitest.JSONBody(t, apitest.Pred("agent_id", agent)))
	}
	// The burst, then 429s; another agent on the same address is not affected.
	if diff := cmp.Diff(map[int]int{201: 20, 429: 5}, statuses(25, func(int) *httptest.ResponseRecorder { return post("flood") })); diff != "" {
		t.Errorf("25 posts (-want +got):\n%s", diff)
	}
	if rec := post("calm"); rec.Code != 201 {
		t.Errorf("another agent: %d %s", rec.Code, rec.Body)
	}
	rec := post("flood")
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("over the limit: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	p := apitest.ProblemOf(t, rec.Body.Bytes())
	if p.Error != `rate limit: agent "flood" is over its limit of 60 writes a minute (bursts of 20)` ||
		!strings.HasPrefix(p.Hint, "retry after 1 s") || !strings.HasSuffix(p.Docs, "#post_prediction") {
		t.Errorf("problem = %+v", p)
	}
	// One a second comes back.
	l.clk.Advance(3 * time.Second)
	if diff := cmp.Diff(map[int]int{201: 3, 429: 1}, statuses(4, func(int) *httptest.ResponseRecorder { return post("flood") })); diff != "" {
		t.Errorf("after 3 s (-want +got):\n%s", diff)
	}
	// The agent's limit comes before validation (the order of checks in
	// doc.go): an invalid post of a limited agent is a 429 too.
	if rec := l.do("POST", "/api/predictions", "192.0.2.1:1000", "flood", []byte(`{"agent_id":"flood","title":""}`)); rec.Code != 429 {
		t.Errorf("invalid post of a limited agent: %d", rec.Code)
	}
}

func TestRateLimitRetryAfter(t *testing.T) {
	l := newLimited(t, middleware.RateLimit{Address: middleware.Rate{Events: 1, Per: time.Minute, Burst: 1}}, false)
	if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 200 {
		t.Fatalf("first: %d", rec.Code)
	}
	for _, tc := range []struct {
		wait time.Duration
		want string
	}{{0, "60"}, {15 * time.Second, "45"}, {44*time.Second + 500*time.Millisecond, "1"}} {
		l.clk.Advance(tc.wait)
		rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil)
		if rec.Code != 429 || rec.Header().Get("Retry-After") != tc.want {
			t.Errorf("after %v more: %d, Retry-After %q, want 429 and %s", tc.wait, rec.Code, rec.Header().Get("Retry-After"), tc.want)
		}
	}
	l.clk.Advance(500 * time.Millisecond)
	if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 200 {
		t.Errorf("after a minute: %d", rec.Code)
	}
}

func TestRateLimitAddress(t *testing.T) {
	l := newLimited(t, middleware.RateLimit{Address: middleware.Rate{Events: 1200, Per: time.Minute, Burst: 200}}, false)
	get := func(addr string) func(int) *httptest.ResponseRecorder {
		return func(i int) *httptest.ResponseRecorder {
			return l.do("GET", []string{"/healthz", "/api/v1/convert_odds?value=2", "/llms.txt", "/nope"}[i%4], addr, "", nil)
		}
	}
	got := statuses(210, get("192.0.2.1:1"))
	if got[429] != 10 || got[200]+got[404] != 200 {
		t.Errorf("210 reads from one address: %v, want 200 answered and 10 refused", got)
	}
	rec := l.do("GET", "/api/v1/convert_odds?value=2", "192.0.2.1:2", "", nil) // another port, same address
	p := apitest.ProblemOf(t, rec.Body.Bytes())
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "1" || rec.Header().Get("Access-Control-Allow-Origin") != "*" ||
		p.Error != "rate limit: client address 192.0.2.1 is over its limit of 1200 reads (GET, HEAD and OPTIONS requests) a minute (bursts of 200)" {
		t.Errorf("over the limit: %d %v %+v", rec.Code, rec.Header(), p)
	}
	// Writes from the same address have their own bucket; other addresses theirs.
	body := []byte(`{"value":"2"}`)
	if rec := l.do("POST", "/api/v1/convert_odds", "192.0.2.1:3", "", body); rec.Code != 200 {
		t.Errorf("a write from the limited address: %d %s", rec.Code, rec.Body)
	}
	if rec := l.do("GET", "/healthz", "192.0.2.2:1", "", nil); rec.Code != 200 {
		t.Errorf("another address: %d", rec.Code)
	}
	// IPv6 counts by /64: a client cannot escape by changing its low bits.
	l6 := newLimited(t, middleware.RateLimit{Address: middleware.Rate{Events: 1, Per: time.Hour, Burst: 2}}, false)
	var codes []int
	for _, a := range []string{"[2001:db8:1:2::1]:1", "[2001:db8:1:2:ffff::9]:1", "[2001:db8:1:2::abcd]:1", "[2001:db8:1:3::1]:1", "[::ffff:192.0.2.9]:1", "192.0.2.9:2", "192.0.2.9:3"} {
		codes = append(codes, l6.do("GET", "/healthz", a, "", nil).Code)
	}
	if diff := cmp.Diff([]int{200, 200, 429, 200, 200, 200, 429}, codes); diff != "" {
		t.Errorf("IPv6 /64 and IPv4-mapped grouping (-want +got):\n%s", diff)
	}
}

func TestRateLimitForwardedFor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		trust bool
		xff   []string
		same  bool // counted as the peer address
	}{
		{"ignored without trust", false, []string{"198.51.100.7"}, true},
		{"last entry", true, []string{"198.51.100.7, 203.0.113.5"}, false},
		{"last line", true, []string{"10.0.0.1", "198.51.100.7"}, false},
		{"with a port", true, []string{"198.51.100.7:4000"}, false},
		{"unreadable: the peer", true, []string{"198.51.100.7, not-an-ip"}, true},
		{"empty: the peer", true, []string{""}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newTestClock()
			h := httpapi.New(httpapi.Options{Logger: apitest.Discard, Now: clk.Now, TrustProxy: tc.trust,
				RateLimit: middleware.RateLimit{Address: middleware.Rate{Events: 1, Per: time.Hour, Burst: 1}}})
			first := httptest.NewRequest("GET", "/healthz", nil)
			first.RemoteAddr = "192.0.2.1:1"
			h.ServeHTTP(httptest.NewRecorder(), first)
			req := httptest.NewRequest("GET", "/healthz", nil)
			req.RemoteAddr = "192.0.2.1:2"
			req.Header["X-Forwarded-For"] = tc.xff
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if got := rec.Code == 429; got != tc.same {
				t.Errorf("status %d: counted as the peer = %v, want %v", rec.Code, got, tc.same)
			}
		})
	}
}

// TestRateLimitReadsNotStarved: through a real server, one agent floods
// writes and many agents exhaust the address's write bucket; reads from
// another address and from the flooding address itself keep getting 200.
func TestRateLimitReadsNotStarved(t *testing.T) {
	clk := newTestClock() // frozen: no token comes back during the test
	srv := httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: apitest.OpenStore(t)}), Logger: apitest.Discard, Now: clk.Now, TrustProxy: true,
		RateLimit: middleware.RateLimit{Address: middleware.Rate{Events: 1200, Per: time.Minute, Burst: 100}}})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	const writer, reader = "198.51.100.1", "198.51.100.2"
	req := func(method, path, from, agent string, body []byte) int {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		r, _ := http.NewRequest(method, ts.URL+path, rd)
		if agent != "" {
			r.Header = apitest.BearerH(agent)
		}
		r.Header.Set("X-Forwarded-For", from)
		resp, err := ts.Client().Do(r)
		if err != nil {
			t.Error(err)
			return 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	var mu sync.Mutex
	writes, reads := map[int]int{}, map[string]map[int]int{writer: {}, reader: {}}
	var wg sync.WaitGroup
	// 60 posts by one agent, and 10 agents posting 10 each: 160 writes
	// from one address, whose write bucket holds 100.
	for g := range 4 {
		wg.Go(func() {
			for i := range 15 {
				code := req("POST", "/api/predictions", writer, "flood", apitest.JSONBody(t, apitest.Pred("agent_id", "flood", "title", fmt.Sprint(g, i))))
				mu.Lock()
				writes[code]++
				mu.Unlock()
			}
		})
	}
	for a := range 10 {
		wg.Go(func() {
			agent := fmt.Sprintf("crowd-%d", a)
			for range 10 {
				code := req("POST", "/api/predictions", writer, agent, apitest.JSONBody(t, apitest.Pred("agent_id", agent)))
				mu.Lock()
				writes[code]++
				mu.Unlock()
			}
		})
	}
	for _, from := range []string{writer, reader} {
		for range 2 {
			wg.Go(func() {
				for i := range 40 {
					code := req("GET", []string{"/api/predictions", "/api/stats", "/api/agents"}[i%3], from, "", nil)
					mu.Lock()
					reads[from][code]++
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if writes[201] < 20 || writes[201] > 100 || writes[429] != 160-writes[201] {
		t.Errorf("writes: %v; want the flood refused (429) beyond its burst and the address's", writes)
	}
	if diff := cmp.Diff(map[string]map[int]int{writer: {200: 80}, reader: {200: 80}}, reads); diff != "" {
		t.Errorf("reads during the flood (-want +got):\n%s", diff)
	}
	t.Logf("writes %v; reads %v", writes, reads)
}

// TestRateLimitBounded: the limiter tables stay within MaxClients however
// many addresses come, and entries idle long enough to be full are dropped.
func TestRateLimitBounded(t *testing.T) {
	const maxClients = 100
	l := newLimited(t, middleware.RateLimit{MaxClients: maxClients}, false)
	for i := range 5_000 {
		if rec := l.do("GET", "/healthz", fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255), "", nil); rec.Code != 200 {
			t.Fatalf("request %d: %d", i, rec.Code)
		}
	}
	if n := scrape(t, l.h)[`predictions_rate_limit_clients{limit="address_read"}`]; n != maxClients {
		t.Errorf("after 5,000 addresses the read table holds %v limiters, want %d", n, maxClients)
	}
	// The default address bucket refills in 10 s: after that one request
	// leaves one limiter.
	l.clk.Advance(12 * time.Second)
	l.do("GET", "/healthz", "192.0.2.1:1", "", nil)
	if n := scrape(t, l.h)[`predictions_rate_limit_clients{limit="address_read"}`]; n != 1 {
		t.Errorf("after the idle time the read table holds %v limiters, want 1", n)
	}
}

func TestRateLimitOff(t *testing.T) {
	l := newLimited(t, middleware.RateLimit{Off: true, Address: middleware.Rate{Events: 1, Per: time.Hour, Burst: 1}}, true)
	got := statuses(30, func(i int) *httptest.ResponseRecorder {
		return l.do("POST", "/api/predictions", "192.0.2.1:1", "agent-a", apitest.JSONBody(t, apitest.Pred()))
	})
	if diff := cmp.Diff(map[int]int{201: 30}, got); diff != "" {
		t.Errorf("with limits off (-want +got):\n%s", diff)
	}
	_, llms := l.do("GET", "/llms.txt", "192.0.2.1:1", "", nil), l.do("GET", "/llms.txt", "192.0.2.1:1", "", nil)
	if strings.Contains(llms.Body.String(), "Rate limits") {
		t.Error("llms.txt describes rate limits that are off")
	}
}

// TestRateLimitOptions: unusable rates fall back to the defaults, a
// missing burst is the rate's events, and very slow rates work.
func TestRateLimitOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rate  middleware.Rate
		allow int // requests in a row before the first 429
	}{
		{"zero: default burst 200", middleware.Rate{}, 200},
		{"no Per: default", middleware.Rate{Events: 5, Burst: 5}, 200},
		{"no burst: Events", middleware.Rate{Events: 3, Per: time.Minute}, 3},
		{"very slow", middleware.Rate{Events: 1, Per: 24 * time.Hour, Burst: 1_000_000_000}, 250}, // all allowed
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimited(t, middleware.RateLimit{Address: tc.rate}, false)
			n := 0
			for n < 250 && l.do("GET", "/healthz", "192.0.2.1:1", "", nil).Code == 200 {
				n++
			}
			if n != tc.allow {
				t.Errorf("%d requests allowed, want %d", n, tc.allow)
			}
		})
	}
}

// TestRateLimitAddressKey: the address a 429 names is the key counted:
// an IPv4 address, an IPv6 /64, or a RemoteAddr that is no address as it
// is; each key keeps one limiter however often it comes back.
func TestRateLimitAddressKey(t *testing.T) {
	l := newLimited(t, middleware.RateLimit{Address: middleware.Rate{Events: 1, Per: time.Hour, Burst: 1}}, false)
	var got []string
	for _, addr := range []string{"192.0.2.7:1", "[2001:db8:5:6:7::8]:1", "[::ffff:192.0.2.8]:1", "pipe"} {
		for i := range 3 {
			rec := l.do("GET", "/healthz", addr, "", nil)
			if i == 0 {
				if rec.Code != 200 {
					t.Errorf("%s: first request %d", addr, rec.Code)
				}
				continue
			}
			got = append(got, fmt.Sprintf("%d %s", rec.Code, apitest.ProblemOf(t, rec.Body.Bytes()).Error))
		}
	}
	over := " is over its limit of 1 reads (GET, HEAD and OPTIONS requests) an hour (bursts of 1)"
	var want []string
	for _, key := range []string{"192.0.2.7", "2001:db8:5:6::/64", "192.0.2.8", "pipe"} {
		want = append(want, "429 rate limit: client address "+key+over, "429 rate limit: client address "+key+over)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
	// And the scrape's own address, httptest's 192.0.2.1.
	if n := scrape(t, l.h)[`predictions_rate_limit_clients{limit="address_read"}`]; n != 5 {
		t.Errorf("read limiters held: %v, want 5", n)
	}
}
