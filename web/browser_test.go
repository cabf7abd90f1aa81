package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/web"
)

// screenshotEnv names the directory that receives the screenshots; unset,
// none are taken (a full-page PNG costs Chromium a quarter of a second
// to a second, and the suite's time is shared by every test).
const screenshotEnv = "PREDICTIONS_SCREENSHOTS"

// chromium returns the path of a Chromium or Chrome on PATH, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium shared by the subtests, each of which
// opens its own tab.
type browser struct {
	ctx   context.Context
	base  string
	shots string // the directory the screenshots go to; "" takes none
}

// tab opens a tab that records script errors and Content-Security-Policy
// violations; the subtest fails if there are any.
func (b *browser) tab(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("script error at %s:%d: %s", d.URL, d.LineNumber+1, msg))
		case *log.EventEntryAdded:
			if strings.Contains(e.Entry.Text, "Content Security Policy") {
				problems = append(problems, "CSP: "+e.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, log.Enable, cdp.Empty{})
		return err
	})); err != nil {
		t.Fatalf("enabling the log: %v", err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("in the browser: %s", p)
		}
	})
	return ctx
}

// open navigates to path and checks the status.
func (b *browser) open(t *testing.T, ctx context.Context, path string, status int) {
	t.Helper()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(b.base+path))
	if err != nil {
		t.Fatalf("navigating to %s: %v", path, err)
	}
	if int(resp.Status) != status {
		t.Fatalf("GET %s in the browser: status %d, want %d", path, resp.Status, status)
	}
}

// follow runs a step that navigates (a click on a link or a submit button)
// and waits for the new page.
func (b *browser) follow(t *testing.T, ctx context.Context, step chromedp.Action[chromedp.Void], status int) {
	t.Helper()
	resp, err := chromedp.RunResponse(ctx, step)
	if err != nil {
		t.Fatalf("following a link: %v", err)
	}
	if int(resp.Status) != status {
		t.Fatalf("%s: status %d, want %d", resp.URL, resp.Status, status)
	}
}

// shot saves a full-page PNG screenshot named name.png in the directory
// that screenshotEnv names; unset, it does nothing.
func (b *browser) shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if b.shots == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		t.Errorf("saving screenshot %s: %v", name, err)
	}
}

// eval runs a JavaScript expression and returns its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition for up to five seconds.
func waitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Fatalf("waiting for %s: %v", cond, err)
	}
}

// phone makes the tab a 390 × 844 phone screen.
func phone(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
		t.Fatalf("phone viewport: %v", err)
	}
}

// startBrowser starts a headless Chromium at exe for the pages at base,
// under one deadline, so that a hung Chromium cannot hang the suite; it
// ends with the test.
func startBrowser(t *testing.T, exe, base string) *browser {
	t.Helper()
	// One deadline for the whole browser, so a hung Chromium cannot hang the suite.
	root, stop := context.WithTimeout(context.Background(), 9*time.Minute)
	t.Cleanup(stop)
	alloc, cancelAlloc := chromedp.NewExecAllocator(root,
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium makes its singleton socket's directory under TMPDIR and
		// leaves it behind when the test ends it: keep it in the test's.
		chromedp.Env("TMPDIR="+t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	b := &browser{ctx: bctx, base: base, shots: os.Getenv(screenshotEnv)}
	if b.shots != "" {
		if err := os.MkdirAll(b.shots, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { t.Logf("screenshots in %s", b.shots) })
	}
	return b
}

// TestBrowser drives the pages in headless Chromium, through the HTTP API
// with the pages mounted as cmd/predictions serves them.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests take a minute: skipped with -short")
	}
	exe := chromium()
	if exe == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: browser tests skipped (on Debian: apt-get install chromium)")
	}
	f := seed(t)
	long := addHostile(t, f)
	app := httpapi.New(httpapi.Options{Logger: discard, Board: boardapi.New(boardapi.Options{Store: f.store}),
		Pages: web.New(web.Options{Board: f.store, Now: f.clock.Now, MCP: true, Logger: discard})})
	srv := httptest.NewServer(withAxe(t, app))
	t.Cleanup(srv.Close)

	b := startBrowser(t, exe, srv.URL)

	t.Run("feed filters, sorts and pages", func(t *testing.T) {
		ctx := b.tab(t)
		b.open(t, ctx, "/?limit=5", 200)
		titles := func() []string {
			return eval[[]string](t, ctx, `[...document.querySelectorAll('#feed h2 a')].map(a => a.textContent)`)
		}
		first := titles()
		if len(first) != 5 {
			t.Fatalf("first page: %d predictions, want 5", len(first))
		}
		b.shot(t, ctx, "feed")

		b.follow(t, ctx, chromedp.Click(`//p[@id="domains"]/a[normalize-space(.)="Science"]`), 200)
		domains := eval[[]string](t, ctx, `[...document.querySelectorAll('#feed .domain')].map(e => e.textContent)`)
		if len(domains) == 0 || slices.ContainsFunc(domains, func(d string) bool { return d != "Science" }) {
			t.Errorf("after the Science filter: domains %q", domains)
		}
		if slices.Equal(titles(), first) {
			t.Errorf("the Science filter did not change the list")
		}

		b.follow(t, ctx, chromedp.Click(`//p[@id="sorts"]/a[normalize-space(.)="confidence"]`), 200)
		if loc := eval[string](t, ctx, `location.search`); !strings.Contains(loc, "domain=Science") || !strings.Contains(loc, "sort=confidence") {
			t.Errorf("after sorting: address %q, want the domain kept and the sort set", loc)
		}
		// The sort is by the author's confidence; the card's big number is
		// the community forecast.
		confs := eval[[]string](t, ctx, `[...document.querySelectorAll('#feed .author-conf')].map(e => e.textContent)`)
		var ps []float64
		for _, c := range confs {
			p, err := strconv.ParseFloat(strings.TrimSuffix(c, "%"), 64)
			if err != nil {
				t.Fatalf("confidence %q: %v", c, err)
			}
			ps = append(ps, p)
		}
		if !slices.IsSortedFunc(ps, func(a, b float64) int { return int(b - a) }) {
			t.Errorf("sorted by confidence: %v is not highest first", confs)
		}
		b.shot(t, ctx, "feed-science-confidence")

		page1 := titles()
		b.follow(t, ctx, chromedp.Click(chromedp.CSS(`a[rel=next]`)), 200)
		// Pages after the first come by cursor: they link back to the first.
		if r := eval[string](t, ctx, `document.getElementById('range').textContent`); !strings.HasPrefix(r, "Showing 5 more of") {
			t.Errorf("next page: %q", r)
		}
		if page2 := titles(); len(page2) == 0 || slices.Contains(page1, page2[0]) {
			t.Errorf("next page %q overlaps the first %q", page2, page1)
		}
		b.follow(t, ctx, chromedp.Click(`//nav[@class="pager"]/a[normalize-space(.)="← First page"]`), 200)
		if got := titles(); !slices.Equal(got, page1) {
			t.Errorf("previous page: %q, want %q", got, page1)
		}
	})

	t.Run("feed on a phone", func(t *testing.T) {
		ctx := b.tab(t)
		phone(t, ctx)
		b.open(t, ctx, "/", 200)
		fitsWidth(t, ctx, "feed")
		b.shot(t, ctx, "feed-phone")
	})

	t.Run("script in stored text stays text", func(t *testing.T) {
		ctx := b.tab(t)
		b.open(t, ctx, "/predictions/"+f.xssID, 200)
		if got := eval[string](t, ctx, `typeof window.pwned`); got != "undefined" {
			t.Errorf("window.pwned is %s: the stored script ran", got)
		}
		for _, sel := range []string{"h1", "#body", ".facts a.agent"} {
			if got := eval[string](t, ctx, `document.querySelector('`+sel+`').textContent.trim()`); got != xss {
				t.Errorf("%s shows %q, want the text %q", sel, got, xss)
			}
		}
		b.shot(t, ctx, "prediction-script")
		b.open(t, ctx, "/", 200)
		if got := eval[string](t, ctx, `typeof window.pwned`); got != "undefined" {
			t.Errorf("feed: window.pwned is %s", got)
		}
	})

	t.Run("prediction with a thread", func(t *testing.T) {
		ctx := b.tab(t)
		b.open(t, ctx, "/predictions/"+f.thread, 200)
		if n := eval[int](t, ctx, `document.querySelectorAll('ul.thread ul.thread ul.thread > li').length`); n != 1 {
			t.Errorf("replies nested three deep: %d, want 1", n)
		}
		if got := eval[string](t, ctx, `document.querySelector('ul.thread .flag').textContent`); got != "flagged: instructions" {
			t.Errorf("flag label %q", got)
		}
		b.shot(t, ctx, "prediction")
		b.open(t, ctx, "/predictions/"+f.resolve, 200)
		if got := eval[string](t, ctx, `document.getElementById('outcome').textContent`); !strings.Contains(got, "Resolved") {
			t.Errorf("outcome %q", got)
		}
		b.shot(t, ctx, "prediction-resolved")
	})

	t.Run("agents and a calibration plot", func(t *testing.T) {
		ctx := b.tab(t)
		b.open(t, ctx, "/agents", 200)
		if n := eval[int](t, ctx, `document.querySelectorAll('#agents tbody tr').length`); n != 5 {
			t.Errorf("agents table: %d rows, want 5", n)
		}
		b.shot(t, ctx, "agents")
		b.follow(t, ctx, chromedp.Click(`//table[@id="agents"]//a[normalize-space(.)="Oracle One"]`), 200)
		if n := eval[int](t, ctx, `document.querySelectorAll('svg.calibration g.bin circle').length`); n == 0 {
			t.Errorf("calibration plot has no points")
		}
		b.shot(t, ctx, "agent")
	})

	t.Run("tools", func(t *testing.T) {
		ctx := b.tab(t)
		b.open(t, ctx, "/tools", 200)
		b.shot(t, ctx, "tools")
		// The first form is sent from the list of all tools, the others
		// from each tool's own page (the same form, filled the same).
		for i, tl := range tools.All() {
			if i > 0 {
				b.open(t, ctx, "/tools/"+tl.Name, 200)
			}
			b.follow(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#form-%s button[type=submit]`, tl.Name))), 200)
			if got := eval[string](t, ctx, `document.getElementById('summary').textContent`); got == "" {
				t.Errorf("%s: empty summary", tl.Name)
			}
			switch tl.Name {
			case "combine_forecasts":
				if n := eval[int](t, ctx, `document.querySelectorAll('svg.scale g.forecast').length`); n != 3 {
					t.Errorf("combine scale: %d forecasts, want 3", n)
				}
			case "score_forecasts":
				if n := eval[int](t, ctx, `document.querySelectorAll('svg.calibration').length`); n != 1 {
					t.Errorf("score_forecasts: %d calibration plots, want 1", n)
				}
			}
			b.shot(t, ctx, "tool-"+tl.Name)
		}

		b.open(t, ctx, "/tools/check_forecast_md", 200)
		if err := chromedp.Do(ctx, chromedp.SetValue(`textarea[name=text]`, checkFile, chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		b.follow(t, ctx, chromedp.Click(chromedp.CSS(`form.tool button[type=submit]`)), 200)
		if n := eval[int](t, ctx, `document.querySelectorAll('svg.calibration g.bin').length`); n == 0 {
			t.Errorf("check_forecast_md of a resolved file: no calibration points")
		}
		b.shot(t, ctx, "tool-check_forecast_md-resolved")

		b.open(t, ctx, "/tools/convert_odds", 200)
		if err := chromedp.Do(ctx, chromedp.SetValue(`input[name=value]`, "abc", chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		b.follow(t, ctx, chromedp.Click(chromedp.CSS(`form.tool button[type=submit]`)), 400)
		if got := eval[string](t, ctx, `document.getElementById('problem').textContent`); !strings.Contains(got, "value") || !strings.Contains(got, "How to fix it") {
			t.Errorf("error shown: %q", got)
		}
		b.shot(t, ctx, "tool-error")
	})

	t.Run("leaderboard on a phone", func(t *testing.T) {
		ctx := b.tab(t)
		phone(t, ctx)
		b.open(t, ctx, "/agents", 200)
		fitsWidth(t, ctx, "/agents")
		if !eval[bool](t, ctx, `document.querySelector('.scroll-cue').checkVisibility()`) {
			t.Errorf("the leaderboard is wider than the phone and the scroll cue is hidden")
		}
		// Scrolled sideways, the agent column stays in place while the others move.
		got := eval[[]float64](t, ctx, `(() => {
			const box = document.querySelector('#agents').closest('.scroll');
			const first = () => document.querySelector('#agents tbody th').getBoundingClientRect().left;
			const trust = () => document.querySelector('#agents tbody td').getBoundingClientRect().left;
			const before = [first(), trust()];
			box.scrollLeft = 150;
			return [...before, first(), trust(), box.scrollLeft];
		})()`)
		if got[4] == 0 || got[2] != got[0] || got[3] >= got[1] {
			t.Errorf("after scrolling the leaderboard by %v px: agent column at %v → %v, trust column %v → %v; want the first to stay and the second to move",
				got[4], got[0], got[2], got[1], got[3])
		}
		b.shot(t, ctx, "agents-phone-scrolled")
		// Once the table fits (here: its other columns removed), the cue goes.
		eval[bool](t, ctx, `(() => { document.querySelectorAll('#agents td, #agents thead th:not(:first-child)').forEach(c => c.remove());
			window.dispatchEvent(new Event('resize')); return true })()`)
		waitFor(t, ctx, `!document.querySelector('.scroll-cue').checkVisibility()`)
	})

	t.Run("tool on a phone", func(t *testing.T) {
		ctx := b.tab(t)
		phone(t, ctx)
		b.open(t, ctx, "/tools/combine_forecasts?forecasts=agent%3Ascout%2C+0.62%0Aagent%3Askeptic%2C+35%25%0Aperson%2C+0.55&method=geo_odds", 200)
		fitsWidth(t, ctx, "combine_forecasts")
		b.shot(t, ctx, "tool-combine_forecasts-phone")
		b.open(t, ctx, "/tools", 200)
		fitsWidth(t, ctx, "tools")
	})

	t.Run("settings builder", func(t *testing.T) {
		ctx := b.tab(t)
		b.open(t, ctx, "/settings", 200)
		b.follow(t, ctx, chromedp.Click(chromedp.CSS(`input[name=preset][value=team]`)), 200)
		if loc := eval[string](t, ctx, `location.search`); loc != "?preset=team" {
			t.Errorf("picking team: address %q", loc)
		}
		before := eval[string](t, ctx, `document.getElementById('preview').textContent`)
		if !strings.Contains(eval[string](t, ctx, `document.getElementById('changes').textContent`), "Nothing changes") {
			t.Errorf("a fresh preset lists changes")
		}
		// Change a setting as a person would: the page updates without a reload.
		eval[bool](t, ctx, `(() => { const s = document.getElementById('s-pool'); s.value = 'median'; s.dispatchEvent(new Event('change', {bubbles: true})); return true })()`)
		waitFor(t, ctx, `document.getElementById('changes').textContent.includes('pool')`)
		changes := eval[string](t, ctx, `document.querySelector('ul.changes').textContent`)
		if !strings.Contains(changes, "geo_odds → median") {
			t.Errorf("what will change: %q", changes)
		}
		after := eval[string](t, ctx, `document.getElementById('preview').textContent`)
		if after == before || !strings.Contains(after, "median") {
			t.Errorf("the skill file preview did not change with pool=median")
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('.setting.changed').length`); n != 1 {
			t.Errorf("%d settings marked changed, want 1", n)
		}
		if !strings.Contains(eval[string](t, ctx, `location.search`), "pool=median") {
			t.Errorf("the address does not carry the change")
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('#install').length`); n != 0 {
			t.Errorf("install command shown before saying yes")
		}
		b.shot(t, ctx, "settings-changed")

		b.follow(t, ctx, chromedp.Click(chromedp.CSS(`#confirm`)), 200)
		install := eval[string](t, ctx, `document.getElementById('install').textContent`)
		if !strings.Contains(install, "curl -fsSL") || !strings.Contains(install, "preset=team&pool=median") {
			t.Errorf("install command %q", install)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button[data-copy=install]`), chromedp.NodeVisible)); err != nil {
			t.Fatalf("copy button: %v", err)
		}
		waitFor(t, ctx, `document.getElementById('copied').textContent !== ''`)
		b.shot(t, ctx, "settings-confirmed")
	})

	// The checks themselves: axe-core finds a broken page, and a page
	// wider than the phone is caught.
	t.Run("the checks catch faults", func(t *testing.T) {
		ctx := b.tab(t)
		phone(t, ctx)
		b.open(t, ctx, "/tools", 200)
		eval[bool](t, ctx, `(() => { const m = document.getElementById('main');
			m.insertAdjacentHTML('beforeend', '<img src="/static/favicon.svg">');
			const p = document.createElement('p'); p.style.width = '900px'; p.textContent = 'wide'; m.append(p); return true })()`)
		var ids []string
		for _, f := range axeRun(t, ctx, "a broken page") {
			if slices.Contains(axeBlocking, f.Impact) {
				ids = append(ids, f.ID)
			}
		}
		if !slices.Contains(ids, "image-alt") {
			t.Errorf("axe-core on an image without alt text: serious or critical %q, want image-alt", ids)
		}
		if w := eval[[]int](t, ctx, widthsJS); !tooWide(w) {
			t.Errorf("a 900 px paragraph: widths %v pass as fitting", w)
		}
	})

	// Every page at both widths: axe-core finds nothing serious, and at
	// 390 px the page does not scroll sideways.
	type page struct {
		name, path string
		status     int
		submit     bool // press the form's button, then check the result page
		outside    bool // served by httpapi outside the site layout: no skip link yet
	}
	pages := []page{
		{name: "feed", path: "/", status: 200},
		{name: "feed-science-confidence", path: "/?domain=Science&sort=confidence", status: 200},
		{name: "feed-last-page", path: "/?offset=20", status: 200},
		{name: "feed-bad-limit", path: "/?limit=abc", status: 400},
		{name: "prediction-thread", path: "/predictions/" + f.thread, status: 200},
		{name: "prediction-resolved", path: "/predictions/" + f.resolve, status: 200},
		{name: "prediction-flagged", path: "/predictions/" + f.flagged, status: 200},
		{name: "prediction-script", path: "/predictions/" + f.xssID, status: 200},
		{name: "prediction-long", path: "/predictions/" + long, status: 200},
		{name: "agents", path: "/agents", status: 200},
		{name: "agents-peer", path: "/agents?sort=peer_score", status: 200},
		{name: "agent-oracle", path: "/agents/oracle-1", status: 200},
		{name: "agent-skeptic", path: "/agents/skeptic", status: 200},
		{name: "agent-long", path: "/agents/" + longAgentID, status: 200},
		{name: "tools", path: "/tools", status: 200},
		{name: "tool-error", path: "/tools/convert_odds?value=abc", status: 400},
		{name: "tool-error-setting", path: "/tools/build_settings?pool=bogus", status: 400},
		{name: "tool-error-above", path: "/tools/score_forecasts?forecasts=0.5%2C+yes&edges=abc", status: 400},
		{name: "settings", path: "/settings", status: 200},
		{name: "settings-confirmed", path: "/settings?preset=team&pool=median&confirm=yes", status: 200},
		{name: "not-found", path: "/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc", status: 404},
		{name: "agent-not-found", path: "/agents/nobody", status: 404},
		{name: "terms", path: "/terms", status: 200, outside: true},
	}
	for _, tl := range tools.All() {
		pages = append(pages, page{name: "tool-" + tl.Name, path: "/tools/" + tl.Name, status: 200, submit: true})
	}
	for _, width := range []struct {
		name  string
		phone bool
	}{{"desktop", false}, {"phone", true}} {
		t.Run("every page on "+width.name, func(t *testing.T) {
			ctx := b.tab(t)
			if width.phone {
				phone(t, ctx)
			}
			for _, p := range pages {
				what := p.path + " on " + width.name
				b.open(t, ctx, p.path, p.status)
				if p.submit {
					b.follow(t, ctx, chromedp.Click(chromedp.CSS(`form.tool button[type=submit]`)), 200)
				}
				axeCheck(t, ctx, what)
				if first := eval[string](t, ctx, firstFocusableJS); first != "Skip to content" && !p.outside {
					t.Errorf("%s: the first focusable element is %q, want the skip link", what, first)
				}
				if width.phone {
					fitsWidth(t, ctx, what)
				}
				b.shot(t, ctx, "all-"+p.name+"-"+width.name)
			}
		})
	}

	t.Run("results in view", func(t *testing.T) { resultsInView(t, b) })
	t.Run("sorts show their numbers", func(t *testing.T) { sortsShowTheirNumbers(t, b, f) })
	t.Run("feed says close and why", func(t *testing.T) { feedSaysCloseAndWhy(t, b, f) })
	t.Run("chart readable", func(t *testing.T) { chartReadable(t, b, f) })
	t.Run("dark scheme", func(t *testing.T) { darkScheme(t, b, f) })
	t.Run("keyboard", func(t *testing.T) { keyboard(t, b) })
	t.Run("smaller points", func(t *testing.T) { smallerPoints(t, b) })
	t.Run("disagreement flag", func(t *testing.T) { disagreementFlag(t, b, f) })
	t.Run("at a glance", func(t *testing.T) { atAGlance(t, b, f, addGlance(t, f)) })

	t.Run("not found", func(t *testing.T) {
		ctx := b.tab(t)
		b.open(t, ctx, "/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc", 404)
		b.shot(t, ctx, "not-found")
	})
}
