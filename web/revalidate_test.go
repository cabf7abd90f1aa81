package web_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// TestRevalidate: a page answered 200 to GET carries an ETag of its
// bytes and no-cache; the same ETag in If-None-Match gets a 304 without
// a body until the page changes; errors and forms sent by POST are not
// stored.
func TestRevalidate(t *testing.T) {
	f := seed(t)
	srv := newServer(t, f)
	do := func(method, path, inm string, body io.Reader) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, body)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	type answer struct {
		Status       int
		CacheControl string
		ETag         bool
		Body         bool
	}
	of := func(resp *http.Response, body string) answer {
		return answer{resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("ETag") != "", body != ""}
	}
	for _, path := range []string{"/", "/predictions/" + f.thread, "/agents", "/agents/oracle-1", "/tools/convert_odds?value=2.5", "/settings?preset=team"} {
		resp, body := do("GET", path, "", nil)
		if diff := cmp.Diff(answer{200, "no-cache", true, true}, of(resp, body)); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, diff)
		}
		etag := resp.Header.Get("ETag")
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			resp, body := do("GET", path, inm, nil)
			if diff := cmp.Diff(answer{304, "no-cache", true, false}, of(resp, body)); diff != "" {
				t.Errorf("GET %s with If-None-Match %s (-want +got):\n%s", path, inm, diff)
			}
		}
		if resp, _ := do("GET", path, `"other"`, nil); resp.StatusCode != 200 {
			t.Errorf("GET %s with another ETag: status %d, want 200", path, resp.StatusCode)
		}
	}
	// A change to the board changes the feed's ETag.
	resp, _ := do("GET", "/?sort=popular", "", nil)
	before := resp.Header.Get("ETag")
	f.clock.Advance(time.Minute)
	if _, err := f.store.React(context.Background(), f.thread, board.NewReaction{AgentID: "watcher", Reaction: "agree"}); err != nil {
		t.Fatal(err)
	}
	if resp, _ := do("GET", "/?sort=popular", before, nil); resp.StatusCode != 200 || resp.Header.Get("ETag") == before {
		t.Errorf("after a reaction: status %d, ETag %s (was %s); want 200 and a new ETag", resp.StatusCode, resp.Header.Get("ETag"), before)
	}
	for _, c := range []struct {
		method, path string
		body         io.Reader
	}{
		{"GET", "/agents/nobody", nil},
		{"GET", "/?limit=abc", nil},
		{"GET", "/tools/convert_odds?value=abc", nil},
		{"POST", "/tools/check_forecast_md", strings.NewReader(url.Values{"text": {"# Forecasts\n"}}.Encode())},
	} {
		resp, body := do(c.method, c.path, "", c.body)
		if got := of(resp, body); got.CacheControl != "no-store" || got.ETag {
			t.Errorf("%s %s: status %d, Cache-Control %q, ETag %v; want no-store and no ETag", c.method, c.path, got.Status, got.CacheControl, got.ETag)
		}
	}
}

// TestLinkPreviews: the feed, a prediction and an agent describe
// themselves in a description and Open Graph tags.
func TestLinkPreviews(t *testing.T) {
	f := seed(t)
	srv := newServer(t, f)
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/", []string{`<meta name="description" content="Predictions posted by AI agents, with community forecasts, closes and scores: 29 predictions in all domains.">`,
			`<meta property="og:type" content="website">`, `<meta property="og:url" content="https://predictions.example/">`, `<meta property="og:title" content="Board">`}},
		{"/predictions/" + f.thread, []string{`<meta property="og:description" content="Community forecast 42.6% from 3 agents; open. Based on published milestones. Second line.">`,
			`<meta property="og:type" content="article">`, `<meta property="og:url" content="https://predictions.example/predictions/` + f.thread + `">`}},
		{"/predictions/" + f.resolve, []string{`content="Community forecast 11.4% from 2 agents; resolved no.`}},
		{"/predictions/" + f.void, []string{`<meta name="description" content="Void: not scored. Reasoning for question 26.">`}},
		{"/predictions/" + f.xssID, []string{`content="` + html.EscapeString(xss)}},
		{"/agents/oracle-1", []string{`<meta property="og:type" content="profile">`, `content="Agent Oracle One: trust `, `26 predictions posted.">`}},
		{"/tools", []string{`<meta name="description" content="Calibrated forecasts on yes/no questions`}},
	} {
		_, _, body := get(t, srv, c.path)
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: body lacks %s", c.path, w)
			}
		}
		if strings.Contains(body, xss) {
			t.Errorf("GET %s: the script is not escaped", c.path)
		}
	}
}
