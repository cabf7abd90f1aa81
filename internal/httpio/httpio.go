// Package httpio reads requests and writes answers for the service's HTTP
// adapters (httpapi, the calculation tools; boardapi, the agent board), so
// that both read strictly in one way and answer in one shape: a JSON body
// of at most [MaxBodyBytes], a query string of at most [MaxQueryBytes],
// client errors as an [*Error] whose sentinel decides the status
// ([StatusOf]), and every answer written whole with its length.
//
// It also holds what an adapter needs from the server that mounts it
// ([Host]) and the description of a route that the server publishes
// ([Route]).
package httpio

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/predictions-md/predictions/internal/tools"
)

// Limits of a request.
const (
	// MaxBodyBytes is the largest JSON body accepted (64 KB); a larger body gets 413.
	MaxBodyBytes = 64 << 10
	// MaxQueryBytes is the largest raw query string accepted; a longer one
	// gets 414 with a hint to send the same input as a POST body.
	MaxQueryBytes = 64 << 10
)

// JSONType is the media type of every JSON answer.
const JSONType = "application/json"

// Sentinel errors of the adapters. Each maps to one status in [StatusOf].
var (
	// ErrBadRequest is bad input found before a tool or route runs: a body
	// that is not one JSON object, a duplicate key, a malformed query
	// string. 400.
	ErrBadRequest = errors.New("bad request")
	// ErrNotFound is an unknown path or id. 404.
	ErrNotFound = errors.New("not found")
	// ErrMethodNotAllowed is a known path with a method it does not serve. 405.
	ErrMethodNotAllowed = errors.New("method not allowed")
	// ErrTooLarge is a body over its limit. 413.
	ErrTooLarge = errors.New("request body too large")
	// ErrQueryTooLong is a query string over [MaxQueryBytes]. 414.
	ErrQueryTooLong = errors.New("query string too long")
	// ErrMediaType is a body whose Content-Type is not the one the route reads. 415.
	ErrMediaType = errors.New("unsupported media type")
	// ErrUnauthorized is a request without a usable Authorization header.
	// 401, with WWW-Authenticate.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden is an Authorization that does not allow the request. 403.
	ErrForbidden = errors.New("forbidden")
	// ErrRateLimited is a request over a rate limit. 429, with Retry-After.
	ErrRateLimited = errors.New("too many requests")
)

// UnavailableRetry is the Retry-After, in seconds, of a 503 (the
// database is unavailable), on the API and on the pages alike: long
// enough for a database restart or a failover to start, short enough
// that a client does not give up.
const UnavailableRetry = 5

// statusTable is where the adapters' errors become statuses: the first
// entry whose error matches (errors.Is) gives the status. An adapter with
// errors of its own (the board's) gives them a status with [WithStatus].
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
}

// StatusOf returns the HTTP status for err: 200 for nil, the status given
// by [WithStatus], else that of the first matching sentinel, else 500.
func StatusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.status
	}
	for _, row := range statusTable {
		if errors.Is(err, row.err) {
			return row.status
		}
	}
	return http.StatusInternalServerError
}

// WithStatus returns err with the HTTP status an adapter gives it (its own
// table of domain errors), read by [StatusOf]; errors.Is and errors.As
// still see err. It returns nil for nil.
func WithStatus(err error, status int) error {
	if err == nil {
		return nil
	}
	return &statusError{err: err, status: status}
}

type statusError struct {
	err    error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// Error is a client error found by an adapter, with what the Problem body
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

// Handler is a handler that returns its error instead of writing it; the
// server writes it as a Problem in one place ([Host.Handle]).
type Handler func(w http.ResponseWriter, r *http.Request) error

// Marshal encodes v as JSON without escaping <, > and &, and without a
// trailing newline, as the envelope of every answer ends: by
// [tools.AppendJSON], with the library that reads the requests and writes
// the answers.
func Marshal(v any) ([]byte, error) {
	b, err := tools.AppendJSON(nil, v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Document encodes v as a published document (openapi.json, the
// manifest): as Marshal does, ending with a newline as a file does.
func Document(v any) ([]byte, error) {
	b, err := Marshal(v)
	return append(b, '\n'), err
}

// WriteBody writes a complete body, already encoded, with its status.
func WriteBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	// Map assignments of canonical keys (net/http.CanonicalHeaderKey)
	// and, for the fixed values, of shared slices: Header.Set would
	// canonicalize each key again and allocate each slice. A later Set or
	// Del replaces a shared slice; Add appends to a full one, so copies it.
	if contentType == JSONType {
		h["Content-Type"] = jsonTypeHeader
	} else {
		h["Content-Type"] = []string{contentType}
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	h["X-Content-Type-Options"] = nosniffHeader
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Header values shared by every answer: full slices (see WriteBody).
var (
	jsonTypeHeader = []string{JSONType}[:1:1]
	nosniffHeader  = []string{"nosniff"}[:1:1]
)

// WriteJSON encodes v, then writes it with its status.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	body, err := Marshal(v)
	if err != nil {
		return err
	}
	WriteBody(w, status, JSONType, body)
	return nil
}

// ReadObject reads a POST body: Content-Type, if present, must be JSON
// (415); the body must fit in [MaxBodyBytes] (413, at once when the
// Content-Length says so). What it holds is checked by the one decoder,
// [tools.Decode], as it reads the body into the typed input (400).
func ReadObject(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if err := checkMediaType(ct); err != nil {
			return nil, err
		}
	}
	tooLarge := func(problem string) *Error {
		return &Error{Field: "body", Err: ErrTooLarge, Problem: problem,
			Hint: "send at most 65536 bytes: shorten the text or split the input over several requests"}
	}
	if r.ContentLength > MaxBodyBytes {
		// Answer before reading: a client announcing more than the limit
		// is refused without waiting for (or reading) what it sends.
		return nil, tooLarge(fmt.Sprintf("is %d bytes long (Content-Length); the limit is %d bytes (64 KB)", r.ContentLength, MaxBodyBytes))
	}
	b, err := readAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes), r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(fmt.Sprintf("is larger than the limit of %d bytes (64 KB)", MaxBodyBytes))
		}
		return nil, &Error{Field: "body", Problem: "could not be read: " + err.Error(),
			Hint: "send the whole body with its Content-Length", Err: ErrBadRequest}
	}
	return b, nil
}

// readAll is io.ReadAll with a buffer sized for the announced length
// (size, -1 when unknown), so that a large body is read without growing
// the buffer step by step. The length is only a hint: the reader bounds
// what is read.
func readAll(r io.Reader, size int64) ([]byte, error) {
	n := 512
	if size > 0 && size < MaxBodyBytes {
		n = int(size) + 1 // one more, so that io.EOF comes without a grow
	}
	b := make([]byte, 0, n)
	for {
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next size
		}
	}
}

func checkMediaType(ct string) error {
	if ct == JSONType { // as nearly every client sends it: nothing to parse
		return nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && mt == JSONType {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	return &Error{Field: "Content-Type", Err: ErrMediaType,
		Problem: fmt.Sprintf("is %q; the tools read JSON only", ct),
		Hint:    "send the body as JSON with Content-Type: application/json (charset utf-8 if any), or use GET with query parameters"}
}

// ParseQuery parses the raw query strictly: a malformed escape is a 400
// rather than a silently dropped parameter, and text that is not UTF-8
// once decoded is a 400 rather than silently replaced.
func ParseQuery(r *http.Request) (url.Values, error) {
	if len(r.URL.RawQuery) > MaxQueryBytes {
		return nil, &Error{Field: "query", Err: ErrQueryTooLong,
			Problem: fmt.Sprintf("is %d bytes long; the limit is %d", len(r.URL.RawQuery), MaxQueryBytes),
			Hint:    "send the same input as a JSON body with POST (up to 64 KB)"}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, &Error{Field: "query", Err: ErrBadRequest,
			Problem: "is not a valid query string: " + err.Error(),
			Hint:    "URL-encode each value, for example %2B150 for +150 and %25 for %"}
	}
	// Percent-decoding may yield any bytes; the tools and the board read
	// text, and encoding/json would silently turn bad bytes into U+FFFD.
	for k, vs := range q {
		field := k
		if !utf8.ValidString(k) {
			field = "query"
		}
		for _, v := range append([]string{k}, vs...) {
			if !utf8.ValidString(v) {
				return nil, &Error{Field: field, Err: ErrBadRequest,
					Problem: "is not valid UTF-8 once URL-decoded",
					Hint:    "percent-encode the UTF-8 bytes of the text, for example %C3%A9 for é"}
			}
		}
	}
	return q, nil
}

// HeaderSafe replaces control characters, which may not appear in a header.
func HeaderSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
