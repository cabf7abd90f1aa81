package web_test

// The checks every page passes in the browser: axe-core, the width of a
// phone, the skip link first; and the board content that tries them.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/predictions-md/predictions/board"
)

// widthsJS reads the page's width, the window's and the layout
// viewport's (the root element's clientWidth).
const widthsJS = `[document.documentElement.scrollWidth, window.innerWidth, document.documentElement.clientWidth]`

// firstFocusableJS is the text of the page's first element a keyboard
// reaches.
const firstFocusableJS = `(() => { const e = document.querySelector('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])'); return e ? e.textContent.trim() : "" })()`

// tooWide reports whether widths (as widthsJS reads them) show a page that
// scrolls sideways. A phone browser zooms out to fit a page that is too
// wide, which widens window.innerWidth with it, so the page is held to the
// layout viewport too.
func tooWide(w []int) bool { return w[0] > min(w[1], w[2]) || w[1] > w[2] }

// fitsWidth checks that nothing makes the page scroll sideways.
func fitsWidth(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if w := eval[[]int](t, ctx, widthsJS); tooWide(w) {
		t.Errorf("%s: the page is %d px wide on a %d px screen (window %d px)", what, w[0], w[2], w[1])
	}
}

// longAgentID is the id of the agent whose name is long and right to left.
const longAgentID = "long-agent-long-agent-long-agent-long-agent-long-agent-x"

// addHostile posts what makes pages too wide or reorders lines: a long
// right-to-left agent name, a title and a body with 80-letter words and
// a U+202E override, a 100-character timeframe, long notes and replies.
// It returns the prediction's id.
func addHostile(t *testing.T, f *fixture) string {
	t.Helper()
	ctx := context.Background()
	word := strings.Repeat("Predictionmarketsarehard", 4)[:80]
	name := "وكيل التنبؤ " + strings.Repeat("Longagentname", 5)
	f.clock.Advance(time.Minute)
	p, err := f.store.CreatePrediction(ctx, board.NewPrediction{AgentID: longAgentID, AgentName: name[:min(len(name), board.MaxAgentName)],
		Title: "Will " + word + " \u202eresolve\u202c yes?", Body: word + word + "\n\u202eoverride in the body",
		Confidence: ptr(0.42), Timeframe: strings.Repeat("by-the-end-of-", 8)[:board.MaxTimeframe], Domain: "AI"})
	if err != nil {
		t.Fatalf("CreatePrediction: %v", err)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.store.Forecast(ctx, p.ID, board.NewForecast{AgentID: longAgentID, P: json.RawMessage(`0.4`), Note: word}); err != nil {
		t.Fatalf("Forecast: %v", err)
	}
	if _, err := f.store.Forecast(ctx, f.thread, board.NewForecast{AgentID: longAgentID, P: json.RawMessage(`0.3`), Note: "\u202e" + word}); err != nil {
		t.Fatalf("Forecast: %v", err)
	}
	if _, err := f.store.Reply(ctx, p.ID, board.NewReply{AgentID: longAgentID, Body: word + " " + word}); err != nil {
		t.Fatalf("Reply: %v", err)
	}
	return p.ID
}

// axeSource is axe-core (testdata/axe, MPL-2.0), read once.
var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	return string(b), err
})

// axeBlocking is the impacts of axe-core's findings that fail a test;
// moderate and minor ones are logged.
var axeBlocking = []string{"serious", "critical"}

// axeFinding is a rule axe-core found broken on a page.
type axeFinding struct {
	ID, Impact, Help string
	Nodes            []string // the first elements at fault, with what to fix
}

// axePath is where the browser tests' server serves axe-core ([withAxe]).
const axePath = "/test/axe.min.js"

// withAxe serves axe-core at axePath, cacheable, and everything else from
// app. A page loads it with a script element, which its
// Content-Security-Policy (script-src 'self') allows: Chromium then takes
// it from its cache, compiled, where sending its 550 KB over the DevTools
// connection and compiling it for every audit was half the audit's time.
func withAxe(t *testing.T, app http.Handler) http.Handler {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		t.Fatalf("reading axe-core: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", app)
	mux.HandleFunc("GET "+axePath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_, _ = io.WriteString(w, src)
	})
	return mux
}

// axeRun runs axe-core on the page in the tab.
func axeRun(t *testing.T, ctx context.Context, what string) []axeFinding {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.axe !== undefined || new Promise((loaded, failed) => {
		const s = document.createElement("script");
		s.src = "`+axePath+`";
		s.onload = () => loaded(true);
		s.onerror = () => failed(new Error("axe-core did not load"));
		document.head.append(s);
	})`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("%s: loading axe-core: %v", what, err)
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeFinding](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({ID: v.id, Impact: v.impact || "", Help: v.help,
			Nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + (n.failureSummary || "").split("\n").slice(1).join(" ").trim())})))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: running axe-core: %v", what, err)
	}
	return found
}

// axeCheck fails the test on a serious or critical axe-core finding,
// naming the rule, the help text and the first elements at fault; it
// logs the others.
func axeCheck(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, f := range axeRun(t, ctx, what) {
		msg := fmt.Sprintf("%s: axe-core %s (%s): %s\n\t%s", what, f.ID, f.Impact, f.Help, strings.Join(f.Nodes, "\n\t"))
		if slices.Contains(axeBlocking, f.Impact) {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}
