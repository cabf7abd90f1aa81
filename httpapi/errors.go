package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/tools"
)

// Sentinel errors of the adapter. Each maps to one status in [statusTable].
var (
	// ErrBadRequest is bad input found before a tool runs: a body that is not
	// one JSON object, a duplicate key, a malformed query string. 400.
	ErrBadRequest = errors.New("httpapi: bad request")
	// ErrNotFound is an unknown path. 404.
	ErrNotFound = errors.New("httpapi: not found")
	// ErrMethodNotAllowed is a known path with a method it does not serve. 405.
	ErrMethodNotAllowed = errors.New("httpapi: method not allowed")
	// ErrTooLarge is a body over [MaxBodyBytes]. 413.
	ErrTooLarge = errors.New("httpapi: request body too large")
	// ErrQueryTooLong is a query string over [MaxQueryBytes]. 414.
	ErrQueryTooLong = errors.New("httpapi: query string too long")
	// ErrMediaType is a body whose Content-Type is present and not JSON. 415.
	ErrMediaType = errors.New("httpapi: unsupported media type")
	// ErrUnauthorized is a board POST without a usable Authorization
	// header. 401, with WWW-Authenticate.
	ErrUnauthorized = errors.New("httpapi: unauthorized")
	// ErrForbidden is an Authorization that does not allow the request: a
	// bearer other than the body's agent_id, or not the moderator token. 403.
	ErrForbidden = errors.New("httpapi: forbidden")
	// ErrRateLimited is a request over a rate limit (see [RateLimit]). 429,
	// with Retry-After.
	ErrRateLimited = errors.New("httpapi: too many requests")
)

// unavailableRetry is the Retry-After, in seconds, of a 503: long enough
// for a database restart or a failover to start, short enough that a
// client does not give up.
const unavailableRetry = 5

// statusTable is the one place where errors become statuses: the first
// entry whose error matches (errors.Is) gives the status. Anything that
// matches none is a 500 whose detail goes only to the log. Add rows here
// (board errors, 401, 403, 409, 429) rather than writing statuses in handlers.
var statusTable = []struct {
	err    error
	status int
}{
	{tools.ErrInput, http.StatusBadRequest},
	{ErrBadRequest, http.StatusBadRequest},
	{ErrNotFound, http.StatusNotFound},
	{ErrMethodNotAllowed, http.StatusMethodNotAllowed},
	{ErrTooLarge, http.StatusRequestEntityTooLarge},
	{ErrQueryTooLong, http.StatusRequestURITooLong},
	{ErrMediaType, http.StatusUnsupportedMediaType},
	{ErrUnauthorized, http.StatusUnauthorized},
	{ErrForbidden, http.StatusForbidden},
	{ErrRateLimited, http.StatusTooManyRequests},
	{board.ErrConflict, http.StatusConflict},
	{board.ErrClosed, http.StatusConflict},
	{board.ErrInvalid, http.StatusBadRequest},
	{board.ErrNotFound, http.StatusNotFound},
	// A database that is down, cut off or not accepting writes: 503 with
	// Retry-After (see writeError), never the client's fault.
	{board.ErrUnavailable, http.StatusServiceUnavailable},
	{board.ErrLimit, http.StatusTooManyRequests},
	{board.ErrExpired, http.StatusGone},
	// Inbound e-mail (POST /api/inbound/email): a message that cannot be
	// read is bad input; one that is read but cannot be recorded (an
	// unknown sender, no prediction named, an auto-reply) is 422.
	{email.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{email.ErrMalformed, http.StatusBadRequest},
	{email.ErrNoText, http.StatusBadRequest},
	{email.ErrCharset, http.StatusBadRequest},
	{board.ErrUnknownSender, http.StatusUnprocessableEntity},
	{board.ErrUnmatched, http.StatusUnprocessableEntity},
	{board.ErrAutomatic, http.StatusUnprocessableEntity},
}

// StatusOf returns the HTTP status for err: 200 for nil, the status of the
// first matching row of the table, else 500.
func StatusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	for _, row := range statusTable {
		if errors.Is(err, row.err) {
			return row.status
		}
	}
	// The board knows its drivers: an error it did not classify itself
	// may still say that the database is unavailable.
	if errors.Is(board.Classify(err), board.ErrUnavailable) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// Error is a client error found by the adapter, with what the Problem body
// says: the field, what is wrong and how to fix it. Err is one of the
// sentinel errors above and decides the status.
type Error struct {
	// Field names what is wrong: "body", "forecasts[0].who", "Content-Type".
	Field string
	// Problem says what is wrong, without the field name.
	Problem string
	// Hint says how to fix it.
	Hint string
	// Err is the sentinel error that decides the status.
	Err error
}

// Error returns "field: problem".
func (e *Error) Error() string { return e.Field + ": " + e.Problem }

// Explain returns the field, the problem and the hint (see [tools.Explained]).
func (e *Error) Explain() (field, problem, hint string) { return e.Field, e.Problem, e.Hint }

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

// Problem is the body of every error response.
type Problem = tools.Problem

// problemFor builds the Problem body for err and returns its status.
func (s *Server) problemFor(r *http.Request, err error) (int, Problem) {
	status := StatusOf(err)
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
func (s *Server) docsURL(r *http.Request) string {
	name := ""
	if route := mux.CurrentRoute(r); route != nil {
		name = route.GetName()
	}
	return tools.DocsURL(s.baseURL(r), name)
}

// writeError writes the Problem for err. Headers set before (Allow,
// WWW-Authenticate) are kept. The detail of a 500 goes only to the log.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, p := s.problemFor(r, err)
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(unavailableRetry))
	}
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "request_id", RequestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "error", err.Error())
	}
	if s.opt.Pages != nil && wantsHTML(r) && status < 500 {
		s.opt.Pages.ServeError(w, r, status, p.Error, p.Hint)
		return
	}
	body, merr := marshal(p)
	if merr != nil { // cannot happen: Problem holds strings only
		http.Error(w, `{"error":"server: internal error"}`, http.StatusInternalServerError)
		return
	}
	writeBody(w, status, jsonType, body)
}

// marshal encodes v as JSON without escaping <, > and &, and without a
// trailing newline, as the envelope of every answer ends.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// document encodes v as a published document (openapi.json, the manifest):
// as marshal does, ending with a newline as a file does.
func document(v any) ([]byte, error) {
	b, err := marshal(v)
	return append(b, '\n'), err
}

// writeBody writes a complete body, already encoded, with its status.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle wraps h so that its error is written in one place.
func (s *Server) handle(h handlerFunc) http.Handler {
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
