package httpapi_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/tools"
)

// The benchmarks call ServeHTTP with httptest requests and recorders, so
// they measure the handler stack (middleware, routing, decoding, the tool,
// encoding) and not the network. Each has a baseline: a bare HandlerFunc
// writing a fixed JSON body of the same size in the same calling style.
// Report the ratio tool/baseline from one run.

const convertQuery = "value=%2B150&compare_to=2.5"

func benchRequest(b *testing.B, h http.Handler, newReq func() *http.Request) {
	b.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newReq())
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	body := rec.Body.Bytes()
	baseline := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
	run := func(h http.Handler) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, newReq())
			}
		}
	}
	b.Run("baseline", run(baseline))
	b.Run("api", run(h))
}

func BenchmarkConvertOddsGET(b *testing.B) {
	srv := httpapi.New(httpapi.Options{Logger: apitest.Discard, RateLimit: apitest.NoLimits})
	benchRequest(b, srv, func() *http.Request {
		return httptest.NewRequest(http.MethodGet, tools.PathPrefix+"/convert_odds?"+convertQuery, nil)
	})
}

func BenchmarkCombineForecastsPOST(b *testing.B) {
	srv := httpapi.New(httpapi.Options{Logger: apitest.Discard, RateLimit: apitest.NoLimits})
	body := []byte(`{"forecasts":[{"who":"agent:a","p":0.62},{"who":"agent:b","p":"35%"},{"who":"person","p":0.55,"weight":2},` +
		`{"who":"agent:c","p":0.7},{"who":"agent:d","p":0.4}],"method":"geo_odds","extremize":1.2}`)
	benchRequest(b, srv, func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, tools.PathPrefix+"/combine_forecasts", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return r
	})
}

// BenchmarkMiddleware is the cost of the middleware chain (request ID, log
// line, metrics, recovery, the per-address limit, CORS, routing) around the
// cheapest handler, GET /healthz, with the rate limits on (never reached)
// and a text log line formatted then discarded, as `predictions serve`
// runs under the load benchmark.
func BenchmarkMiddleware(b *testing.B) {
	huge := middleware.Rate{Events: 1_000_000, Per: time.Second, Burst: 1_000_000}
	srv := httpapi.New(httpapi.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RateLimit: middleware.RateLimit{Agent: huge, Address: huge}})
	benchRequest(b, srv, func() *http.Request {
		return httptest.NewRequest(http.MethodGet, "/healthz", nil)
	})
}
