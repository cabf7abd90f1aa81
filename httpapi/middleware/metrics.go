package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
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
			info = &requestInfo{route: s.unmatched, start: time.Now()}
			r = withInfo(r, info)
		}
		m.inFlight.Inc()
		defer func() {
			m.inFlight.Dec()
			info.elapsed = max(time.Since(info.start), 1) // 0 means not yet taken
			status := rw.status
			if status == 0 {
				status = http.StatusOK
			}
			m.observe(info.route, r.Method, status, info.elapsed)
		}()
		next.ServeHTTP(rw, r)
	})
}

// observe counts one request of route: its code and its duration. The
// series of the route's methods, and of their code 200, are looked up
// once and kept in route (a series is still created by its first
// request, as with WithLabelValues alone); other codes are looked up on
// each request.
func (m *metrics) observe(route *routeLabel, method string, status int, elapsed time.Duration) {
	i := methodIndex(method)
	c := &route.cache[i]
	dur := c.duration.Load()
	if dur == nil {
		dur = &observer{m.duration.WithLabelValues(route.template, methodLabels[i])}
		c.duration.Store(dur)
	}
	if status == http.StatusOK {
		ok := c.ok.Load()
		if ok == nil {
			ok = &counter{m.requests.WithLabelValues(route.template, methodLabels[i], "200")}
			c.ok.Store(ok)
		}
		ok.Inc()
	} else {
		m.requests.WithLabelValues(route.template, methodLabels[i], statusLabel(status)).Inc()
	}
	dur.Observe(elapsed.Seconds())
}

// routeLabel is a route as the metrics see it: its template, the route
// label, and the series of each method label once they exist. Racing
// first requests store the same series, which the vectors hand out.
type routeLabel struct {
	template string
	name     string // the route's name (RouteName); "" but from LabelRoutes
	cache    [len(methodLabels)]struct {
		duration atomic.Pointer[observer]
		ok       atomic.Pointer[counter] // code 200
	}
}

type (
	observer struct{ prometheus.Observer }
	counter  struct{ prometheus.Counter }
)

// LabelRoutes makes every route of [Options.Router] record its template
// for the metrics when it serves a request: call it once all routes are
// registered, in place of [RouteTemplate]. Each route's handler is
// wrapped once, where router middleware would be wrapped again for every
// request, and the template is read once.
func (s *Chain) LabelRoutes() error {
	return s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		h := route.GetHandler()
		if h == nil { // a subrouter's route: Walk visits its routes
			return nil
		}
		t, err := route.GetPathTemplate()
		if err != nil { // no path: the label stays unmatched, as with RouteTemplate
			return nil
		}
		route.Handler(labelRoute(h, &routeLabel{template: t, name: route.GetName()}))
		return nil
	})
}

// RouteName returns the name of the route serving the request of ctx,
// as recorded by [Chain.LabelRoutes]; "" before routing, for a route
// without a name or a path, and outside a chain.
func RouteName(ctx context.Context) string {
	if info, _ := ctx.Value(requestIDKey).(*requestInfo); info != nil && info.route != nil {
		return info.route.name
	}
	return ""
}

// labelRoute records route on the requests next serves.
func labelRoute(next http.Handler, route *routeLabel) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoOf(r); info != nil {
			info.route = route
		}
		next.ServeHTTP(w, r)
	})
}

// RouteTemplate is router middleware: it records the matched route's
// template for observe. It runs only for requests that match a route.
// gorilla/mux builds router middleware again for every request;
// [Chain.LabelRoutes] does the same work once.
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
		info.route = &routeLabel{template: t}
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

// methodLabels are the values of the method label: any method is allowed
// on the wire, so the others share "other" (the last).
var methodLabels = [...]string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions, "other"}

// methodIndex is the index in methodLabels of m's label.
func methodIndex(m string) int {
	switch m {
	case http.MethodGet:
		return 0
	case http.MethodHead:
		return 1
	case http.MethodPost:
		return 2
	case http.MethodPut:
		return 3
	case http.MethodPatch:
		return 4
	case http.MethodDelete:
		return 5
	case http.MethodOptions:
		return 6
	}
	return len(methodLabels) - 1
}
