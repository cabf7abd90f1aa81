package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Route label of requests that matched no route (404, 405, preflights,
// and requests refused by the per-address limit before routing on an
// unknown path). Labels are route templates, never raw paths, so the
// number of series stays bounded.
const unmatchedRoute = "unmatched"

// metrics are the server's collectors, on a registry of its own (two
// servers in one process do not share counts). A nil *metrics records nothing.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	limited  *prometheus.CounterVec
}

// latencyBuckets start below a millisecond: the tools answer in
// microseconds and board reads in about a millisecond.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

func newMetrics(s *Chain) *metrics {
	if !s.opt.Metrics {
		return nil
	}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "predictions_http_requests_total",
			Help: "HTTP requests answered, by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "predictions_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route template and method.",
			Buckets: latencyBuckets,
		}, []string{"route", "method"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "predictions_http_requests_in_flight",
			Help: "HTTP requests being answered.",
		}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "predictions_rate_limited_total",
			Help: "Requests refused with 429, by limit: agent, address_read, address_write or address_register.",
		}, []string{"limit"}),
	}
	m.reg.MustRegister(m.requests, m.duration, m.inFlight, m.limited,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if s.limits != nil {
		for _, l := range []struct {
			name  string
			table *limiterTable
		}{{limitAgent, s.limits.agent}, {limitAddressRead, s.limits.addrRead}, {limitAddressWrite, s.limits.addrWrite},
			{limitAddressRegister, s.limits.addrRegister}} {
			m.limited.WithLabelValues(l.name) // publish zeros
			m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "predictions_rate_limit_clients", Help: "Limiters held (agents or client addresses seen recently), by limit.",
				ConstLabels: prometheus.Labels{"limit": l.name},
			}, func() float64 { return float64(l.table.len()) }))
		}
	}
	if s.limits != nil && s.limits.shared != nil {
		m.reg.MustRegister(s.limits.shared.collectors()...)
	}
	m.reg.MustRegister(s.opt.Collectors...)
	return m
}

func (m *metrics) rateLimited(limit string) {
	if m != nil {
		m.limited.WithLabelValues(limit).Inc()
	}
}

// MetricsHandler serves the metrics in the Prometheus text format; nil
// without metrics ([Options.Metrics] false).
func (s *Chain) MetricsHandler() http.Handler {
	if s.metrics == nil {
		return nil
	}
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// observe counts requests, their status and latency, by route template.
// It sits inside logRequests, whose recorder it reads, and inside
// requestID, whose requestInfo the router fills in with the route.
func (s *Chain) observe(next http.Handler) http.Handler {
	m := s.metrics
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw, ok := w.(*recorder)
		if !ok {
			rw = &recorder{ResponseWriter: w}
		}
		info := infoOf(r)
		if info == nil { // not under requestID
			info = &requestInfo{route: unmatchedRoute, start: time.Now()}
			r = r.WithContext(context.WithValue(r.Context(), requestIDKey, info))
		}
		m.inFlight.Inc()
		defer func() {
			m.inFlight.Dec()
			info.elapsed = max(time.Since(info.start), 1) // 0 means not yet taken
			status := rw.status
			if status == 0 {
				status = http.StatusOK
			}
			method := methodLabel(r.Method)
			m.requests.WithLabelValues(info.route, method, statusLabel(status)).Inc()
			m.duration.WithLabelValues(info.route, method).Observe(info.elapsed.Seconds())
		}()
		next.ServeHTTP(rw, r)
	})
}

// RouteTemplate is router middleware: it records the matched route's
// template for observe. It runs only for requests that match a route.
func RouteTemplate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setRoute(r, mux.CurrentRoute(r))
		next.ServeHTTP(w, r)
	})
}

// noteRoute records the route r would match, for requests answered before
// routing (refused by the per-address limit).
func (s *Chain) noteRoute(r *http.Request) {
	var match mux.RouteMatch
	if s.router.Match(r, &match) && match.MatchErr == nil {
		setRoute(r, match.Route)
	}
}

func setRoute(r *http.Request, route *mux.Route) {
	info := infoOf(r)
	if info == nil || route == nil {
		return
	}
	if t, err := route.GetPathTemplate(); err == nil {
		info.route = t
	}
}

// statusLabel is the code label: the common codes without formatting.
func statusLabel(code int) string {
	switch code {
	case http.StatusOK:
		return "200"
	case http.StatusCreated:
		return "201"
	}
	return strconv.Itoa(code)
}

// methodLabel bounds the method label: any method is allowed on the wire.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}
