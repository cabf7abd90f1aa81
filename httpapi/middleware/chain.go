// Package middleware is what every request of the HTTP API passes
// through, in this order: a request id (X-Request-Id), one log line, the
// Prometheus metrics, recovery from a panic (a 500 Problem), the
// per-address rate limit (429 with Retry-After) and CORS (every origin;
// preflights answered 204). It also keeps the per-agent limit that the
// board's writes take ([Chain.LimitAgent]), so that both limits share one
// configuration ([RateLimit]) and, with [RateLimit.Shared], one store
// across replicas.
//
// httpapi.New builds the chain around its router; an embedder configures
// it through httpapi.Options and need not use this package directly.
package middleware

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure [New].
type Options struct {
	// Logger receives one line per request, panics and the shared rate
	// limit store's outages. Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of the rate limits. Nil means time.Now.
	Now func() time.Time
	// TrustProxy makes the per-address limit count the last address of
	// X-Forwarded-For (the one the proxy appended) instead of the peer's.
	TrustProxy bool
	// RateLimit configures the limits; its zero value applies the defaults.
	RateLimit RateLimit
	// Metrics turns the Prometheus metrics on ([Chain.MetricsHandler]).
	Metrics bool
	// Collectors are more metrics to register (the board's).
	Collectors []prometheus.Collector
	// Router holds the routes: it gives the Allow header of preflights
	// and the route label of the metrics: call [Chain.LabelRoutes] once
	// every route is registered (or register [RouteTemplate] on it).
	Router *mux.Router
	// WriteError writes err as the API's Problem (a panic's 500, a 429).
	WriteError func(w http.ResponseWriter, r *http.Request, err error)
}

// Chain is the middleware of one server: its limiters and its metrics
// registry (two servers in one process share neither).
type Chain struct {
	opt     Options
	log     *slog.Logger
	now     func() time.Time
	router  *mux.Router
	limits  *limits  // nil when rate limits are off
	metrics *metrics // nil without metrics
	// unmatched is the route label of requests that match no route.
	unmatched *routeLabel
}

// New returns the chain configured by opt.
func New(opt Options) *Chain {
	s := &Chain{opt: opt, log: opt.Logger, now: opt.Now, router: opt.Router, unmatched: &routeLabel{template: unmatchedRoute}}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.limits = newLimits(opt.RateLimit, s.log)
	s.metrics = newMetrics(s)
	return s
}

// Wrap returns h behind the chain. It wraps the router rather than being
// added with Router.Use, so that it also covers the 404 and 405 answers
// and OPTIONS preflights, which match no route.
func (s *Chain) Wrap(h http.Handler) http.Handler {
	return s.requestID(s.logRequests(s.observe(s.recoverPanics(s.limitAddress(s.cors(h))))))
}
