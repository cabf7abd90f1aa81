//go:build linux

package loadbench

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/mcpserver"
)

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkInProcess runs each tool scenario's request through the HTTP
// handler in-process (no network, no other process): the CPU cost per
// request that the load benchmark sees over loopback, for profiling with
// -cpuprofile and -memprofile. Logs are formatted as serve formats them,
// then discarded.
//
//	go test ./internal/loadbench -run '^$' -bench InProcess -benchmem -cpuprofile cpu.out
func BenchmarkInProcess(b *testing.B) {
	srv := inProcess(b)
	for _, s := range toolScenarios() {
		b.Run(slug(s.name), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				rec := serve(srv, s)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
				}
			}
			// CPU time (user + system, all threads, GC included) per
			// request: steadier than ns/op on a shared, loaded machine.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// inProcess is the server the load benchmark starts, as a handler: the
// tools and MCP, logs formatted and discarded, and the rate limits on (so
// that their cost is measured) but never reached, as in runner.serve.
func inProcess(tb testing.TB) http.Handler {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mcp, err := mcpserver.Handler(mcpserver.Options{Logger: log})
	if err != nil {
		tb.Fatal(err)
	}
	huge := middleware.Rate{Events: 1_000_000, Per: time.Second, Burst: 1_000_000}
	return httpapi.New(httpapi.Options{Logger: log, MCP: mcp,
		RateLimit: middleware.RateLimit{Agent: huge, Address: huge}})
}

// serve sends scenario s's request to srv.
func serve(srv http.Handler, s *scenario) *httptest.ResponseRecorder {
	req := httptest.NewRequest(s.method, s.path, bytes.NewReader(s.body))
	req.Header = s.header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

// TestToolScenariosAnswer: every tool scenario's request, through the
// server's handler in process, gets the answer its check accepts, so a
// change of the API that breaks a payload fails here and not only in a
// load run.
func TestToolScenariosAnswer(t *testing.T) {
	srv := inProcess(t)
	for _, s := range toolScenarios() {
		rec := serve(srv, s)
		if err := s.check(rec.Code, rec.Body.Bytes()); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
}
