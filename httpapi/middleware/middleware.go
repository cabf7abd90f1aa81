package middleware

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/mux"
)

type ctxKey int

const requestIDKey ctxKey = 0

// requestInfo is what the middleware records about a request, in its
// context under requestIDKey: one context value and one copy of the
// request for both the ID and the route label.
type requestInfo struct {
	id    string
	route string // the matched route's template, for the metrics (see setRoute)
	// start is when the chain took the request: the clock read once for
	// the log line, the metrics and the per-address limit.
	start time.Time
	// elapsed is the request's duration, once observe has taken it, so
	// that the log line and the metrics agree and the clock is read once
	// more, not twice.
	elapsed time.Duration
	// rec is the response's recorder, allocated with the rest.
	rec recorder
}

// infoOf returns the requestInfo of r's context, or nil outside requestID.
func infoOf(r *http.Request) *requestInfo {
	info, _ := r.Context().Value(requestIDKey).(*requestInfo)
	return info
}

// RequestID returns the request's ID (the X-Request-Id header of the
// response), or "" outside a request served through a [Chain].
func RequestID(ctx context.Context) string {
	if info, _ := ctx.Value(requestIDKey).(*requestInfo); info != nil {
		return info.id
	}
	return ""
}

// validRequestID limits which client-sent IDs are echoed back and logged.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// requestID takes the client's X-Request-Id when it is short and plain,
// else makes a UUIDv7, and sets it on the response.
func (s *Chain) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !validRequestID.MatchString(id) {
			if u, err := uuid.NewV7(); err == nil {
				id = u.String()
			} else {
				id = uuid.NewString()
			}
		}
		w.Header()["X-Request-Id"] = []string{id}
		info := &requestInfo{id: id, route: unmatchedRoute, start: time.Now()}
		info.rec.ResponseWriter = w
		next.ServeHTTP(&info.rec, r.WithContext(context.WithValue(r.Context(), requestIDKey, info)))
	})
}

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (rw *recorder) WriteHeader(code int) {
	if rw.status == 0 {
		rw.status = code
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	n, err := rw.ResponseWriter.Write(b)
	rw.bytes += n
	return n, err
}

// Flush lets streaming handlers (the MCP adapter) flush through the recorder.
func (rw *recorder) Flush() {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	http.NewResponseController(rw.ResponseWriter).Flush() //nolint:errcheck // best effort
}

// Unwrap gives http.ResponseController access to the underlying writer.
func (rw *recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// logRequests writes one log line per request: method, path, status,
// duration, bytes and request ID.
func (s *Chain) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r)
		if info == nil { // not under requestID
			info = &requestInfo{start: time.Now()}
		}
		rw, ok := w.(*recorder)
		if !ok {
			rw = &recorder{ResponseWriter: w}
		}
		next.ServeHTTP(rw, r)
		status := rw.status
		if status == 0 {
			status = http.StatusOK
		}
		elapsed := info.elapsed
		if elapsed == 0 {
			elapsed = time.Since(info.start)
		}
		s.log.LogAttrs(r.Context(), levelFor(status), "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Duration("duration", elapsed),
			slog.Int("bytes", rw.bytes), slog.String("request_id", info.id))
	})
}

// recoverPanics turns a panic into a 500 Problem; the panic and its stack
// go to the log only.
func (s *Chain) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw, ok := w.(*recorder)
		if !ok {
			rw = &recorder{ResponseWriter: w}
		}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "panic", "request_id", RequestID(r.Context()),
				"method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if rw.status == 0 {
				s.opt.WriteError(rw, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(rw, r)
	})
}

// CORS: the API is open to every origin and needs no cookies.
const (
	corsAllowHeaders  = "Content-Type, Authorization, Idempotency-Key, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, X-Request-Id"
	corsExposeHeaders = "Mcp-Session-Id, X-Settings-Notes, X-Request-Id, Retry-After, WWW-Authenticate, Idempotency-Replayed"
)

// setCORS sets the headers every response carries.
func setCORS(h http.Header) {
	// The keys are canonical and the values shared: Header.Set would
	// canonicalize the key and allocate a slice for every response. A
	// handler that sets either header replaces the slice; Add appends
	// to a full slice, so copies it.
	h["Access-Control-Allow-Origin"] = corsOrigin
	h["Access-Control-Expose-Headers"] = corsExpose
}

var (
	corsOrigin = []string{"*"}[:1:1]
	corsExpose = []string{corsExposeHeaders}[:1:1]
)

// cors allows every origin and answers preflight (OPTIONS) requests with
// 204 for every path that has routes; OPTIONS on an unknown path is a 404.
func (s *Chain) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		setCORS(h)
		if r.Method == http.MethodOptions {
			if allow := s.Allowed(r); len(allow) > 0 {
				methods := strings.Join(allow, ", ")
				h.Set("Allow", methods)
				h.Set("Access-Control-Allow-Methods", methods)
				h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
				h.Set("Access-Control-Max-Age", "86400")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// candidateMethods are tried, in this order, to build Allow.
var candidateMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// Allowed lists the methods the path of r has routes for, plus OPTIONS;
// nil when the path is unknown.
func (s *Chain) Allowed(r *http.Request) []string {
	var out []string
	for _, m := range candidateMethods {
		rr := r.WithContext(r.Context())
		rr.Method = m
		var match mux.RouteMatch
		if s.router.Match(rr, &match) && match.MatchErr == nil {
			out = append(out, m)
		}
	}
	if len(out) > 0 {
		out = append(out, http.MethodOptions)
	}
	return out
}

// levelFor logs server faults as errors and everything else as information.
func levelFor(status int) slog.Level {
	if status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}
