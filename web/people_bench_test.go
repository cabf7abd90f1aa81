package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkPersonForecast is a signed-in person's forecast round trip at
// the server, on SQLite: the form's POST (the board's write) and the GET
// of the question page it redirects to, showing it.
func BenchmarkPersonForecast(b *testing.B) {
	ps, cookie := benchSite(b)
	q := "/predictions/" + ps.thread
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := []string{"40", "60"}[i%2]
		req := httptest.NewRequest("POST", q+"/forecast", strings.NewReader(url.Values{"p": {p}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(cookie)
		w := httptest.NewRecorder()
		ps.handler.ServeHTTP(w, req)
		if w.Code != http.StatusSeeOther {
			b.Fatalf("forecast: %d %s", w.Code, w.Body)
		}
		page(b, ps, q, cookie)
	}
}

// BenchmarkQuestionPage reads a question page signed out and signed in,
// in the same run: what a session's check (a cookie, one indexed read)
// adds to a page.
func BenchmarkQuestionPage(b *testing.B) {
	ps, cookie := benchSite(b)
	q := "/predictions/" + ps.thread
	b.Run("signed-out", func(b *testing.B) {
		for b.Loop() {
			page(b, ps, q, nil)
		}
	})
	b.Run("signed-in", func(b *testing.B) {
		for b.Loop() {
			page(b, ps, q, cookie)
		}
	})
}

func page(b *testing.B, ps *benchPeople, path string, cookie *http.Cookie) {
	pageBody(b, ps, path, cookie)
}

// pageBody GETs path from the handler, with cookie when not nil, and
// returns the page; any status but 200 fails b.
func pageBody(b *testing.B, ps *benchPeople, path string, cookie *http.Cookie) string {
	req := httptest.NewRequest("GET", path, nil)
	if cookie != nil {
		req.AddCookie(cookie)
	}
	w := httptest.NewRecorder()
	ps.handler.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d", path, w.Code)
	}
	return w.Body.String()
}

type benchPeople struct {
	*peopleSite
	handler http.Handler
}

// benchSite is the seeded site with one registered person and their
// session cookie; requests go straight to the handler, as the server
// would call it.
func benchSite(b *testing.B) (*benchPeople, *http.Cookie) {
	ps := newPeopleSite(b)
	ps.register(b, "ada", "Ada")
	cs := ps.client.Jar.Cookies(mustURL(ps.base))
	if len(cs) != 1 {
		b.Fatalf("cookies %v", cs)
	}
	return &benchPeople{peopleSite: ps, handler: ps.srv.Config.Handler}, cs[0]
}
