package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// TestPagesMount checks which requests go to Options.Pages and that the
// API's routes and Problems stay as they are.
func TestPagesMount(t *testing.T) {
	pages := testPages{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "pages "+r.Method+" "+r.URL.Path)
	})}
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Logger: apitest.Discard, Pages: pages}))
	t.Cleanup(srv.Close)
	plain := httptest.NewServer(httpapi.New(httpapi.Options{Logger: apitest.Discard}))
	t.Cleanup(plain.Close)

	type answer struct {
		Status int
		Pages  bool // answered by the pages handler
		JSON   bool // a JSON answer or Problem of the API
	}
	do := func(t *testing.T, base, method, path string) answer {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader("text=x"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, strings.HasPrefix(string(b), "pages "),
			strings.Contains(resp.Header.Get("Content-Type"), "json")}
	}
	for _, c := range []struct {
		method, path string
		want         answer
	}{
		{"GET", "/", answer{200, true, false}},
		{"HEAD", "/", answer{200, false, false}}, // HEAD has no body to tell
		{"GET", "/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc", answer{200, true, false}},
		{"GET", "/agents", answer{200, true, false}},
		{"GET", "/agents/forecaster-7", answer{200, true, false}},
		{"GET", "/tools", answer{200, true, false}},
		{"GET", "/tools/convert_odds", answer{200, true, false}},
		{"POST", "/tools/check_forecast_md", answer{200, true, false}},
		{"GET", "/settings", answer{200, true, false}},
		{"GET", "/static/style.css", answer{200, true, false}},
		{"POST", "/", answer{405, false, true}},
		{"GET", "/api/v1/convert_odds?value=2", answer{200, false, true}},
		{"GET", "/api/v1/settings", answer{200, false, true}},
		{"GET", "/api/no-such-route", answer{404, false, true}},
		{"GET", "/no-such-page", answer{404, false, true}},
		{"GET", "/terms", answer{200, false, false}},
		{"GET", "/predictions.md", answer{200, false, false}},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			if diff := cmp.Diff(c.want, do(t, srv.URL, c.method, c.path)); diff != "" {
				t.Errorf("%s %s with Pages (-want +got):\n%s", c.method, c.path, diff)
			}
		})
	}
	// Without Pages, / is the plain landing page and the page paths are the API's 404s.
	if got := do(t, plain.URL, "GET", "/"); got != (answer{200, false, false}) {
		t.Errorf("GET / without Pages = %+v, want the landing page", got)
	}
	if got := do(t, plain.URL, "GET", "/tools"); got != (answer{404, false, true}) {
		t.Errorf("GET /tools without Pages = %+v, want a 404 Problem", got)
	}
}

// testPages answers the patterns of the web adapter's pages.
type testPages struct{ http.Handler }

func (testPages) ServeError(w http.ResponseWriter, r *http.Request, status int, message, hint string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, "error page: "+message)
}

func (testPages) Patterns() []string {
	return []string{"GET /{$}", "GET /predictions/{id}", "GET /agents", "GET /agents/{id}", "GET /tools",
		"GET /tools/{name}", "POST /tools/{name}", "GET /settings", "GET /static/{file}"}
}

// TestErrorNegotiation: a browser (Accept: text/html first) gets the API's
// errors as pages in the site's layout; API clients keep the Problem.
func TestErrorNegotiation(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Logger: apitest.Discard, Pages: testPages{http.NotFoundHandler()}}))
	t.Cleanup(srv.Close)
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	tests := []struct {
		name, method, path, accept string
		status                     int
		page                       bool
	}{
		{"404 browser", "GET", "/nowhere", browser, 404, true},
		{"404 curl", "GET", "/nowhere", "*/*", 404, false},
		{"404 no Accept", "GET", "/nowhere", "", 404, false},
		{"404 JSON first", "GET", "/nowhere", "application/json, text/html", 404, false},
		{"405 browser", "DELETE", "/api/v1/convert_odds", browser, 405, true},
		{"400 browser", "GET", "/api/v1/convert_odds?value=abc", browser, 400, true},
		{"400 API client", "GET", "/api/v1/convert_odds?value=abc", "application/json", 400, false},
		{"200 stays JSON", "GET", "/api/v1/convert_odds?value=%2B150", browser, 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			page := strings.HasPrefix(string(b), "error page: ")
			if resp.StatusCode != tt.status || page != tt.page {
				t.Errorf("%s %s: status %d, page %v; want %d, %v: %s", tt.method, tt.path, resp.StatusCode, page, tt.status, tt.page, b)
			}
			if page && !strings.Contains(string(b), ": ") {
				t.Errorf("the page does not say what was wrong: %s", b)
			}
		})
	}
}
