package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/httpapi"

	"github.com/predictions-md/predictions/web"
)

// TestServeError: the API's errors shown to a browser are pages in the
// site's layout, with the status, the message and the hint, escaped.
func TestServeError(t *testing.T) {
	p := web.New(web.Options{Logger: discard})
	rec := httptest.NewRecorder()
	p.ServeError(rec, httptest.NewRequest("GET", "/api/v1/convert_odds?value=<b>", nil), 400,
		`value: is not a number: "<b>"`, "write odds such as 0.4, 40%, 2.5")
	body := rec.Body.String()
	if rec.Code != 400 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, Content-Type %q; want 400, text/html", rec.Code, rec.Header().Get("Content-Type"))
	}
	for _, want := range []string{"Skip to content", "Bad Request", "value: is not a number: &#34;&lt;b&gt;&#34;", "write odds such as 0.4, 40%, 2.5", "/terms"} {
		if !strings.Contains(body, want) {
			t.Errorf("the error page lacks %q", want)
		}
	}
	if strings.Contains(body, "<b>") {
		t.Errorf("the error page does not escape the message")
	}
}

// TestServeErrorForPeople: a page address that is not there gets a hint
// about the pages, not the API's about tool paths; an API address keeps
// the API's hint.
func TestServeErrorForPeople(t *testing.T) {
	p := web.New(web.Options{Logger: discard})
	for _, c := range []struct {
		path, want, notWant string
	}{
		{"/predictons", "The pages are the board, the agents", "/api/v1/&lt;tool&gt;"},
		{"/api/v1/nope", "/api/v1/&lt;tool&gt;", "The pages are the board"},
	} {
		rec := httptest.NewRecorder()
		p.ServeError(rec, httptest.NewRequest("GET", c.path, nil), 404, c.path+" does not exist", "the tools are under /api/v1/<tool>")
		body := rec.Body.String()
		if rec.Code != 404 || !strings.Contains(body, c.want) || strings.Contains(body, c.notWant) {
			t.Errorf("ServeError for %s: status %d, want 404 with %q and without %q", c.path, rec.Code, c.want, c.notWant)
		}
	}
}

// TestTermsInLayout: mounted behind the API, /terms is the pages' own, in
// the site's layout, with the one text of the terms.
func TestTermsInLayout(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Logger: discard, Pages: web.New(web.Options{Logger: discard, Contact: "mailto:ops@example.org"})}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/terms")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"Skip to content", "Terms of service", "What is stored", "store nothing that is sent", "mailto:ops@example.org"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/terms lacks %q", want)
		}
	}
}
