package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/predictions-md/predictions/httpapi/middleware"

	"github.com/gorilla/mux"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// unavailableRetry is the Retry-After, in seconds, of a 503.
const unavailableRetry = httpio.UnavailableRetry

// Problem is the body of every error response.
type Problem = tools.Problem

// problemFor builds the Problem body for err and returns its status.
func (s *Server) problemFor(r *http.Request, err error) (int, Problem) {
	status := httpio.StatusOf(err)
	p := Problem{Docs: s.docsURL(r), Disclaimer: tools.Disclaimer, Terms: s.terms(r)}
	switch {
	case p.Explain(err):
	case status == http.StatusServiceUnavailable:
		p.Error = "database: is unavailable (down, unreachable or not accepting writes)"
		p.Hint = fmt.Sprintf("this is a fault of the service, not of your input: retry after %d s (the Retry-After header); "+
			"GET /healthz says when the database is back", unavailableRetry)
	case status == http.StatusInternalServerError:
		p.Error = "server: internal error"
		p.Hint = "this is a fault of the service, not of your input; try again later, and report it with the X-Request-Id if it persists"
	default:
		p.Error = http.StatusText(status)
	}
	return status, p
}

// docsURL links the llms.txt section of the matched tool, else llms.txt.
// The route is the chain's record of it (the tools' routes are served
// without the router: see toolRoutes), else the router's.
func (s *Server) docsURL(r *http.Request) string {
	name := middleware.RouteName(r.Context())
	if name == "" {
		if route := mux.CurrentRoute(r); route != nil {
			name = route.GetName()
		}
	}
	return tools.DocsURL(s.baseURL(r), name)
}

// writeError writes the Problem for err. Headers set before (Allow,
// WWW-Authenticate) are kept. The detail of a 500 goes only to the log.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r) {
		// Nobody reads this answer: its status is 499, as nginx logs a
		// request whose client closed the connection first, so that a
		// client that goes away counts neither as a fault of the service
		// (5xx) in /metrics and the log nor as its own error.
		w.WriteHeader(StatusClientClosed)
		return
	}
	status, p := s.problemFor(r, err)
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(unavailableRetry))
	}
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "request_id", middleware.RequestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "error", err.Error())
	}
	if s.opt.Pages != nil && wantsHTML(r) && status < 500 {
		s.opt.Pages.ServeError(w, r, status, p.Error, p.Hint)
		return
	}
	body, merr := httpio.Marshal(p)
	if merr != nil { // cannot happen: Problem holds strings only
		http.Error(w, `{"error":"server: internal error"}`, http.StatusInternalServerError)
		return
	}
	httpio.WriteBody(w, status, httpio.JSONType, body)
}

// StatusClientClosed is the status recorded (in /metrics and the log) of
// a request whose client went away before its answer: nginx's 499
// "client closed request". It is never read by a client.
const StatusClientClosed = 499

// clientGone reports whether r's client went away: net/http cancels the
// request's context when its connection closes (or its HTTP/2 stream is
// reset). A deadline of the server's own is not a client going away.
func clientGone(r *http.Request) bool {
	ctx := r.Context()
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled)
}

// handle wraps h so that its error is written in one place.
func (s *Server) handle(h httpio.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// wantsHTML reports whether the request prefers HTML to JSON: a browser
// navigating (Accept: text/html,...), not an API client (no Accept, */*,
// or application/json first). Read by the first type named, as browsers
// list HTML first.
func wantsHTML(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "text/html", "application/xhtml+xml":
			return true
		case "application/json", "application/problem+json":
			return false
		}
	}
	return false
}
