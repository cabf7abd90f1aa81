package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// routes registers every route of the service. It is the only file that
// names paths. A route's name is the llms.txt anchor its Problems link to.
func (s *Server) routes() {
	r := s.router
	// Match paths as sent: no 301 from /a/../b to /b, so that a dot-dot or
	// an encoded slash in an id is a 404 Problem rather than a redirect
	// that turns a POST into a GET elsewhere.
	r.SkipClean(true)
	r.NotFoundHandler = s.handle(s.notFound)
	r.MethodNotAllowedHandler = s.handle(s.methodNotAllowed)

	get := []string{http.MethodGet, http.MethodHead}

	// Calculation tools and the settings catalog. They come first because
	// gorilla/mux tries the routes in the order they were added, each
	// with its regular expression, and the tools are the service's most
	// called routes; no other route's path overlaps theirs, so the order
	// changes no match.
	r.Handle(tools.PathPrefix+"/settings", s.handle(s.settings)).Methods(get...).Name("settings")
	for _, t := range tools.All() {
		p := tools.PathPrefix + "/" + t.Name
		r.Handle(p, s.handle(s.toolPOST(t))).Methods(http.MethodPost).Name(t.Name)
		r.Handle(p, s.handle(s.toolGET(t))).Methods(get...).Name(t.Name)
	}

	// Pages and published descriptions. Pages that write (a signed-in
	// person's forms) take the same per-forecaster write limit as the
	// board's routes.
	if p, ok := s.opt.Pages.(interface{ SetHost(httpio.Host) }); ok {
		p.SetHost(host{s})
	}
	if p := s.opt.Pages; p != nil {
		for _, pattern := range p.Patterns() {
			method, path, _ := strings.Cut(pattern, " ")
			methods := []string{method}
			if method == http.MethodGet {
				methods = get
			}
			r.Handle(strings.TrimSuffix(path, "{$}"), p).Methods(methods...)
		}
	} else {
		r.Handle("/", s.handle(s.landing)).Methods(get...)
	}
	if s.opt.Pages == nil || !slices.Contains(s.opt.Pages.Patterns(), "GET /terms") {
		r.Handle("/terms", s.handle(s.termsPage)).Methods(get...)
	}
	r.Handle("/healthz", s.handle(s.healthz)).Methods(get...)
	if s.opt.Metrics == MetricsHere {
		r.Handle(MetricsPath, s.MetricsHandler()).Methods(get...)
	}
	r.Handle("/openapi.json", s.handle(s.openAPI)).Methods(get...)
	r.Handle("/llms.txt", s.handle(s.llmsTxt)).Methods(get...)
	r.Handle(LLMsFullPath, s.handle(s.llmsFullTxt)).Methods(get...)
	r.Handle(ManifestPath, s.handle(s.manifest)).Methods(get...)
	r.Handle("/"+tools.Name+".md", s.handle(s.skillFile)).Methods(get...).Name("skill-file")

	// MCP adapter: POST only. The streamable HTTP transport answers GET
	// (a stream the stateless server never opens) and DELETE (a session it
	// never keeps) with 405, so the route says so itself, and a preflight's
	// Allow lists only what works.
	if s.opt.MCP != nil {
		r.Handle("/mcp", s.opt.MCP).Methods(http.MethodPost)
	}

	// Agent board (package boardapi): its routes, lent this server's error
	// writing, address and agent rate limit.
	if s.opt.Board != nil {
		s.opt.Board.Mount(r, host{s})
	}
}

// host is what the server lends the board's routes (httpio.Host).
type host struct{ s *Server }

func (h host) Handle(fn httpio.Handler) http.Handler { return h.s.handle(fn) }
func (h host) BaseURL(r *http.Request) string        { return h.s.baseURL(r) }
func (h host) LimitAgent(w http.ResponseWriter, r *http.Request, agentID string) (func(), error) {
	return h.s.chain.LimitAgent(w, r, agentID)
}
func (h host) LimitRegistration(w http.ResponseWriter, r *http.Request) (func(), error) {
	return h.s.chain.LimitRegistration(w, r)
}

// toolRoutes answers the requests of the calculation tools' routes and
// the settings catalog, the service's most called, as the router would
// but without it: gorilla/mux tries the routes' regular expressions in
// turn, then copies the request twice to put the route and its variables
// (these routes have none) in its context. A path of the table with a
// method it has no route for (405 with Allow), and every other path, go
// to the router.
type toolRoutes struct {
	byPath map[string]*toolRoute
	router http.Handler
}

// toolRoute is a path's handlers by method: GET, HEAD, POST.
type toolRoute struct{ get, head, post http.Handler }

// newToolRoutes takes from router the routes that the table serves:
// those named after a tool or "settings", with a path template without
// variables. They were added first and match on path and method alone
// (see routes), so that the router's answer to their path and method is
// theirs; newToolRoutes checks that it is. Call it once the routes have
// their final handlers (after Chain.LabelRoutes).
func newToolRoutes(router *mux.Router) (*toolRoutes, error) {
	names := map[string]bool{"settings": true}
	for _, t := range tools.All() {
		names[t.Name] = true
	}
	t := &toolRoutes{byPath: map[string]*toolRoute{}, router: router}
	err := router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		if !names[route.GetName()] {
			return nil
		}
		path, err := route.GetPathTemplate()
		if err != nil || strings.ContainsAny(path, "{}") {
			return fmt.Errorf("route %q: path %q: not served without the router", route.GetName(), path)
		}
		methods, err := route.GetMethods()
		if err != nil {
			return fmt.Errorf("route %q: %w", route.GetName(), err)
		}
		tr := t.byPath[path]
		if tr == nil {
			tr = &toolRoute{}
			t.byPath[path] = tr
		}
		for _, m := range methods {
			var match mux.RouteMatch
			if !router.Match(&http.Request{Method: m, URL: &url.URL{Path: path}, Header: http.Header{}}, &match) ||
				match.MatchErr != nil || match.Route != route {
				return fmt.Errorf("route %q: the router does not match %s %s to it", route.GetName(), m, path)
			}
			switch m {
			case http.MethodGet:
				tr.get = route.GetHandler()
			case http.MethodHead:
				tr.head = route.GetHandler()
			case http.MethodPost:
				tr.post = route.GetHandler()
			default:
				return fmt.Errorf("route %q: method %s not served without the router", route.GetName(), m)
			}
		}
		return nil
	})
	return t, err
}

func (t *toolRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if tr := t.byPath[r.URL.Path]; tr != nil {
		var h http.Handler
		switch r.Method {
		case http.MethodGet:
			h = tr.get
		case http.MethodHead:
			h = tr.head
		case http.MethodPost:
			h = tr.post
		}
		if h != nil {
			h.ServeHTTP(w, r)
			return
		}
	}
	t.router.ServeHTTP(w, r)
}
