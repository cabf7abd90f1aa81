package httpapi_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/internal/apitest"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape serves GET /metrics and returns every sample as
// `name{label="value",...}` → value; a histogram gives name_count and
// name_sum.
func scrape(t testing.TB, h http.Handler) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", httpapi.MetricsPath, nil))
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range families {
		for _, m := range f.GetMetric() {
			labels := labelText(m.GetLabel())
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[name+labels] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[name+labels] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[name+"_count"+labels] = float64(m.GetHistogram().GetSampleCount())
				out[name+"_sum"+labels] = m.GetHistogram().GetSampleSum()
			default:
				out[name+labels] = m.GetUntyped().GetValue()
			}
		}
	}
	return out
}

func labelText(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s=%q", l.GetName(), l.GetValue())
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// pick returns the samples whose key starts with one of the prefixes.
func pick(all map[string]float64, prefixes ...string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range all {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				out[k] = v
			}
		}
	}
	return out
}

// plainBoard is the store alone.
type plainBoard struct{ *board.Store }

// backlog is an outbox holding n deliveries.
type backlog struct{ n int }

func (b backlog) Backlog(context.Context) (int, error) { return b.n, nil }

// pgBoard reports PostgreSQL's one shared pool.
type pgBoard struct{ boardapi.Board }

func (pgBoard) Dialect() string { return "postgres" }
func (pgBoard) PoolStats() board.PoolStats {
	st := sql.DBStats{MaxOpenConnections: 10, OpenConnections: 3, InUse: 1, Idle: 2, WaitCount: 5, WaitDuration: 1500 * time.Millisecond}
	return board.PoolStats{Write: st, Read: st}
}

func TestMetricsPostgresPool(t *testing.T) {
	got := pick(scrape(t, httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: pgBoard{}}), Logger: apitest.Discard})), "predictions_db_")
	want := map[string]float64{
		`predictions_db_max_open_connections{pool="shared"}`:        10,
		`predictions_db_open_connections{pool="shared"}`:            3,
		`predictions_db_in_use_connections{pool="shared"}`:          1,
		`predictions_db_idle_connections{pool="shared"}`:            2,
		`predictions_db_wait_count_total{pool="shared"}`:            5,
		`predictions_db_wait_duration_seconds_total{pool="shared"}`: 1.5,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pool metrics (-want +got):\n%s", diff)
	}
}

func TestMetrics(t *testing.T) {
	clk := newTestClock()
	store := apitest.OpenStore(t)
	srv := httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: plainBoard{store}}), Logger: apitest.Discard, Now: clk.Now,
		RateLimit: middleware.RateLimit{Agent: middleware.Rate{Events: 1, Per: time.Hour, Burst: 2}}})
	do := func(method, path, agent string, body []byte) int {
		req := httptest.NewRequest(method, path, strings.NewReader(string(body)))
		if agent != "" {
			req.Header = apitest.BearerH(agent)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	codes := []int{
		do("POST", "/api/predictions", "agent-a", apitest.JSONBody(t, apitest.Pred())),
		do("POST", "/api/predictions", "agent-b", apitest.JSONBody(t, apitest.Pred())), // 403: bearer is not the body's agent
		do("POST", "/api/predictions", "agent-a", apitest.JSONBody(t, apitest.Pred())), // 201: the burst is 2
		do("POST", "/api/predictions", "agent-a", apitest.JSONBody(t, apitest.Pred())), // 429
		do("GET", "/api/predictions", "", nil),                                         // 200
		do("GET", "/api/predictions?limit=5", "", nil),                                 // 200: the query is not in the label
		do("GET", "/api/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc", "", nil),    // 404 on a route
		do("GET", "/api/v1/convert_odds?value=2", "", nil),
		do("GET", "/no/such/path", "", nil),
		do("GET", "/another/unknown/path", "", nil),
		do("DELETE", "/api/predictions", "", nil), // 405
		do("BREW", "/api/stats", "", nil),         // an unknown method: label "other"
	}
	if diff := cmp.Diff([]int{201, 403, 201, 429, 200, 200, 404, 200, 404, 404, 405, 405}, codes); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	got := scrape(t, srv)
	want := map[string]float64{
		`predictions_http_requests_total{code="201",method="POST",route="/api/predictions"}`:          2,
		`predictions_http_requests_total{code="403",method="POST",route="/api/predictions"}`:          1,
		`predictions_http_requests_total{code="429",method="POST",route="/api/predictions"}`:          1,
		`predictions_http_requests_total{code="200",method="GET",route="/api/predictions"}`:           2,
		`predictions_http_requests_total{code="404",method="GET",route="/api/predictions/{id}"}`:      1,
		`predictions_http_requests_total{code="200",method="GET",route="/api/v1/convert_odds"}`:       1,
		`predictions_http_requests_total{code="404",method="GET",route="unmatched"}`:                  2,
		`predictions_http_requests_total{code="405",method="DELETE",route="unmatched"}`:               1,
		`predictions_http_requests_total{code="405",method="other",route="unmatched"}`:                1,
		`predictions_http_request_duration_seconds_count{method="POST",route="/api/predictions"}`:     4,
		`predictions_http_request_duration_seconds_count{method="GET",route="/api/predictions"}`:      2,
		`predictions_http_request_duration_seconds_count{method="GET",route="/api/predictions/{id}"}`: 1,
		`predictions_http_request_duration_seconds_count{method="GET",route="/api/v1/convert_odds"}`:  1,
		`predictions_http_request_duration_seconds_count{method="GET",route="unmatched"}`:             2,
		`predictions_http_request_duration_seconds_count{method="DELETE",route="unmatched"}`:          1,
		`predictions_http_request_duration_seconds_count{method="other",route="unmatched"}`:           1,
		`predictions_http_requests_in_flight`:                                                         1, // the scrape
		`predictions_rate_limited_total{limit="agent"}`:                                               1,
		`predictions_rate_limited_total{limit="address_read"}`:                                        0,
		`predictions_rate_limited_total{limit="address_write"}`:                                       0,
		`predictions_rate_limited_total{limit="address_register"}`:                                    0,
		`predictions_rate_limit_clients{limit="agent"}`:                                               1,
		`predictions_rate_limit_clients{limit="address_read"}`:                                        1,
		`predictions_rate_limit_clients{limit="address_write"}`:                                       1,
		`predictions_rate_limit_clients{limit="address_register"}`:                                    0,
		// SQLite: one writer connection, a pool of 4 readers.
		`predictions_db_max_open_connections{pool="write"}`: 1,
		`predictions_db_max_open_connections{pool="read"}`:  4,
	}
	if diff := cmp.Diff(want, pick(got, "predictions_http_requests_total", "predictions_http_requests_in_flight",
		"predictions_http_request_duration_seconds_count", "predictions_rate_limit", "predictions_db_max_open")); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	for _, k := range []string{`predictions_db_open_connections{pool="write"}`, `predictions_db_in_use_connections{pool="read"}`,
		`predictions_db_idle_connections{pool="read"}`, `predictions_db_wait_count_total{pool="write"}`,
		`predictions_db_wait_duration_seconds_total{pool="read"}`, "go_goroutines"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %s", k)
		}
	}
	if _, ok := got["predictions_outbox_backlog"]; ok {
		t.Error("predictions_outbox_backlog without an outbox")
	}
	// The scrape itself is counted by the next one.
	if n := scrape(t, srv)[`predictions_http_requests_total{code="200",method="GET",route="/metrics"}`]; n != 1 {
		t.Errorf("scrapes counted: %v, want 1", n)
	}

	// A board with an outbox publishes its backlog.
	ob := httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: store, Outbox: backlog{n: 7}}), Logger: apitest.Discard})
	if n, ok := scrape(t, ob)["predictions_outbox_backlog"]; !ok || n != 7 {
		t.Errorf("outbox backlog = %v (%v), want 7", n, ok)
	}
}

// TestMetricsCardinality: unknown paths and methods do not add series.
func TestMetricsCardinality(t *testing.T) {
	srv := httpapi.New(httpapi.Options{Logger: apitest.Discard, RateLimit: apitest.NoLimits})
	for i := range 500 {
		req := httptest.NewRequest([]string{"GET", "POST", fmt.Sprintf("M%d", i)}[i%3], fmt.Sprintf("/x/%d", i), nil)
		srv.ServeHTTP(httptest.NewRecorder(), req)
	}
	got := pick(scrape(t, srv), "predictions_http_requests_total")
	want := map[string]float64{
		`predictions_http_requests_total{code="404",method="GET",route="unmatched"}`:   167,
		`predictions_http_requests_total{code="404",method="POST",route="unmatched"}`:  167,
		`predictions_http_requests_total{code="404",method="other",route="unmatched"}`: 166,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series after 500 unknown paths (-want +got):\n%s", diff)
	}
}

func TestMetricsPlacement(t *testing.T) {
	get := func(h http.Handler, path string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	off := httpapi.New(httpapi.Options{Logger: apitest.Discard, Metrics: httpapi.MetricsOff})
	if code := get(off, "/metrics"); code != 404 {
		t.Errorf("MetricsOff: GET /metrics = %d, want 404", code)
	}
	if code := get(off.MetricsHandler(), "/metrics"); code != 404 {
		t.Errorf("MetricsOff: MetricsHandler = %d, want 404", code)
	}
	elsewhere := httpapi.New(httpapi.Options{Logger: apitest.Discard, Metrics: httpapi.MetricsElsewhere})
	get(elsewhere, "/healthz")
	if code := get(elsewhere, "/metrics"); code != 404 {
		t.Errorf("MetricsElsewhere: GET /metrics on the API = %d, want 404", code)
	}
	if n := scrape(t, elsewhere.MetricsHandler())[`predictions_http_requests_total{code="200",method="GET",route="/healthz"}`]; n != 1 {
		t.Errorf("MetricsElsewhere: /healthz counted %v times, want 1", n)
	}
	// Served on the API, /metrics is described in openapi.json.
	e := apitest.NewEnv(t, httpapi.Options{})
	if resp, _ := e.Do(t, "GET", "/metrics", nil, nil, apitest.MustPass); resp.StatusCode != 200 {
		t.Errorf("GET /metrics: %d", resp.StatusCode)
	}
}

// TestMetricsClientGone: a request whose client went away (its context
// cancelled, as net/http does when the connection closes) before the
// board answered counts as code 499 in /metrics, never as a 500.
func TestMetricsClientGone(t *testing.T) {
	store := apitest.OpenStore(t)
	srv := httpapi.New(httpapi.Options{Board: boardapi.New(boardapi.Options{Store: store}), Logger: apitest.Discard, RateLimit: apitest.NoLimits})
	for _, path := range []string{"/api/predictions", "/api/events?last_event_id=0", "/api/events.json?since=0", "/api/stats"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != httpapi.StatusClientClosed {
			t.Errorf("GET %s, client gone: %d %s, want %d", path, rec.Code, rec.Body, httpapi.StatusClientClosed)
		}
	}
	for name, v := range pick(scrape(t, srv), "predictions_http_requests_total") {
		if strings.Contains(name, `code="5`) {
			t.Errorf("%s = %v: a client that went away counted as a fault of the service", name, v)
		}
	}
}

// TestMetricsToolRoutes: the tools' series, which the chain keeps once
// looked up, count every request under the route template, method and
// code, on the server that answered only; the latency buckets are the
// documented ones.
func TestMetricsToolRoutes(t *testing.T) {
	srv := httpapi.New(httpapi.Options{Logger: apitest.Discard, RateLimit: apitest.NoLimits})
	other := httpapi.New(httpapi.Options{Logger: apitest.Discard, RateLimit: apitest.NoLimits})
	do := func(method, target, body string) int {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	var codes []int
	for range 3 {
		codes = append(codes, do("GET", "/api/v1/convert_odds?value=2", ""), do("POST", "/api/v1/convert_odds", `{"value":"2"}`),
			do("POST", "/api/v1/convert_odds", `{"value":"abc"}`))
	}
	codes = append(codes, do("HEAD", "/api/v1/convert_odds?value=2", ""), do("GET", "/api/v1/convert_odds?value=abc", ""),
		do("PUT", "/api/v1/convert_odds", ""))
	if diff := cmp.Diff([]int{200, 200, 400, 200, 200, 400, 200, 200, 400, 200, 400, 405}, codes); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	const route = `route="/api/v1/convert_odds"`
	want := map[string]float64{
		`predictions_http_requests_total{code="200",method="GET",` + route + `}`:          3,
		`predictions_http_requests_total{code="400",method="GET",` + route + `}`:          1,
		`predictions_http_requests_total{code="200",method="HEAD",` + route + `}`:         1,
		`predictions_http_requests_total{code="200",method="POST",` + route + `}`:         3,
		`predictions_http_requests_total{code="400",method="POST",` + route + `}`:         3,
		`predictions_http_requests_total{code="405",method="PUT",route="unmatched"}`:      1,
		`predictions_http_request_duration_seconds_count{method="GET",` + route + `}`:     4,
		`predictions_http_request_duration_seconds_count{method="HEAD",` + route + `}`:    1,
		`predictions_http_request_duration_seconds_count{method="POST",` + route + `}`:    6,
		`predictions_http_request_duration_seconds_count{method="PUT",route="unmatched"}`: 1,
	}
	// Nothing else: no series of a code, method or route not served.
	got := pick(scrape(t, srv), "predictions_http_requests_total", "predictions_http_request_duration_seconds_count")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	if got := pick(scrape(t, other), "predictions_http_requests_total"); len(got) != 0 {
		t.Errorf("another server's series: %v, want none", got)
	}

	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", httpapi.MetricsPath, nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	var bounds []float64
	for _, b := range families["predictions_http_request_duration_seconds"].GetMetric()[0].GetHistogram().GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
	}
	if diff := cmp.Diff([]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, math.Inf(1)}, bounds); diff != "" {
		t.Errorf("latency buckets (-want +got):\n%s", diff)
	}
}
