package middleware

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
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
	// Context is the request's context: requestInfo is the context
	// value itself (see Value), which saves context.WithValue's node.
	context.Context
	id string
	// idHeader is the X-Request-Id header's value, held here so that
	// setting the header allocates nothing more.
	idHeader [1]string
	route    *routeLabel // the matched route, for the metrics (see labelRoute)
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

// Value makes a requestInfo the context value of requestIDKey (see
// context.WithValue: comparable key, one value); other keys go to the
// request's context. Deadline, Done and Err are the request context's.
func (info *requestInfo) Value(key any) any {
	if key == any(requestIDKey) {
		return info
	}
	return info.Context.Value(key)
}

// withInfo returns r with info as its context, info's parent being r's.
func withInfo(r *http.Request, info *requestInfo) *http.Request {
	info.Context = r.Context()
	return r.WithContext(info)
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
		if id == "" || !validRequestID.MatchString(id) { // most requests send none: no regexp run
			if u, err := uuid.NewV7(); err == nil {
				id = u.String()
			} else {
				id = uuid.NewString()
			}
		}
		info := &requestInfo{id: id, idHeader: [1]string{id}, route: s.unmatched, start: time.Now()}
		// A map assignment of the canonical key: Header.Set would
		// canonicalize it again and allocate the slice.
		w.Header()["X-Request-Id"] = info.idHeader[:1:1]
		info.rec.ResponseWriter = w
		next.ServeHTTP(&info.rec, withInfo(r, info))
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
		s.logRequest(r.Context(), levelFor(status),
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Duration("duration", elapsed),
			slog.Int("bytes", rw.bytes), slog.String("request_id", info.id))
	})
}

// requestLinePC is the program counter of logRequest's one caller, taken
// on the first request: the record's source, as Logger.LogAttrs would
// give it, without runtime.Callers on every request.
var requestLinePC atomic.Uintptr

// logRequest writes the request's log line as s.log.LogAttrs(ctx, level,
// "request", attrs...) does, following the slog documentation's
// "Wrapping output methods": a record with the caller's program counter,
// given to the handler when it is enabled at level.
func (s *Chain) logRequest(ctx context.Context, level slog.Level, attrs ...slog.Attr) {
	h := s.log.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	pc := requestLinePC.Load()
	if pc == 0 {
		var pcs [1]uintptr
		runtime.Callers(2, pcs[:]) // skip runtime.Callers and logRequest
		pc = pcs[0]
		requestLinePC.Store(pc)
	}
	rec := slog.NewRecord(time.Now(), level, "request", pc)
	rec.AddAttrs(attrs...)
	_ = h.Handle(ctx, rec) // as Logger.LogAttrs, which ignores the handler's error
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
