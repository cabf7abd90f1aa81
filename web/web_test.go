package web_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/tools"
)

// escapedXSS is how xss must appear in a page: as text.
var escapedXSS = html.EscapeString(xss)

func TestPages(t *testing.T) {
	f := seed(t)
	srv := newServer(t, f)
	cases := []pageCase{
		{"feed", "/", 200, []string{
			"<h1>Board</h1>", "Showing 1–20 of 29 predictions in <bdi>all domains</bdi>.", escapedXSS,
			`rel="next" href="/?cursor=`, `<span class="domain">AI</span>`, "flagged: instructions",
			`href="/agents/xss-agent"`, "1 disagree", "7 replies", "1 challenge", "1 debate",
		}, []string{xss}},
		{"feed by domain", "/?domain=science", 200, []string{"in <bdi>Science</bdi>.", `aria-current="true" class="active">Science</a>`, "Fusion start-up reaches Q &gt; 1"}, []string{"Question 01 resolves"}},
		{"feed sorted by confidence", "/?sort=confidence&limit=1", 200, []string{"Showing 1–1 of 29", "Question 24 resolves yes", `&amp;limit=1&amp;sort=confidence">Next →`}, nil},
		{"feed sorted by popularity", "/?sort=popular&limit=1", 200, []string{"Fusion start-up"}, nil},
		{"feed closing soonest", "/?sort=closing", 200, []string{`aria-current="true" class="active">closing</a>`}, []string{"Question 01 resolves yes"}},
		{"feed last page", "/?offset=20", 200, []string{"Showing 21–29 of 29", `href="/"`, `<span class="disabled" aria-disabled="true">Next →</span>`}, nil},
		{"feed past the end", "/?offset=100", 200, []string{"No predictions in <bdi>all domains</bdi> on this page."}, nil},
		{"feed search", "/?q=fusion", 200, []string{"Fusion start-up reaches Q &gt; 1", `value="fusion"`, "matching “fusion”"}, []string{"Question 01 resolves"}},
		{"feed search keeps filters", "/?q=question&domain=Science&status=resolved", 200, []string{`<input type="hidden" name="domain" value="Science">`, `<input type="hidden" name="status" value="resolved">`, `href="/?q=question&amp;status=resolved">All</a>`}, nil},
		{"feed by status", "/?status=resolved", 200, []string{"resolved predictions in", `aria-current="true" class="active">resolved</a>`, "Question 01 resolves yes"}, []string{"Fusion start-up"}},
		{"feed by agent", "/?agent_id=skeptic", 200, []string{"by skeptic", `id="agent-filter"`, "show every agent"}, nil},
		{"feed empty search is no search", "/?q=+", 200, []string{"of 29 predictions"}, nil},
		{"feed bad search", "/?q=%21%21", 400, []string{"q has no word to search for"}, nil},
		{"feed bad status", "/?status=closing", 400, []string{"status", "closing", "open, closed, resolved or void"}, []string{"status=closing"}},
		{"feed bad cursor", "/?cursor=nope", 400, []string{"cursor is not a cursor of this board", "next_cursor"}, nil},
		{"feed cursor with offset", "/?offset=1&cursor=nope", 400, []string{"cursor"}, nil},
		{"feed bad limit", "/?limit=abc", 400, []string{"limit is &#34;abc&#34;; it must be a whole number of at least 1.", "such as limit=20"}, nil},
		{"feed bad offset", "/?offset=-1", 400, []string{"offset is &#34;-1&#34;; it must be a whole number of at least 0."}, nil},
		{"feed bad domain", "/?domain=astrology", 400, []string{"domain", "astrology"}, []string{"domain=astrology"}},
		{"feed bad sort", "/?sort=random", 400, []string{"sort", "random"}, nil},
		{"feed big limit", "/?limit=500", 200, []string{"Showing 1–29 of 29", "clamped to 100"}, nil},
		{"prediction", "/predictions/" + f.thread, 200, []string{
			`<h1 dir="auto">Fusion start-up reaches Q &gt; 1</h1>`, "25%", "Based on published milestones.\nSecond line.",
			`<ul class="thread">`, "Which milestones?", "The ones in the 2025 report.", "flagged: instructions",
			"1 agree", "1 disagree", "1 uncertain", "(7 replies)", escapedXSS,
			`<span class="kind kind-challenge">challenge</span>`, `<span class="kind kind-debate">debate</span>`, "Scientific breakeven is the usual bar.",
		}, []string{xss}},
		{"prediction with script", "/predictions/" + f.xssID, 200, []string{`<h1 dir="auto">` + escapedXSS + "</h1>", "<title>" + escapedXSS + " · predictions</title>", `<div class="text" id="body" dir="auto">` + escapedXSS}, []string{xss}},
		{"flagged prediction", "/predictions/" + f.flagged, 200, []string{`<span class="flag">flagged: instructions</span>`, html.EscapeString(injection),
			"Closed, awaiting resolution", "<dt>Closes</dt>"}, []string{`id="outcome"`}},
		{"void prediction", "/predictions/" + f.void, 200, []string{"The question was voided", `id="outcome"`}, []string{`class="conf-big"`}},
		{"feed void", "/?status=void", 200, []string{`<div class="conf void">void<small>not scored</small></div>`, "Question 26"}, []string{`<small>community</small>`}},
		{"feed closing resolved", "/?sort=closing&status=resolved", 200, []string{`id="empty"`, "The closing sort lists only open predictions, and resolved ones have closed"}, nil},
		// The closing sort lists open predictions only: the chip lit is "open".
		{"feed closing chips", "/?sort=closing", 200, []string{`aria-current="true" class="active">open</a>`, `<a href="/">all</a>`},
			[]string{`class="active">all</a>`, `sort=closing&amp;status=resolved`}},
		{"feed search nothing", "/?q=zebra", 200, []string{"No prediction here holds every word of the search"}, nil},
		{"feed sort key", "/?sort=confidence", 200, []string{`id="sort-note"`, "By the author", `<span class="sortkey">author <span class="author-conf">94%</span></span>`}, nil},
		{"feed sorted by popularity", "/?sort=popular", 200, []string{`<span class="sortkey popularity">10 reactions and replies</span>`}, nil},
		{"reply badges and reaction names", "/predictions/" + f.thread, 200, []string{`<span class="kind kind-challenge">challenge</span>`,
			`<div class="text" dir="auto">The 2025 report was revised in March.</div>`, `href="/agents/oracle-1"><bdi>Oracle One</bdi></a>: <span class="disagree">`,
			"pooled by the geometric mean of odds"}, []string{"[CHALLENGE]", "geo_odds"}},
		{"feed skip links", "/", 200, []string{`<a class="skip" href="#main">Skip to content</a>
<a class="skip" href="#feed">Skip to the predictions</a>
<a class="skip" href="#pager">Skip to the pages</a>`, `<nav class="pager" id="pager" aria-label="Pages" tabindex="-1">`}, nil},
		{"empty feed skips no list", "/?q=zebra", 200, nil, []string{`href="#feed">Skip`}},
		{"feed closes", "/?status=closed", 200, []string{`<span class="closes">closed <time datetime=`}, nil},
		{"feed closed", "/?status=closed", 200, []string{"Markets fall next week", `aria-current="true" class="active">closed</a>`}, []string{"Fusion start-up"}},
		{"resolved prediction", "/predictions/" + f.resolve, 200, []string{`id="outcome"`, "Resolved", "resolved ", `id="scores"`, "Peer", `href="/agents/skeptic"`, "35%"}, nil},
		{"prediction forecasts", "/predictions/" + f.thread, 200, []string{`<svg class="plot history"`, "Community forecast", "from 3 agents", `id="standing"`, "(4 forecasts)", "55%"}, []string{`id="scores"`}},
		{"agents by peer score", "/agents?sort=peer_score", 200, []string{`aria-current="true" class="active">peer score</a>`, "Peer score"}, nil},
		{"agents bad sort", "/agents?sort=luck", 400, []string{"sort", "luck", "peer_score"}, nil},
		{"agents one at a time", "/agents?sort=trust&limit=1", 200, []string{"Showing 1–1 of ", `rel="next" href="/agents?cursor=`, `&amp;limit=1&amp;sort=trust">Next →`,
			`href="/agents?limit=1">recently seen</a>`}, nil},
		{"agents bad cursor", "/agents?cursor=nope", 400, []string{"cursor is not a cursor of this board", "Next link"}, nil},
		{"agents bad limit", "/agents?limit=0", 400, []string{"limit is &#34;0&#34;; it must be a whole number of at least 1.", "such as limit=50"}, nil},
		{"agents big limit", "/agents?limit=500", 200, []string{"clamped to 200"}, nil},
		{"agent forecasts", "/agents/skeptic", 200, []string{`id="agent-forecasts"`, "Question 01 resolves yes", "Fusion start-up"}, nil},
		{"agent predictions", "/agents/oracle-1", 200, []string{`id="open"`, "Open predictions <small>(", `id="resolved"`, "Resolved predictions <small>(20)</small>", `href="/agents/oracle-1?resolved=`}, nil},
		{"agent predictions bad cursor", "/agents/oracle-1?resolved=nope", 400, []string{"resolved is not a cursor of this board", "Next link"}, nil},
		{"agent forecasts bad offset", "/agents/skeptic?offset=-1", 400, []string{"offset"}, nil},
		{"unknown prediction", "/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc", 404, []string{"No prediction has the id"}, nil},
		{"malformed prediction id", "/predictions/%3Cscript%3E", 404, []string{"No prediction has the id &#34;&lt;script&gt;&#34;."}, []string{"<script>\""}},
		{"agents", "/agents", 200, []string{`<table class="data sticky agents" id="agents">`, `<th scope="row"><a class="agent" href="/agents/oracle-1"><bdi>Oracle One</bdi></a>`, "oracle-1", escapedXSS, "Trust", "Brier", "Scored", `aria-sort="descending"><a href="/agents" aria-current="true">Last seen</a>`}, []string{xss, "Accuracy"}},
		{"agent", "/agents/oracle-1", 200, []string{`<h1 dir="auto">Oracle One</h1>`, `<svg class="plot calibration"`, "perfect calibration", "20 of 26 predictions", `id="calibration"`}, nil},
		{"agent without scored forecasts", "/agents/watcher", 200, []string{"No forecast of this agent is scored yet"}, []string{"<svg"}},
		// skeptic posted nothing that resolved, but its forecast on a
		// resolved question is scored: the plot reads it.
		{"agent calibration from forecasts", "/agents/skeptic", 200, []string{`<svg class="plot calibration"`, "1 scored forecast"}, nil},
		{"agent with script name", "/agents/xss-agent", 200, []string{`<h1 dir="auto">` + escapedXSS + "</h1>"}, []string{xss}},
		{"unknown agent", "/agents/nobody", 404, []string{"No agent has the id &#34;nobody&#34;."}, nil},
		{"malformed agent id", "/agents/a%20b", 404, []string{"No agent has the id"}, nil},
		{"unknown tool", "/tools/no_such_tool", 404, []string{"There is no tool named &#34;no_such_tool&#34;."}, nil},
		{"settings", "/settings", 200, []string{"Settings builder", tools.DraftedSettingsRule, `id="preview"`}, nil},
		{"unknown page", "/no/such/page", 404, []string{"There is no page at /no/such/page."}, nil},
		{"unknown static file", "/static/nope.css", 404, []string{"There is no page"}, nil},
	}
	toolsCase := pageCase{"tools", "/tools", 200, nil, nil}
	for _, tl := range tools.All() {
		toolsCase.want = append(toolsCase.want, `id="form-`+tl.Name+`" action="/tools/`+tl.Name+`#result"`, html.EscapeString(tl.Title))
	}
	cases = append(cases, toolsCase)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := get(t, srv, c.path)
			if status != c.status {
				t.Errorf("GET %s: status %d, want %d", c.path, status, c.status)
			}
			checkPage(t, c.path, h, body)
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: body lacks %q", c.path, w)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(body, a) {
					t.Errorf("GET %s: body has %q", c.path, a)
				}
			}
			if t.Failed() {
				t.Logf("body:\n%s", body)
			}
		})
	}
}

// pageCase is a GET of a page and what its answer must (not) contain.
type pageCase struct {
	name   string
	path   string
	status int
	want   []string // substrings of the body
	absent []string
}

// scriptTag finds script elements; each must load a file (src), since
// the Content-Security-Policy forbids inline script.
var (
	scriptTag = regexp.MustCompile(`<script\b[^>]*>`)
	styleAttr = regexp.MustCompile(`<[^>]*\sstyle=`)
	// The static files are linked by their hashed names.
	appScript      = regexp.MustCompile(`^<script src="/static/app\.[0-9a-f]{12}\.js" defer>$`)
	stylesheetLink = regexp.MustCompile(`<link rel="stylesheet" href="/static/style\.[0-9a-f]{12}\.css">`)
	faviconLink    = regexp.MustCompile(`<link rel="icon" href="/static/favicon\.[0-9a-f]{12}\.svg" type="image/svg\+xml">`)
)

// checkPage checks what every page carries: HTML, the security headers,
// the viewport, the navigation, the disclaimer and the terms link.
func checkPage(t *testing.T, path string, h http.Header, body string) {
	t.Helper()
	if ct := h.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	csp := h.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET %s: no X-Content-Type-Options: nosniff", path)
	}
	for _, w := range []string{
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		html.EscapeString(tools.Disclaimer), `<a href="/terms">Terms of service</a>`,
		`>Board</a>`, `<a href="/agents"`, `<a href="/tools"`, `<a href="/settings"`,
		`<a href="/llms.txt">`, `<a href="/openapi.json">`, `<a href="/predictions.md">`,
		"<body>\n<a class=\"skip\" href=\"#main\">Skip to content</a>", `<main id="main" tabindex="-1">`,
	} {
		if !strings.Contains(body, w) && !strings.Contains(body, strings.TrimSuffix(w, ">")) {
			t.Errorf("GET %s: page lacks %q", path, w)
		}
	}
	for _, re := range []*regexp.Regexp{stylesheetLink, faviconLink} {
		if !re.MatchString(body) {
			t.Errorf("GET %s: page lacks a match of %s", path, re)
		}
	}
	for _, tag := range scriptTag.FindAllString(body, -1) {
		if !appScript.MatchString(tag) {
			t.Errorf("GET %s: script element %q (only /static/app.<hash>.js may run)", path, tag)
		}
	}
	if i := strings.Index(body, "%!"); i >= 0 {
		t.Errorf("GET %s: a formatting error is shown: %q", path, body[i:min(i+40, len(body))])
	}
	if m := styleAttr.FindString(body); m != "" {
		t.Errorf("GET %s: inline style %q (the CSP forbids it)", path, m)
	}
}

func TestNoBoard(t *testing.T) {
	srv := newServer(t, nil)
	for _, c := range []pageCase{
		{"feed", "/", 200, []string{"The board is not configured on this server.", `href="/tools"`}, []string{`id="feed"`}},
		{"agents", "/agents", 200, []string{"The board is not configured on this server."}, []string{`id="agents"`}},
		{"prediction", "/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc", 404, []string{"This server has no agent board configured"}, nil},
		{"agent", "/agents/oracle-1", 404, []string{"This server has no agent board configured"}, nil},
		{"tools", "/tools", 200, []string{`id="form-convert_odds"`}, nil},
		{"settings", "/settings?preset=team", 200, []string{`id="preview"`}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := get(t, srv, c.path)
			if status != c.status {
				t.Errorf("GET %s: status %d, want %d", c.path, status, c.status)
			}
			checkPage(t, c.path, h, body)
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: body lacks %q", c.path, w)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(body, a) {
					t.Errorf("GET %s: body has %q", c.path, a)
				}
			}
		})
	}
}

func TestMethodsAndStatic(t *testing.T) {
	srv := newServer(t, nil)
	do := func(method, path string, header http.Header) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// The pages link the static files by their hashed names.
	_, _, page := get(t, srv, "/tools")
	hashed := map[string]string{} // "style" → "/static/style.<hash>.css"
	for _, m := range regexp.MustCompile(`"(/static/(style|app|favicon)\.[0-9a-f]{12}\.(?:css|js|svg))"`).FindAllStringSubmatch(page, -1) {
		hashed[m[2]] = m[1]
	}
	if len(hashed) != 3 {
		t.Fatalf("/tools links %v, want the hashed style, app and favicon", hashed)
	}
	type answer struct {
		Status       int
		ContentType  string
		CacheControl string
	}
	const immutable, short = "public, max-age=31536000, immutable", "public, max-age=300"
	for _, c := range []struct {
		method, path string
		header       http.Header
		want         answer
	}{
		{"HEAD", "/", nil, answer{200, "text/html; charset=utf-8", "no-cache"}},
		{"HEAD", "/tools/convert_odds", nil, answer{200, "text/html; charset=utf-8", "no-cache"}},
		{"POST", "/", nil, answer{405, "text/html; charset=utf-8", "no-store"}},
		{"DELETE", "/settings", nil, answer{405, "text/html; charset=utf-8", "no-store"}},
		{"GET", hashed["style"], nil, answer{200, "text/css; charset=utf-8", immutable}},
		{"GET", hashed["app"], nil, answer{200, "text/javascript; charset=utf-8", immutable}},
		{"GET", hashed["favicon"], nil, answer{200, "image/svg+xml", immutable}},
		{"GET", "/static/style.css", nil, answer{200, "text/css; charset=utf-8", short}},
		{"GET", "/static/app.js", nil, answer{200, "text/javascript; charset=utf-8", short}},
		{"GET", "/static/favicon.svg", nil, answer{200, "image/svg+xml", short}},
		{"GET", "/static/style.000000000000.css", nil, answer{404, "text/html; charset=utf-8", "no-store"}},
		{"GET", "/static/", nil, answer{404, "text/html; charset=utf-8", "no-store"}},
	} {
		resp := do(c.method, c.path, c.header)
		got := answer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control")}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.method, c.path, diff)
		}
	}
	// The hashed name and the plain name serve the same bytes.
	for name, path := range hashed {
		plain := "/static/" + name + path[strings.LastIndex(path, "."):]
		_, _, a := get(t, srv, path)
		_, _, b := get(t, srv, plain)
		if a != b || a == "" {
			t.Errorf("%s and %s serve different bytes", path, plain)
		}
	}
	for _, path := range []string{"/static/style.css", hashed["style"]} {
		etag := do("GET", path, nil).Header.Get("ETag")
		if etag == "" {
			t.Fatalf("no ETag on %s", path)
		}
		if resp := do("GET", path, http.Header{"If-None-Match": {etag}}); resp.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: status %d, want 304", path, resp.StatusCode)
		}
	}
}

// TestFeedCursorPages follows the feed's Next links to the end: every
// prediction shows once, and the pages after the first link back to it.
func TestFeedCursorPages(t *testing.T) {
	srv := newServer(t, seed(t))
	next := regexp.MustCompile(`rel="next" href="([^"]+)"`)
	card := regexp.MustCompile(`<h2><a href="/predictions/([0-9a-f-]{36})"`)
	seen := map[string]bool{}
	path := "/?limit=7&sort=confidence"
	for pages := 1; ; pages++ {
		status, _, body := get(t, srv, path)
		if status != 200 {
			t.Fatalf("GET %s: %d", path, status)
		}
		for _, m := range card.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Errorf("GET %s: %s again", path, m[1])
			}
			seen[m[1]] = true
		}
		if pages > 1 && !strings.Contains(body, `href="/?limit=7&amp;sort=confidence">← First page</a>`) {
			t.Errorf("GET %s: no link to the first page", path)
		}
		m := next.FindStringSubmatch(body)
		if m == nil {
			break
		}
		path = html.UnescapeString(m[1])
	}
	if len(seen) != 29 {
		t.Errorf("the pages showed %d predictions, want 29", len(seen))
	}
}

// TestAgentPredictionPages follows the Next links of an agent's resolved
// predictions: each of its 20 shows once, and the open list keeps its
// place.
func TestAgentPredictionPages(t *testing.T) {
	srv := newServer(t, seed(t))
	next := regexp.MustCompile(`<a href="(/agents/oracle-1\?[^"]*resolved=[^"]+)">Next →</a>`)
	section := regexp.MustCompile(`(?s)<section aria-labelledby="resolved-h" id="resolved">.*?</section>`)
	card := regexp.MustCompile(`<h2><a href="/predictions/([0-9a-f-]{36})"`)
	seen := map[string]bool{}
	path := "/agents/oracle-1"
	for {
		status, _, body := get(t, srv, path)
		if status != 200 {
			t.Fatalf("GET %s: %d", path, status)
		}
		for _, m := range card.FindAllStringSubmatch(section.FindString(body), -1) {
			if seen[m[1]] {
				t.Errorf("GET %s: %s again", path, m[1])
			}
			seen[m[1]] = true
		}
		m := next.FindStringSubmatch(body)
		if m == nil {
			break
		}
		path = html.UnescapeString(m[1])
	}
	if len(seen) != 20 {
		t.Errorf("the resolved pages showed %d predictions, want 20", len(seen))
	}
}

// TestAgentsPages follows the leaderboard's Next links, two agents a
// page, in every order: each agent appears once, in the order of the
// whole list.
func TestAgentsPages(t *testing.T) {
	srv := newServer(t, seed(t))
	row := regexp.MustCompile(`<th scope="row"><a class="agent" href="/agents/([^"]+)">`)
	next := regexp.MustCompile(`<a rel="next" href="([^"]+)">Next →</a>`)
	ids := func(body string) []string {
		var out []string
		for _, m := range row.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	for _, sort := range []string{"recent", "peer_score", "brier", "trust"} {
		t.Run(sort, func(t *testing.T) {
			_, _, body := get(t, srv, "/agents?limit=200&sort="+sort)
			whole := ids(body)
			if len(whole) < 3 {
				t.Fatalf("%d agents on the board; the test needs at least 3", len(whole))
			}
			var walked []string
			path := "/agents?limit=2&sort=" + sort
			for pages := 0; path != ""; pages++ {
				if pages > len(whole) {
					t.Fatalf("more pages than agents")
				}
				status, _, body := get(t, srv, path)
				if status != http.StatusOK {
					t.Fatalf("GET %s: status %d", path, status)
				}
				walked = append(walked, ids(body)...)
				path = ""
				if m := next.FindStringSubmatch(body); m != nil {
					path = html.UnescapeString(m[1])
				}
			}
			if diff := cmp.Diff(whole, walked); diff != "" {
				t.Errorf("agents by Next links (-whole list +walk):\n%s", diff)
			}
		})
	}
}
