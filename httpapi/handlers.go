package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/predictions-md/predictions/internal/tools"
)

// toolGET runs t with the input taken from the query string.
func (s *Server) toolGET(t *tools.Tool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := parseQuery(r)
		if err != nil {
			return err
		}
		raw, err := t.FromQuery(q)
		if err != nil {
			return err
		}
		return s.run(w, r, t, raw)
	}
}

// toolPOST runs t with the JSON body as input.
func (s *Server) toolPOST(t *tools.Tool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw, err := readObject(w, r)
		if err != nil {
			return err
		}
		return s.run(w, r, t, raw)
	}
}

func (s *Server) run(w http.ResponseWriter, r *http.Request, t *tools.Tool, raw []byte) error {
	res, err := t.Call(tools.WithBaseURL(r.Context(), s.baseURL(r)), raw)
	if err != nil {
		return err
	}
	return s.writeResult(w, r, res)
}

func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, res *tools.Result) error {
	buf := envelopes.Get().(*[]byte)
	body, err := res.AppendEnvelope((*buf)[:0], s.terms(r))
	if err != nil {
		envelopes.Put(buf)
		return err
	}
	writeBody(w, http.StatusOK, jsonType, body)
	// The writer has copied body (to the connection's buffer, or to the
	// socket) by now; keep the buffer unless an outsized answer grew it.
	if cap(body) <= maxPooledEnvelope {
		*buf = body
		envelopes.Put(buf)
	}
	return nil
}

// envelopes holds buffers for the answers of the tools, which are written
// once per request and then dropped.
var envelopes = sync.Pool{New: func() any {
	b := make([]byte, 0, 4<<10)
	return &b
}}

// maxPooledEnvelope is the largest buffer envelopes keeps: the answers of
// check_forecast_md can reach megabytes, and would be kept for little use.
const maxPooledEnvelope = 64 << 10

// settings serves the settings catalog. It takes no parameters, but a
// malformed or overlong query gets the same 400 or 414 as elsewhere.
func (s *Server) settings(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	return s.writeResult(w, r, tools.SettingsCatalog())
}

// skillFile serves the skill file with the query's settings written in.
// Clamped or ignored settings are listed in X-Settings-Notes, separated by
// "; ", with control characters replaced by spaces.
func (s *Server) skillFile(w http.ResponseWriter, r *http.Request) error {
	q, err := parseQuery(r)
	if err != nil {
		return err
	}
	md, notes := tools.SkillFile(s.baseURL(r), q, s.opt.Board != nil)
	if len(notes) > 0 {
		w.Header().Set("X-Settings-Notes", headerSafe(strings.Join(notes, "; ")))
	}
	writeBody(w, http.StatusOK, "text/markdown; charset=utf-8", md)
	return nil
}

// healthz answers 200 while the server runs and, with a board, while its
// database accepts writes (or answers a ping, for a board that cannot
// check writes); 503 (status "unavailable") with Retry-After when not.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	status, code, db := "ok", http.StatusOK, ""
	if s.opt.Board != nil {
		db = "ok"
		if err := s.healthBoard(r.Context()); err != nil {
			s.log.ErrorContext(r.Context(), "database check failed", "request_id", RequestID(r.Context()), "error", err.Error())
			status, code, db = "unavailable", http.StatusServiceUnavailable, "unavailable"
			w.Header().Set("Retry-After", strconv.Itoa(unavailableRetry))
		}
	}
	return s.writeJSON(w, code, health{status, db, tools.Version, s.now().UTC().Format(time.RFC3339), tools.Disclaimer, s.terms(r)})
}

// health is the answer of /healthz.
type health struct {
	Status     string `json:"status" jsonschema:"ok, or unavailable when the board's database does not accept writes"`
	Database   string `json:"database,omitempty" jsonschema:"ok or unavailable; absent without a board"`
	Version    string `json:"version" jsonschema:"the service's version"`
	Time       string `json:"time" jsonschema:"the server's clock, RFC 3339 UTC"`
	Disclaimer string `json:"disclaimer"`
	Terms      string `json:"terms" jsonschema:"address of the terms of service"`
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	return &Error{Field: "path", Err: ErrNotFound,
		Problem: fmt.Sprintf("%s does not exist", r.URL.Path),
		Hint:    fmt.Sprintf("the tools are under %s/<tool> (%s); see %s/llms.txt", tools.PathPrefix, strings.Join(tools.Names(), ", "), s.baseURL(r))}
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	allow := s.allowed(r)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	return &Error{Field: "method", Err: ErrMethodNotAllowed,
		Problem: fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path),
		Hint:    "use " + strings.Join(allow, ", ")}
}

// writeJSON encodes v into a buffer, then writes it.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := marshal(v)
	if err != nil {
		return err
	}
	writeBody(w, status, jsonType, body)
	return nil
}

// parseQuery parses the raw query strictly: a malformed escape is a 400
// rather than a silently dropped parameter.
func parseQuery(r *http.Request) (url.Values, error) {
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

// headerSafe replaces control characters, which may not appear in a header.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
