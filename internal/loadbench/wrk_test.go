package loadbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// wrkOutput is what wrk 4.1 prints with wrkDone, around its own summary.
const wrkOutput = `Running 1s test @ http://127.0.0.1:18099/nonexist
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.13ms    2.93ms  27.48ms   89.27%
    Req/Sec   710.20    134.99     0.95k    50.00%
  712 requests in 1.01s, 361.56KB read
  Non-2xx or 3xx responses: 12
Requests/sec:    706.34
Transfer/sec:    358.69KB
wrk-result requests=712 duration_us=1008017 p50_us=2178 p99_us=14333 connect=0 read=1 write=0 status=12 timeout=2
`

func TestParseWrk(t *testing.T) {
	got, err := parseWrk(strings.NewReader(wrkOutput))
	if err != nil {
		t.Fatal(err)
	}
	want := wrkResult{round: round{ok: 700, errors: 15, elapsed: 1008017 * time.Microsecond, p50: 2178 * time.Microsecond,
		p99: 14333 * time.Microsecond}, read: 1, status: 12, timeout: 2}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(wrkResult{}, round{})); diff != "" {
		t.Errorf("parseWrk (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"Running 1s test\n",
		"wrk-result requests=712 duration_us=1\n",
		"wrk-result requests=x duration_us=1 p50_us=1 p99_us=1 connect=0 read=0 write=0 status=0 timeout=0\n",
	} {
		if _, err := parseWrk(strings.NewReader(bad)); err == nil {
			t.Errorf("parseWrk(%q) succeeded, want an error", bad)
		}
	}
}

func TestTallyFigures(t *testing.T) {
	var tl tally
	for _, r := range []round{
		{ok: 900, errors: 0, elapsed: time.Second, p50: 3 * time.Millisecond, p99: 9 * time.Millisecond},
		{ok: 1000, errors: 2, elapsed: time.Second, p50: 2 * time.Millisecond, p99: 30 * time.Millisecond},
		{ok: 1100, errors: 0, elapsed: time.Second, p50: 1 * time.Millisecond, p99: 8 * time.Millisecond},
	} {
		tl.add(wrkResult{round: r, status: r.errors})
	}
	got := tl.figures()
	want := figures{requests: 3002, rps: 1000, p50: 2 * time.Millisecond, p99: 9 * time.Millisecond, errors: 2,
		errText: []string{"status ≥ 400"}, roundRPS: []float64{900, 1000, 1100}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(figures{})); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	half := got
	half.roundRPS = []float64{450, 2000, 550}
	if diff := cmp.Diff([]float64{2, 0.5, 2}, roundRatios(got, half)); diff != "" {
		t.Errorf("roundRatios (-want +got):\n%s", diff)
	}
}

func TestLuaString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"b"}`, `"{\"a\":\"b\"}"`},
		{"x\\y\n", `"x\\y\010"`},
		{"é", `"\195\169"`},
	} {
		if got := luaString([]byte(tc.in)); got != tc.want {
			t.Errorf("luaString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestWriteLua drives a recording server with the writes' script and
// checks that wrk sends exactly the requests writeBody makes, with the
// matching bearer token, and that every scenario's script runs.
func TestWriteLua(t *testing.T) {
	needLoad(t)
	var (
		mu   sync.Mutex
		bad  []string
		seen int
	)
	title := regexp.MustCompile(`"title":"Load test prediction (\d+)"`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		seen++
		m := title.FindSubmatch(body)
		if m == nil {
			bad = append(bad, fmt.Sprintf("no number in %s", body))
			return
		}
		i, _ := strconv.ParseUint(string(m[1]), 10, 64)
		agent, want := writeBody(i, writeAgents)
		if string(body) != string(want) || r.Header.Get("Authorization") != "Bearer "+agent ||
			r.Header.Get("Content-Type") != "application/json" || r.Method != http.MethodPost || r.URL.Path != "/api/predictions" {
			bad = append(bad, fmt.Sprintf("%s %s %q %s, want %s", r.Method, r.URL.Path, r.Header.Get("Authorization"), body, want))
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	w := &wrk{path: "wrk", dir: t.TempDir(), conns: 2, threads: 2}
	res, err := w.run(context.Background(), writeScenario(), srv.URL, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.ok == 0 || res.errors != 0 || seen == 0 {
		t.Errorf("wrk: %+v, %d requests seen", res, seen)
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d requests differ from writeBody, first: %s", len(bad), seen, bad[0])
	}
}

// TestProcessCPU: the CPU time read from /proc grows as this process
// works, and a process that does not exist has none.
func TestProcessCPU(t *testing.T) {
	before, ok := processCPU(os.Getpid())
	if !ok {
		t.Skip("no /proc/<pid>/stat here")
	}
	// Work until the CPU time read grows past the kernel's 10 ms tick: on
	// a loaded machine the process may get little CPU in any stretch of
	// wall time, so the bound is generous and it is not a timing test.
	after := before
	for x, deadline := 0.0, time.Now().Add(30*time.Second); after-before < 20*time.Millisecond && time.Now().Before(deadline); x++ {
		_ = math.Sqrt(x)
		if int(x)%100_000 == 0 {
			after, _ = processCPU(os.Getpid())
		}
	}
	if d := after - before; d < 20*time.Millisecond || d > 30*time.Second {
		t.Errorf("30 s of work read as %v of CPU", d)
	}
	if _, ok := processCPU(0); ok {
		t.Error("pid 0 has a CPU time")
	}
}
