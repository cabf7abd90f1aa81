package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

func TestToolsGETAndPOST(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	if len(tools.All()) == 0 {
		t.Fatal("tools.All() is empty")
	}
	for _, tl := range tools.All() {
		path := tools.PathPrefix + "/" + tl.Name
		t.Run(tl.Name+"/POST", func(t *testing.T) {
			resp, body := e.Do(t, http.MethodPost, path, tl.Example, nil, apitest.MustPass)
			checkResult(t, tl, resp, body)
		})
		t.Run(tl.Name+"/GET", func(t *testing.T) {
			resp, body := e.Do(t, http.MethodGet, path+"?"+apitest.QueryOf(t, tl.Example), nil, nil, apitest.MustPass)
			checkResult(t, tl, resp, body)
		})
		t.Run(tl.Name+"/POST-charset", func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
			resp, body := e.Do(t, http.MethodPost, path, tl.Example, h, apitest.MustPass)
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
	e := apitest.NewEnv(t, httpapi.Options{})
	for _, tl := range tools.All() {
		path := tools.PathPrefix + "/" + tl.Name
		_, post := e.Do(t, http.MethodPost, path, tl.Example, nil, apitest.MustPass)
		_, get := e.Do(t, http.MethodGet, path+"?"+apitest.QueryOf(t, tl.Example), nil, nil, apitest.MustPass)
		if !bytes.Equal(post, get) {
			t.Errorf("%s: GET and POST differ\nPOST %s\nGET  %s", tl.Name, apitest.Trim(post), apitest.Trim(get))
		}
	}
}

func TestSettingsAndSkillFile(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	resp, body := e.Do(t, http.MethodGet, tools.PathPrefix+"/settings", nil, nil, apitest.MustPass)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("settings: %d %s", resp.StatusCode, body)
	}
	resp, body = e.Do(t, http.MethodGet, "/"+tools.Name+".md?preset=recommended&no_such_setting=1", nil, nil, apitest.MustPass)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("skill file: %d %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if !bytes.HasPrefix(body, []byte("---\n")) {
		t.Errorf("skill file does not open with front matter: %s", apitest.Trim(body))
	}
	if n := resp.Header.Get("X-Settings-Notes"); !strings.Contains(n, "no_such_setting") {
		t.Errorf("X-Settings-Notes = %q, want a note on no_such_setting", n)
	}
	// A clean query gives no notes.
	resp, _ = e.Do(t, http.MethodGet, "/"+tools.Name+".md", nil, nil, apitest.MustPass)
	if n := resp.Header.Get("X-Settings-Notes"); n != "" {
		t.Errorf("X-Settings-Notes = %q without settings", n)
	}
}

func TestPublished(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
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
			resp, body := e.Do(t, http.MethodGet, tc.path, nil, nil, apitest.MustPass)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.ct {
				t.Errorf("Content-Type = %q, want %q", ct, tc.ct)
			}
			if !bytes.Contains(body, []byte(tc.contains)) {
				t.Errorf("body lacks %q", tc.contains)
			}
			resp, body = e.Do(t, http.MethodHead, tc.path, nil, nil, apitest.AnyValid)
			if resp.StatusCode != http.StatusOK || len(body) != 0 {
				t.Errorf("HEAD: status %d, %d body bytes", resp.StatusCode, len(body))
			}
		})
	}
}

func TestErrorStatuses(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	conv := tools.PathPrefix + "/combine_forecasts"
	good := `{"forecasts":[{"p":0.6},{"p":0.3}]}`
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   string
		header http.Header
		// rv: Beyond for what JSON Schema cannot say: one JSON value and
		// nothing after it, each name and parameter once.
		rv          apitest.ReqValid
		status      int
		errContains string
	}{
		{"unknown path", "GET", "/api/v1/no_such_tool", "", nil, apitest.AnyValid, 404, "path: /api/v1/no_such_tool does not exist"},
		{"unknown root path", "POST", "/nope", good, nil, apitest.AnyValid, 404, "path:"},
		{"PUT on a tool", "PUT", conv, good, nil, apitest.AnyValid, 405, "method: PUT"},
		{"DELETE on settings", "DELETE", "/api/v1/settings", "", nil, apitest.AnyValid, 405, "method: DELETE"},
		{"POST on openapi.json", "POST", "/openapi.json", good, nil, apitest.AnyValid, 405, "method: POST"},
		{"text/plain body", "POST", conv, good, http.Header{"Content-Type": {"text/plain"}}, apitest.MustFail, 415, "Content-Type"},
		{"form body", "POST", conv, "a=1", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, apitest.MustFail, 415, "Content-Type"},
		{"latin-1 JSON", "POST", conv, good, http.Header{"Content-Type": {"application/json; charset=latin-1"}}, apitest.AnyValid, 415, "Content-Type"},
		{"no Content-Type is JSON", "POST", conv, good, http.Header{}, apitest.AnyValid, 200, ""},
		{"empty body", "POST", conv, "", nil, apitest.MustFail, 400, "body: is empty"},
		{"not JSON", "POST", conv, "{forecasts:1}", nil, apitest.MustFail, 400, "body: is not valid JSON"},
		{"array body", "POST", conv, `[1,2]`, nil, apitest.MustFail, 400, "body: is not a JSON object"},
		{"string body", "POST", conv, `"x"`, nil, apitest.MustFail, 400, "body: is not a JSON object"},
		{"trailing data", "POST", conv, good + ` {}`, nil, apitest.Beyond, 400, "body: has data after the JSON object"},
		{"trailing garbage", "POST", conv, good + `x`, nil, apitest.Beyond, 400, "body: has data after the JSON object"},
		{"duplicate top-level key", "POST", conv, `{"forecasts":[{"p":0.6}],"forecasts":[{"p":0.2}]}`, nil, apitest.Beyond, 400, "forecasts: is given more than once"},
		{"duplicate nested key", "POST", conv, `{"forecasts":[{"p":0.6},{"p":0.3,"p":0.4}]}`, nil, apitest.Beyond, 400, "forecasts[1].p: is given more than once"},
		{"duplicate key in GET JSON", "GET", conv + "?forecasts=" + url.QueryEscape(`[{"p":0.6,"who":"a","who":"b"}]`), "", nil, apitest.Beyond, 400, "forecasts[0].who: is given more than once"},
		{"parameter twice in GET", "GET", tools.PathPrefix + "/score_forecasts?bins=5&bins=6&forecasts=" + url.QueryEscape(`[{"p":0.6,"outcome":"yes"}]`), "", nil, apitest.Beyond, 400, "bins: is given more than once"},
		{"bad escape in GET", "GET", conv + "?forecasts=%zz", "", nil, apitest.AnyValid, 400, "query: is not a valid query string"},
		{"missing required field", "POST", conv, `{}`, nil, apitest.MustFail, 400, "forecasts: is required"},
		{"wrong type", "POST", conv, `{"forecasts":"x"}`, nil, apitest.MustFail, 400, "forecasts: must be"},
		{"bad JSON in GET", "GET", conv + "?forecasts=" + url.QueryEscape(`[{"p":`), "", nil, apitest.MustFail, 400, "forecasts: is not valid JSON"},
		{"query too long", "GET", conv + "?forecasts=" + strings.Repeat("1", httpapi.MaxQueryBytes), "", nil, apitest.AnyValid, 414, "query: is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.body != "" || tc.method == "POST" {
				body = []byte(tc.body)
			}
			resp, got := e.Do(t, tc.method, tc.path, body, tc.header, tc.rv)
			if resp.StatusCode != tc.status {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tc.status, apitest.Trim(got))
			}
			if tc.status == 200 {
				return
			}
			p := apitest.ProblemOf(t, got)
			if !strings.Contains(p.Error, tc.errContains) {
				t.Errorf("error = %q, want it to contain %q", p.Error, tc.errContains)
			}
			if p.Hint == "" {
				t.Errorf("no hint: %s", got)
			}
			if !strings.HasPrefix(p.Docs, e.TS.URL+"/llms") { // llms.txt, or the section of llms-full.txt
				t.Errorf("docs = %q", p.Docs)
			}
			if tc.status == 405 && resp.Header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
}

func TestMethodNotAllowedAllow(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	for path, want := range map[string]string{
		tools.PathPrefix + "/convert_odds": "GET, HEAD, POST, OPTIONS",
		tools.PathPrefix + "/settings":     "GET, HEAD, OPTIONS",
		"/llms.txt":                        "GET, HEAD, OPTIONS",
		"/llms-full.txt":                   "GET, HEAD, OPTIONS",
	} {
		resp, _ := e.Do(t, http.MethodPatch, path, []byte(`{}`), nil, apitest.AnyValid)
		if got := resp.Header.Get("Allow"); resp.StatusCode != 405 || got != want {
			t.Errorf("PATCH %s: %d Allow %q, want 405 Allow %q", path, resp.StatusCode, got, want)
		}
	}
}

// TestAllowIsTrue: the methods a preflight's Allow lists are the ones
// that do not answer 405, and a 405's Allow is the preflight's, on the
// tools, the descriptions and /mcp (POST only: the stateless transport
// answers no GET stream and keeps no session to DELETE).
func TestAllowIsTrue(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{MCP: newMCP(t)})
	for path, want := range map[string]string{
		"/mcp":                             "POST, OPTIONS",
		tools.PathPrefix + "/convert_odds": "GET, HEAD, POST, OPTIONS",
		"/openapi.json":                    "GET, HEAD, OPTIONS",
	} {
		req, _ := http.NewRequest(http.MethodOptions, e.TS.URL+path, nil)
		resp, err := e.TS.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Allow"); got != want {
			t.Errorf("OPTIONS %s: Allow %q, want %q", path, got, want)
		}
		allowed := strings.Split(want, ", ")
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
			req, _ := http.NewRequest(m, e.TS.URL+path, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := e.TS.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.StatusCode == http.StatusMethodNotAllowed; got == slices.Contains(allowed, m) {
				t.Errorf("%s %s: status %d while OPTIONS allows %q", m, path, resp.StatusCode, want)
			}
			if resp.StatusCode == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != want {
				t.Errorf("%s %s: 405 with Allow %q, want %q", m, path, resp.Header.Get("Allow"), want)
			}
		}
	}
}

func TestBodySizeLimit(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	tl := tools.Lookup("convert_odds")
	path := tools.PathPrefix + "/convert_odds"
	pad := func(n int) []byte { // the example padded with spaces to n bytes
		b := append([]byte{}, tl.Example...)
		return append(b, bytes.Repeat([]byte(" "), n-len(b))...)
	}
	resp, body := e.Do(t, http.MethodPost, path, pad(httpapi.MaxBodyBytes), nil, apitest.MustPass)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("body of exactly %d bytes: status %d: %s", httpapi.MaxBodyBytes, resp.StatusCode, apitest.Trim(body))
	}
	resp, body = e.Do(t, http.MethodPost, path, pad(httpapi.MaxBodyBytes+1), nil, apitest.AnyValid)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("body of %d bytes: status %d, want 413", httpapi.MaxBodyBytes+1, resp.StatusCode)
	}
	if p := apitest.ProblemOf(t, body); !strings.Contains(p.Error, "65536") {
		t.Errorf("413 error %q does not name the limit", p.Error)
	}
}

func TestCORS(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	h := http.Header{"Origin": {"https://elsewhere.example"}, "Access-Control-Request-Method": {"POST"},
		"Access-Control-Request-Headers": {"content-type"}}
	resp, body := e.Do(t, http.MethodOptions, tools.PathPrefix+"/combine_forecasts", nil, h, apitest.AnyValid)
	if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("preflight: %d %q", resp.StatusCode, body)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Methods":  "GET, HEAD, POST, OPTIONS",
		"Access-Control-Allow-Headers":  "Content-Type, Authorization, Idempotency-Key, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, X-Request-Id",
		"Access-Control-Expose-Headers": "Mcp-Session-Id, X-Settings-Notes, X-Request-Id, Retry-After, WWW-Authenticate, Idempotency-Replayed",
		"Allow":                         "GET, HEAD, POST, OPTIONS",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	resp, _ = e.Do(t, http.MethodOptions, "/nope", nil, h, apitest.AnyValid)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("preflight on an unknown path: %d, want 404", resp.StatusCode)
	}
}

func TestRequestID(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	resp, _ := e.Do(t, http.MethodGet, "/healthz", nil, http.Header{"X-Request-Id": {"abc-123"}}, apitest.MustPass)
	if got := resp.Header.Get("X-Request-Id"); got != "abc-123" {
		t.Errorf("X-Request-Id = %q, want the client's abc-123", got)
	}
	resp, _ = e.Do(t, http.MethodGet, "/healthz", nil, http.Header{"X-Request-Id": {"<script>"}}, apitest.MustPass)
	if got := resp.Header.Get("X-Request-Id"); got == "<script>" || len(got) != 36 {
		t.Errorf("X-Request-Id = %q, want a new UUID", got)
	}
}

func TestPanicBecomes500(t *testing.T) {
	var logs bytes.Buffer
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret detail") })
	e := apitest.NewEnv(t, httpapi.Options{MCP: boom, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	resp, body := e.Do(t, http.MethodPost, "/mcp", []byte(`{}`), nil, apitest.AnyValid)
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", resp.StatusCode)
	}
	e.ValidateProblem(t, httptest.NewRequest("POST", "/mcp", nil), body)
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
			tc.opt.Logger = apitest.Discard
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
	httpapi.New(httpapi.Options{Logger: apitest.Discard, Now: func() time.Time { return now }}).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
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

// TestNullableQuery: a field a body may give as null is, over GET, left
// out; ?bins=null is a 400 that openapi.json refuses too.
func TestNullableQuery(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	f := url.QueryEscape(`[{"p":0.6,"outcome":"yes"}]`)
	if resp, body := e.Do(t, "GET", tools.PathPrefix+"/score_forecasts?bins=null&forecasts="+f, nil, nil, apitest.MustFail); resp.StatusCode != 400 {
		t.Errorf("bins=null: %d %s", resp.StatusCode, apitest.Trim(body))
	}
	if resp, body := e.Do(t, "GET", tools.PathPrefix+"/score_forecasts?forecasts="+f, nil, nil, apitest.MustPass); resp.StatusCode != 200 {
		t.Errorf("bins left out: %d %s", resp.StatusCode, apitest.Trim(body))
	}
}
