package httpapi_test

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
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

func init() {
	openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// discard is a logger that drops everything.
var discard = slog.New(slog.DiscardHandler)

// env is a server under test with its own openapi.json loaded by kin-openapi.
type env struct {
	ts     *httptest.Server
	doc    *openapi3.T
	router routers.Router
}

// noLimits turns the rate limits off, for tests and benchmarks that send
// bursts from one address (ratelimit_test.go tests the limits).
var noLimits = httpapi.RateLimit{Off: true}

func newEnv(t testing.TB, opt httpapi.Options) *env {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = discard
	}
	if opt.RateLimit == (httpapi.RateLimit{}) {
		opt.RateLimit = noLimits
	}
	ts := httptest.NewServer(httpapi.New(opt))
	t.Cleanup(ts.Close)
	resp, err := ts.Client().Get(ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json does not validate: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router from openapi.json: %v", err)
	}
	return &env{ts: ts, doc: doc, router: router}
}

// reqValid says what the request validation against openapi.json must give.
type reqValid int

const (
	mustPass reqValid = iota // a well-formed request
	mustFail                 // the description itself rejects it
	anyValid                 // not asserted (e.g. a limit that only the tool checks)
)

// do sends a request, checks the headers every response carries, and
// validates request and response against openapi.json.
func (e *env) do(t *testing.T, method, target string, body []byte, header http.Header, rv reqValid) (*http.Response, []byte) {
	t.Helper()
	newReq := func() *http.Request {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequest(method, e.ts.URL+target, rd)
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range header {
			req.Header[k] = vs
		}
		if body != nil && req.Header.Get("Content-Type") == "" && header == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req
	}
	req := newReq()
	resp, err := e.ts.Client().Do(req)
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
			if m["terms"] != e.ts.URL+"/terms" {
				t.Errorf("%s %s: terms = %v, want %s/terms", method, target, m["terms"], e.ts.URL)
			}
		}
	}
	e.validate(t, newReq(), resp, got, rv)
	return resp, got
}

func (e *env) validate(t *testing.T, req *http.Request, resp *http.Response, body []byte, rv reqValid) {
	t.Helper()
	ctx := context.Background()
	route, params, err := e.router.FindRoute(req)
	if err != nil {
		// No operation describes this method and path: only 404, 405 and
		// preflights may get here, and their bodies must be Problems.
		switch resp.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusInternalServerError:
			e.validateProblem(t, req, body)
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
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: false}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	rerr := openapi3filter.ValidateRequest(ctx, in)
	switch {
	case rv == mustPass && rerr != nil:
		t.Errorf("%s %s: request does not match openapi.json: %v", req.Method, req.URL, rerr)
	case rv == mustFail && rerr == nil:
		t.Errorf("%s %s: openapi.json accepts a request the server refuses with %d", req.Method, req.URL, resp.StatusCode)
	}
	if req.Method == http.MethodHead {
		return
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode,
		Header: resp.Header, Body: io.NopCloser(bytes.NewReader(body)), Options: opts}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %s: %d response does not match openapi.json: %v\n%s", req.Method, req.URL, resp.StatusCode, err, trim(body))
	}
}

func (e *env) validateProblem(t *testing.T, req *http.Request, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s %s: Problem is not JSON: %v", req.Method, req.URL, err)
	}
	if err := e.doc.Components.Schemas["Problem"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("%s %s: body is not a Problem: %v", req.Method, req.URL, err)
	}
}

func trim(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// queryOf turns a JSON object into GET query parameters: strings as they
// are, everything else as JSON.
func queryOf(t testing.TB, obj []byte) string {
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

func problemOf(t *testing.T, body []byte) httpapi.Problem {
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

func TestToolsGETAndPOST(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	if len(tools.All()) == 0 {
		t.Fatal("tools.All() is empty")
	}
	for _, tl := range tools.All() {
		path := tools.PathPrefix + "/" + tl.Name
		t.Run(tl.Name+"/POST", func(t *testing.T) {
			resp, body := e.do(t, http.MethodPost, path, tl.Example, nil, mustPass)
			checkResult(t, tl, resp, body)
		})
		t.Run(tl.Name+"/GET", func(t *testing.T) {
			resp, body := e.do(t, http.MethodGet, path+"?"+queryOf(t, tl.Example), nil, nil, mustPass)
			checkResult(t, tl, resp, body)
		})
		t.Run(tl.Name+"/POST-charset", func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
			resp, body := e.do(t, http.MethodPost, path, tl.Example, h, mustPass)
			checkResult(t, tl, resp, body)
		})
	}
}

func checkResult(t *testing.T, tl *tools.Tool, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", resp.StatusCode, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if m["tool"] != tl.Name {
		t.Errorf("tool = %v, want %s", m["tool"], tl.Name)
	}
	if s, _ := m["summary"].(string); s == "" {
		t.Errorf("empty summary: %s", body)
	}
	if _, ok := m["notes"].([]any); !ok {
		t.Errorf("notes is not an array: %s", body)
	}
}

func TestGETAndPOSTAgree(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for _, tl := range tools.All() {
		path := tools.PathPrefix + "/" + tl.Name
		_, post := e.do(t, http.MethodPost, path, tl.Example, nil, mustPass)
		_, get := e.do(t, http.MethodGet, path+"?"+queryOf(t, tl.Example), nil, nil, mustPass)
		if !bytes.Equal(post, get) {
			t.Errorf("%s: GET and POST differ\nPOST %s\nGET  %s", tl.Name, trim(post), trim(get))
		}
	}
}

func TestSettingsAndSkillFile(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	resp, body := e.do(t, http.MethodGet, tools.PathPrefix+"/settings", nil, nil, mustPass)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("settings: %d %s", resp.StatusCode, body)
	}
	resp, body = e.do(t, http.MethodGet, "/"+tools.Name+".md?preset=recommended&no_such_setting=1", nil, nil, mustPass)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("skill file: %d %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if !bytes.HasPrefix(body, []byte("---\n")) {
		t.Errorf("skill file does not open with front matter: %s", trim(body))
	}
	if n := resp.Header.Get("X-Settings-Notes"); !strings.Contains(n, "no_such_setting") {
		t.Errorf("X-Settings-Notes = %q, want a note on no_such_setting", n)
	}
	// A clean query gives no notes.
	resp, _ = e.do(t, http.MethodGet, "/"+tools.Name+".md", nil, nil, mustPass)
	if n := resp.Header.Get("X-Settings-Notes"); n != "" {
		t.Errorf("X-Settings-Notes = %q without settings", n)
	}
}

func TestPublished(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for _, tc := range []struct{ path, ct, contains string }{
		{"/", "text/html; charset=utf-8", "convert_odds"},
		{"/terms", "text/html; charset=utf-8", "store nothing"},
		{"/llms.txt", "text/plain; charset=utf-8", "## Tools"},
		{"/llms-full.txt", "text/plain; charset=utf-8", "## convert_odds"},
		{"/openapi.json", "application/json", `"openapi":"3.1.0"`},
		{httpapi.ManifestPath, "application/json", `"drafted_settings_rule"`},
		{"/healthz", "application/json", `"status":"ok"`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := e.do(t, http.MethodGet, tc.path, nil, nil, mustPass)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.ct {
				t.Errorf("Content-Type = %q, want %q", ct, tc.ct)
			}
			if !bytes.Contains(body, []byte(tc.contains)) {
				t.Errorf("body lacks %q", tc.contains)
			}
			resp, body = e.do(t, http.MethodHead, tc.path, nil, nil, anyValid)
			if resp.StatusCode != http.StatusOK || len(body) != 0 {
				t.Errorf("HEAD: status %d, %d body bytes", resp.StatusCode, len(body))
			}
		})
	}
}

func TestErrorStatuses(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	conv := tools.PathPrefix + "/combine_forecasts"
	good := `{"forecasts":[{"p":0.6},{"p":0.3}]}`
	for _, tc := range []struct {
		name        string
		method      string
		path        string
		body        string
		header      http.Header
		rv          reqValid
		status      int
		errContains string
	}{
		{"unknown path", "GET", "/api/v1/no_such_tool", "", nil, anyValid, 404, "path: /api/v1/no_such_tool does not exist"},
		{"unknown root path", "POST", "/nope", good, nil, anyValid, 404, "path:"},
		{"PUT on a tool", "PUT", conv, good, nil, anyValid, 405, "method: PUT"},
		{"DELETE on settings", "DELETE", "/api/v1/settings", "", nil, anyValid, 405, "method: DELETE"},
		{"POST on openapi.json", "POST", "/openapi.json", good, nil, anyValid, 405, "method: POST"},
		{"text/plain body", "POST", conv, good, http.Header{"Content-Type": {"text/plain"}}, mustFail, 415, "Content-Type"},
		{"form body", "POST", conv, "a=1", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, mustFail, 415, "Content-Type"},
		{"latin-1 JSON", "POST", conv, good, http.Header{"Content-Type": {"application/json; charset=latin-1"}}, anyValid, 415, "Content-Type"},
		{"no Content-Type is JSON", "POST", conv, good, http.Header{}, anyValid, 200, ""},
		{"empty body", "POST", conv, "", nil, mustFail, 400, "body: is empty"},
		{"not JSON", "POST", conv, "{forecasts:1}", nil, mustFail, 400, "body: is not valid JSON"},
		{"array body", "POST", conv, `[1,2]`, nil, mustFail, 400, "body: is not a JSON object"},
		{"string body", "POST", conv, `"x"`, nil, mustFail, 400, "body: is not a JSON object"},
		{"trailing data", "POST", conv, good + ` {}`, nil, anyValid, 400, "body: has data after the JSON object"},
		{"trailing garbage", "POST", conv, good + `x`, nil, anyValid, 400, "body: has data after the JSON object"},
		{"duplicate top-level key", "POST", conv, `{"forecasts":[{"p":0.6}],"forecasts":[{"p":0.2}]}`, nil, anyValid, 400, "forecasts: is given more than once"},
		{"duplicate nested key", "POST", conv, `{"forecasts":[{"p":0.6},{"p":0.3,"p":0.4}]}`, nil, anyValid, 400, "forecasts[1].p: is given more than once"},
		{"duplicate key in GET JSON", "GET", conv + "?forecasts=" + url.QueryEscape(`[{"p":0.6,"who":"a","who":"b"}]`), "", nil, anyValid, 400, "forecasts[0].who: is given more than once"},
		{"parameter twice in GET", "GET", tools.PathPrefix + "/score_forecasts?bins=5&bins=6&forecasts=" + url.QueryEscape(`[{"p":0.6,"outcome":"yes"}]`), "", nil, anyValid, 400, "bins: is given more than once"},
		{"bad escape in GET", "GET", conv + "?forecasts=%zz", "", nil, anyValid, 400, "query: is not a valid query string"},
		{"missing required field", "POST", conv, `{}`, nil, mustFail, 400, "forecasts: is required"},
		{"wrong type", "POST", conv, `{"forecasts":"x"}`, nil, mustFail, 400, "forecasts: must be"},
		{"bad JSON in GET", "GET", conv + "?forecasts=" + url.QueryEscape(`[{"p":`), "", nil, mustFail, 400, "forecasts: is not valid JSON"},
		{"query too long", "GET", conv + "?forecasts=" + strings.Repeat("1", httpapi.MaxQueryBytes), "", nil, anyValid, 414, "query: is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.body != "" || tc.method == "POST" {
				body = []byte(tc.body)
			}
			resp, got := e.do(t, tc.method, tc.path, body, tc.header, tc.rv)
			if resp.StatusCode != tc.status {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tc.status, trim(got))
			}
			if tc.status == 200 {
				return
			}
			p := problemOf(t, got)
			if !strings.Contains(p.Error, tc.errContains) {
				t.Errorf("error = %q, want it to contain %q", p.Error, tc.errContains)
			}
			if p.Hint == "" {
				t.Errorf("no hint: %s", got)
			}
			if !strings.HasPrefix(p.Docs, e.ts.URL+"/llms") { // llms.txt, or the section of llms-full.txt
				t.Errorf("docs = %q", p.Docs)
			}
			if tc.status == 405 && resp.Header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
}

func TestMethodNotAllowedAllow(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	for path, want := range map[string]string{
		tools.PathPrefix + "/convert_odds": "GET, HEAD, POST, OPTIONS",
		tools.PathPrefix + "/settings":     "GET, HEAD, OPTIONS",
		"/llms.txt":                        "GET, HEAD, OPTIONS",
		"/llms-full.txt":                   "GET, HEAD, OPTIONS",
	} {
		resp, _ := e.do(t, http.MethodPatch, path, []byte(`{}`), nil, anyValid)
		if got := resp.Header.Get("Allow"); resp.StatusCode != 405 || got != want {
			t.Errorf("PATCH %s: %d Allow %q, want 405 Allow %q", path, resp.StatusCode, got, want)
		}
	}
}

func TestBodySizeLimit(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	tl := tools.Lookup("convert_odds")
	path := tools.PathPrefix + "/convert_odds"
	pad := func(n int) []byte { // the example padded with spaces to n bytes
		b := append([]byte{}, tl.Example...)
		return append(b, bytes.Repeat([]byte(" "), n-len(b))...)
	}
	resp, body := e.do(t, http.MethodPost, path, pad(httpapi.MaxBodyBytes), nil, mustPass)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("body of exactly %d bytes: status %d: %s", httpapi.MaxBodyBytes, resp.StatusCode, trim(body))
	}
	resp, body = e.do(t, http.MethodPost, path, pad(httpapi.MaxBodyBytes+1), nil, anyValid)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("body of %d bytes: status %d, want 413", httpapi.MaxBodyBytes+1, resp.StatusCode)
	}
	if p := problemOf(t, body); !strings.Contains(p.Error, "65536") {
		t.Errorf("413 error %q does not name the limit", p.Error)
	}
}

func TestCORS(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	h := http.Header{"Origin": {"https://elsewhere.example"}, "Access-Control-Request-Method": {"POST"},
		"Access-Control-Request-Headers": {"content-type"}}
	resp, body := e.do(t, http.MethodOptions, tools.PathPrefix+"/combine_forecasts", nil, h, anyValid)
	if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("preflight: %d %q", resp.StatusCode, body)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Methods":  "GET, HEAD, POST, OPTIONS",
		"Access-Control-Allow-Headers":  "Content-Type, Authorization, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, X-Request-Id",
		"Access-Control-Expose-Headers": "Mcp-Session-Id, X-Settings-Notes, X-Request-Id, Retry-After, WWW-Authenticate",
		"Allow":                         "GET, HEAD, POST, OPTIONS",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	resp, _ = e.do(t, http.MethodOptions, "/nope", nil, h, anyValid)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("preflight on an unknown path: %d, want 404", resp.StatusCode)
	}
}

func TestRequestID(t *testing.T) {
	e := newEnv(t, httpapi.Options{})
	resp, _ := e.do(t, http.MethodGet, "/healthz", nil, http.Header{"X-Request-Id": {"abc-123"}}, mustPass)
	if got := resp.Header.Get("X-Request-Id"); got != "abc-123" {
		t.Errorf("X-Request-Id = %q, want the client's abc-123", got)
	}
	resp, _ = e.do(t, http.MethodGet, "/healthz", nil, http.Header{"X-Request-Id": {"<script>"}}, mustPass)
	if got := resp.Header.Get("X-Request-Id"); got == "<script>" || len(got) != 36 {
		t.Errorf("X-Request-Id = %q, want a new UUID", got)
	}
}

func TestPanicBecomes500(t *testing.T) {
	var logs bytes.Buffer
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret detail") })
	e := newEnv(t, httpapi.Options{MCP: boom, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	resp, body := e.do(t, http.MethodPost, "/mcp", []byte(`{}`), nil, anyValid)
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", resp.StatusCode)
	}
	e.validateProblem(t, httptest.NewRequest("POST", "/mcp", nil), body)
	if bytes.Contains(body, []byte("secret")) {
		t.Errorf("500 body leaks the panic: %s", body)
	}
	if !strings.Contains(logs.String(), "secret detail") || !strings.Contains(logs.String(), "status=500") {
		t.Errorf("log lacks the panic or the request line:\n%s", logs.String())
	}
}

func TestBaseURL(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opt    httpapi.Options
		header http.Header
		want   string
	}{
		{"configured", httpapi.Options{BaseURL: "https://p.example/"}, nil, "https://p.example/terms"},
		{"proxy headers ignored", httpapi.Options{}, http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"evil.example"}}, "http://example.com/terms"},
		{"proxy trusted", httpapi.Options{TrustProxy: true}, http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"p.example, inner"}}, "https://p.example/terms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Logger = discard
			req := httptest.NewRequest("GET", "/healthz", nil)
			for k, v := range tc.header {
				req.Header[k] = v
			}
			rec := httptest.NewRecorder()
			httpapi.New(tc.opt).ServeHTTP(rec, req)
			var m map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			if m["terms"] != tc.want {
				t.Errorf("terms = %v, want %s", m["terms"], tc.want)
			}
		})
	}
}

func TestHealthzClock(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rec := httptest.NewRecorder()
	httpapi.New(httpapi.Options{Logger: discard, Now: func() time.Time { return now }}).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if !strings.Contains(rec.Body.String(), `"time":"2026-03-01T12:00:00Z"`) {
		t.Errorf("healthz = %s", rec.Body)
	}
}

func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 200},
		{&tools.InputError{Field: "x", Problem: "bad", Err: tools.ErrInput}, 400},
		{&httpio.Error{Field: "body", Err: httpio.ErrTooLarge}, 413},
		{httpio.ErrMediaType, 415},
		{httpio.ErrQueryTooLong, 414},
		{httpio.ErrNotFound, 404},
		{httpio.ErrMethodNotAllowed, 405},
		{io.ErrUnexpectedEOF, 500},
	} {
		if got := httpio.StatusOf(tc.err); got != tc.want {
			t.Errorf("StatusOf(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
