package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/predictions-md/predictions/httpapi/middleware"

	"github.com/gorilla/mux"
	"github.com/predictions-md/predictions/internal/apidoc"
	"github.com/predictions-md/predictions/internal/baseurl"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/prometheus/client_golang/prometheus"
)

// Limits of the HTTP adapter.
const (
	// MaxBodyBytes is the largest POST body accepted (64 KB); a larger body gets 413.
	MaxBodyBytes = httpio.MaxBodyBytes
	// MaxQueryBytes is the largest raw query string a GET may carry; a longer one
	// gets 414 with a hint to send the same input as a POST body.
	MaxQueryBytes = httpio.MaxQueryBytes
	// ManifestPath is where the manifest is published.
	ManifestPath = apidoc.ManifestPath
	// LLMsFullPath is where the full text for agents is published; llms.txt
	// links its sections.
	LLMsFullPath = apidoc.LLMsFullPath
	// DefaultContact is the contact published in the manifest and openapi.json
	// when [Options.Contact] is empty.
	DefaultContact = "https://github.com/predictions-md/predictions/issues"
)

// Options configure [New]. The zero value serves every calculation tool and
// published document, with the base URL taken from each request.
type Options struct {
	// BaseURL is the public address of the service, such as
	// "https://predictions.example.org", without a trailing slash. Empty means
	// the scheme and host of each request.
	BaseURL string
	// TrustProxy makes an empty BaseURL honour X-Forwarded-Proto and
	// X-Forwarded-Host, and the per-address rate limit count the last
	// address of X-Forwarded-For (the one the proxy appended). Leave it
	// false unless a reverse proxy you run sets (and overwrites) those
	// headers.
	TrustProxy bool
	// Logger receives one line per request and the detail of every 500.
	// Nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock (used by /healthz and the rate limits). Nil means
	// time.Now.
	Now func() time.Time
	// MCP, when non-nil, is mounted at /mcp (the MCP adapter's handler).
	// httpapi does not import the MCP adapter; cmd/predictions wires it.
	MCP http.Handler
	// Board, when non-nil, serves the agent board (the board's adapter,
	// *boardapi.API) and publishes its routes in openapi.json, llms.txt
	// and the manifest; /healthz then checks its database. httpapi imports
	// neither the board nor a database driver; cmd/predictions wires it.
	Board Board
	// Contact is published in the manifest and openapi.json: an address (URL
	// or mailto:) where people reach the operator. Empty means [DefaultContact].
	Contact string
	// RateLimit configures the rate limits. The zero value applies
	// [middleware.DefaultAgentRate] and [middleware.DefaultAddressRate];
	// set Off to turn them off.
	RateLimit middleware.RateLimit
	// Metrics says where the Prometheus metrics are served. The zero
	// value, [MetricsHere], serves them at [MetricsPath].
	Metrics Metrics
	// Pages, when non-nil, serves the pages for people (the web adapter's
	// *web.Pages): the requests its Patterns list. Nil keeps the plain
	// landing page at /. httpapi does not import the web adapter;
	// cmd/predictions wires it.
	Pages Pages
}

// Pages is a handler of pages for people that lists the requests it
// serves as [http.ServeMux] patterns ("GET /agents/{id}"; GET also
// matches HEAD; "{$}" ends an exact path) and shows the API's errors to
// browsers in the site's layout (ServeError). *web.Pages implements it.
type Pages interface {
	http.Handler
	Patterns() []string
	ServeError(w http.ResponseWriter, r *http.Request, status int, message, hint string)
}

// Board is the agent board's HTTP adapter, served and published beside
// the calculation tools: *boardapi.API implements it.
type Board interface {
	// Mount registers the board's routes on r. h lends the server's error
	// writing, public address and per-agent rate limit.
	Mount(r *mux.Router, h httpio.Host)
	// The board's part of openapi.json, the manifest, llms.txt and
	// llms-full.txt.
	apidoc.Routes
	// Health reports whether the board's database accepts writes, for
	// /healthz.
	Health(ctx context.Context) error
	// Collector is the board's Prometheus metrics (its database pools and
	// outbox); nil for none.
	Collector() prometheus.Collector
	// KeyAuth reports whether agents authenticate with registered keys
	// (serve --auth keys) rather than their agent id: the skill file
	// teaches the one in force.
	KeyAuth() bool
}

// Server is the HTTP API. It is an http.Handler; build it with [New].
type Server struct {
	opt     Options
	log     *slog.Logger
	now     func() time.Time
	router  *mux.Router
	handler http.Handler
	chain   *middleware.Chain
	tools   *toolRoutes // the tools' routes, served before the router

	// Published documents, per base URL.
	openapiDocs, llmsDocs, llmsFullDocs, manifestDocs docCache
}

// New returns the HTTP API configured by opt.
func New(opt Options) *Server {
	s := &Server{opt: opt, log: opt.Logger, now: opt.Now}
	s.opt.BaseURL = strings.TrimRight(opt.BaseURL, "/")
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.opt.Contact == "" {
		s.opt.Contact = DefaultContact
	}
	s.router = mux.NewRouter()
	mo := middleware.Options{Logger: s.log, Now: s.now, TrustProxy: opt.TrustProxy, RateLimit: opt.RateLimit,
		Metrics: opt.Metrics != MetricsOff, Router: s.router, WriteError: s.writeError}
	if opt.Board != nil {
		if c := opt.Board.Collector(); c != nil {
			mo.Collectors = append(mo.Collectors, c)
		}
	}
	s.chain = middleware.New(mo)
	s.routes()
	// The chain wraps the router (see middleware.Chain.Wrap); each route
	// records its template for the metrics (LabelRoutes). The tools'
	// routes are served without the router (toolRoutes).
	if err := s.chain.LabelRoutes(); err != nil { // the callback returns none
		panic(err)
	}
	var err error
	s.tools, err = newToolRoutes(s.router)
	if err != nil { // routes registers them so: cannot happen
		panic(err)
	}
	s.handler = s.chain.Wrap(s.tools)
	return s
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// baseURL is the service's public address for this request.
func (s *Server) baseURL(r *http.Request) string {
	if b := tools.BaseURL(r.Context()); b != "" { // a tool call of the MCP adapter (MCPRoutes)
		return b
	}
	return baseurl.Of(r, s.opt.BaseURL, s.opt.TrustProxy)
}

// terms is the address of the terms of service.
func (s *Server) terms(r *http.Request) string { return s.baseURL(r) + "/terms" }
