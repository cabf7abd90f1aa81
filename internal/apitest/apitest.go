// Package apitest serves the HTTP API in tests and checks every exchange
// against the server's own openapi.json (kin-openapi): the calculation
// tools' tests (package httpapi) and the board's (package boardapi) use
// the same environment.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/predictions-md/predictions/agentkey"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/webhooks"
)

func init() {
	openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// Discard is a logger that drops everything.
var Discard = slog.New(slog.DiscardHandler)

// Env is a server under test with its own openapi.json loaded by kin-openapi.
type Env struct {
	TS     *httptest.Server
	Doc    *openapi3.T // the server's openapi.json
	router routers.Router
}

// NoLimits turns the rate limits off, for tests and benchmarks that send
// bursts from one address (ratelimit_test.go tests the limits).
var NoLimits = middleware.RateLimit{Off: true}

// NewEnv serves httpapi.New(opt) with a quiet logger and, unless opt sets
// them, no rate limits; it loads and validates the server's openapi.json.
func NewEnv(t testing.TB, opt httpapi.Options) *Env {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = Discard
	}
	if opt.RateLimit == (middleware.RateLimit{}) {
		opt.RateLimit = NoLimits
	}
	ts := httptest.NewServer(httpapi.New(opt))
	t.Cleanup(ts.Close)
	resp, err := ts.Client().Get(ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc := loadDoc(t, b, ts.URL)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router from openapi.json: %v", err)
	}
	return &Env{TS: ts, Doc: doc, router: router}
}

// docs are the descriptions already loaded and validated, by their text
// without the server's address: servers that differ only by their port
// publish the same description, which kin-openapi loads and validates
// once (about a second under the race detector).
var docs sync.Map // string → *openapi3.T

// loadDoc loads and validates openapi.json (b), served at base.
func loadDoc(t testing.TB, b []byte, base string) *openapi3.T {
	t.Helper()
	key := strings.ReplaceAll(string(b), base, "")
	if d, ok := docs.Load(key); ok {
		doc := *d.(*openapi3.T) // the same description, at this server's address
		doc.Servers = openapi3.Servers{{URL: base}}
		return &doc
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json does not validate: %v", err)
	}
	docs.Store(key, doc)
	return doc
}

// ReqValid says what the request validation against openapi.json must give.
type ReqValid int

const (
	MustPass ReqValid = iota // a well-formed request
	MustFail                 // the description itself rejects it
	AnyValid                 // not asserted (e.g. a limit that only the tool checks)
	// Beyond is a request refused with 400 for a reason no schema can
	// state (two fields that exclude each other, a cursor another sort
	// made, a date in the past): the document allows it.
	Beyond
)

// Do sends a request, checks the headers every response carries, and
// validates request and response against openapi.json.
func (e *Env) Do(t *testing.T, method, target string, body []byte, header http.Header, rv ReqValid) (*http.Response, []byte) {
	t.Helper()
	newReq := func() *http.Request {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequest(method, e.TS.URL+target, rd)
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range header {
			for _, v := range vs {
				req.Header.Add(k, v) // canonical key, as a server reads it (Last-Event-ID is Last-Event-Id)
			}
		}
		if body != nil && req.Header.Get("Content-Type") == "" && header == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req
	}
	req := newReq()
	resp, err := e.TS.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if v := resp.Header.Get("Access-Control-Allow-Origin"); v != "*" {
		t.Errorf("%s %s: Access-Control-Allow-Origin = %q, want *", method, target, v)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s: no X-Request-Id", method, target)
	}
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/json") && method != http.MethodHead {
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, target, err, got)
		}
		if path := req.URL.Path; path != "/openapi.json" {
			if m["disclaimer"] != tools.Disclaimer {
				t.Errorf("%s %s: disclaimer = %v", method, target, m["disclaimer"])
			}
			if m["terms"] != e.TS.URL+"/terms" {
				t.Errorf("%s %s: terms = %v, want %s/terms", method, target, m["terms"], e.TS.URL)
			}
		}
	}
	e.Validate(t, newReq(), resp, got, rv)
	return resp, got
}

// Validate checks the request and the response against openapi.json.
func (e *Env) Validate(t *testing.T, req *http.Request, resp *http.Response, body []byte, rv ReqValid) {
	t.Helper()
	ctx := context.Background()
	route, params, err := e.router.FindRoute(req)
	if err != nil {
		// No operation describes this method and path: only 404, 405 and
		// preflights may get here, and their bodies must be Problems.
		switch resp.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusInternalServerError:
			e.ValidateProblem(t, req, body)
		case http.StatusNoContent:
			if req.Method != http.MethodOptions {
				t.Errorf("%s %s: 204 outside a preflight", req.Method, req.URL)
			}
		default:
			if req.Method != http.MethodHead {
				t.Errorf("%s %s: no route in openapi.json (%v) for a %d", req.Method, req.URL, err, resp.StatusCode)
			}
		}
		return
	}
	if req.Body != nil && req.Header.Get("Content-Type") == "" {
		// The server reads a body without Content-Type as JSON (llms.txt
		// says so); OpenAPI has no way to name a default media type.
		req.Header.Set("Content-Type", "application/json")
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: false}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	rerr := openapi3filter.ValidateRequest(ctx, in)
	switch {
	case resp.StatusCode < 400 && rerr != nil:
		// What the server accepts, the document allows.
		t.Errorf("%s %s: the server answers %d to a request openapi.json refuses: %v", req.Method, req.URL, resp.StatusCode, rerr)
	case resp.StatusCode == http.StatusBadRequest && rerr == nil && rv != Beyond:
		// What the document allows, the server does not refuse as
		// malformed, unless the reason is one no schema can state.
		t.Errorf("%s %s: openapi.json allows a request the server refuses with 400 (mark it Beyond if no schema can say why): %s", req.Method, req.URL, Trim(body))
	case rv == MustPass && rerr != nil:
		t.Errorf("%s %s: request does not match openapi.json: %v", req.Method, req.URL, rerr)
	case rv == MustFail && rerr == nil:
		t.Errorf("%s %s: openapi.json accepts a request the server refuses with %d", req.Method, req.URL, resp.StatusCode)
	}
	if req.Method == http.MethodHead {
		return
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode,
		Header: resp.Header, Body: io.NopCloser(bytes.NewReader(body)), Options: opts}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %s: %d response does not match openapi.json: %v\n%s", req.Method, req.URL, resp.StatusCode, err, Trim(body))
	}
}

// ValidateProblem checks that body is a Problem.
func (e *Env) ValidateProblem(t *testing.T, req *http.Request, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s %s: Problem is not JSON: %v", req.Method, req.URL, err)
	}
	if err := e.Doc.Components.Schemas["Problem"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("%s %s: body is not a Problem: %v", req.Method, req.URL, err)
	}
}

// Trim shortens a body for a failure message.
func Trim(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// QueryOf turns a JSON object into GET query parameters: strings as they
// are, everything else as JSON.
func QueryOf(t testing.TB, obj []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	q := url.Values{}
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			q.Set(k, s)
		} else {
			q.Set(k, string(v))
		}
	}
	return q.Encode()
}

// ProblemOf decodes a Problem body and checks that it names an error.
func ProblemOf(t *testing.T, body []byte) httpapi.Problem {
	t.Helper()
	var p httpapi.Problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("not a Problem: %v\n%s", err, body)
	}
	if p.Error == "" {
		t.Errorf("Problem without error: %s", body)
	}
	return p
}

// TickClock is a clock that moves one second per call, so the feed order
// by time is fixed.
func TickClock() func() time.Time {
	var n atomic.Int64
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Second) }
}

// OpenStore opens a board on SQLite in a temporary directory, on
// [TickClock]; it is closed when the test ends.
func OpenStore(tb testing.TB) *board.Store {
	tb.Helper()
	s, err := board.Open(context.Background(), boardtest.SQLite(tb),
		board.Options{Now: TickClock(), Flag: forecastfile.Flags})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// OpenWebhooks opens the webhook endpoints of s, on a [TickClock] of
// their own.
func OpenWebhooks(tb testing.TB, s *board.Store) *webhooks.Store {
	tb.Helper()
	eps, err := webhooks.Open(context.Background(), s, webhooks.Options{Now: TickClock()})
	if err != nil {
		tb.Fatal(err)
	}
	return eps
}

// OpenKeys opens the agents' keys of s.
func OpenKeys(tb testing.TB, s *board.Store) *agentkey.Store {
	tb.Helper()
	keys, err := agentkey.Open(context.Background(), s, agentkey.Options{Now: TickClock()})
	if err != nil {
		tb.Fatal(err)
	}
	return keys
}

// BearerH is the header of a JSON POST authenticated with token.
func BearerH(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}
}

// JSONBody encodes v.
func JSONBody(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Post sends v as JSON with the agent's bearer and checks the status.
func (e *Env) Post(t *testing.T, path, agent string, v any, rv ReqValid, want int) map[string]any {
	t.Helper()
	resp, body := e.Do(t, http.MethodPost, path, JSONBody(t, v), BearerH(agent), rv)
	if resp.StatusCode != want {
		t.Fatalf("POST %s: status %d, want %d: %s", path, resp.StatusCode, want, Trim(body))
	}
	return DecodeMap(t, body)
}

// Get sends a GET and checks the status.
func (e *Env) Get(t *testing.T, path string, want int) map[string]any {
	t.Helper()
	resp, body := e.Do(t, http.MethodGet, path, nil, nil, AnyValid)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: status %d, want %d: %s", path, resp.StatusCode, want, Trim(body))
	}
	return DecodeMap(t, body)
}

// DecodeMap decodes a JSON object.
func DecodeMap(t testing.TB, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return m
}

// ModToken is the moderator token of the board environments.
const ModToken = "moderator-secret"

// NewBoardEnv serves a board on [OpenStore] with the moderator token.
func NewBoardEnv(t testing.TB, token string) *Env {
	t.Helper()
	s := OpenStore(t)
	return NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s, Webhooks: OpenWebhooks(t, s), ModeratorToken: token})})
}

// Pred is a valid prediction body with fields overridden by kv.
func Pred(kv ...any) map[string]any {
	m := map[string]any{"agent_id": "agent-a", "title": "Rain in Paris", "body": "It will rain in Paris tomorrow.",
		"confidence": 0.7, "timeframe": "tomorrow", "domain": "Climate"}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
		} else {
			m[kv[i].(string)] = kv[i+1]
		}
	}
	return m
}

// CreatePred posts [Pred](kv...) and returns the new prediction's id.
func CreatePred(t *testing.T, e *Env, kv ...any) string {
	t.Helper()
	p := Pred(kv...)
	m := e.Post(t, "/api/predictions", p["agent_id"].(string), p, MustPass, http.StatusCreated)
	id, _ := m["prediction_id"].(string)
	if m["status"] != "prediction_created" || id == "" {
		t.Fatalf("create: %v", m)
	}
	return id
}
