package web_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdpwebauthn "github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/people"
	"github.com/predictions-md/predictions/web"
)

// passkeyDevice gives the tab a virtual platform authenticator (DevTools'
// WebAuthn domain): a passkey store that answers at once and verifies
// the user, as a phone or a laptop's fingerprint reader would.
func passkeyDevice(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, cdpwebauthn.Enable, cdpwebauthn.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, cdpwebauthn.AddVirtualAuthenticator, cdpwebauthn.AddVirtualAuthenticatorParams{
			Options: &cdpwebauthn.VirtualAuthenticatorOptions{Protocol: cdpwebauthn.AuthenticatorProtocolCtap2,
				Ctap2version: cdpwebauthn.Ctap2versionCtap21, Transport: cdpwebauthn.AuthenticatorTransportInternal,
				HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true}})
		return err
	})); err != nil {
		t.Fatalf("adding a virtual authenticator: %v", err)
	}
}

// noScript turns the tab's JavaScript off, as a person who blocks it.
func noScript(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})); err != nil {
		t.Fatalf("disabling JavaScript: %v", err)
	}
}

// waitPath waits up to ten seconds for the tab to reach path, through
// the navigations a script starts (which end a polling evaluation).
func waitPath(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	var got string
	for range 100 {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState === "complete" ? location.pathname + location.search : ""`))
		if err == nil && v == path {
			return
		}
		got = v
		time.Sleep(100 * time.Millisecond)
	}
	status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("passkey-status") || {}).textContent || ""`))
	t.Fatalf("waiting for %s: at %q; status %q", path, got, status)
}

func run(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for _, a := range actions {
		if err := chromedp.Do(ctx, a); err != nil {
			t.Fatalf("in the browser: %v", err)
		}
	}
}

// TestBrowserPeople: a person registers with a passkey, forecasts with
// and without JavaScript, replies, follows, signs out and in again, and
// sees their score once a moderator resolves; every page at 1280 and
// 390 px in both colour schemes passes axe with no finding.
func TestBrowserPeople(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests take a minute: skipped with -short")
	}
	exe := chromium()
	if exe == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: browser tests skipped (on Debian: apt-get install chromium)")
	}
	f := seed(t)
	ppl, err := people.Open(context.Background(), f.store, people.Options{})
	if err != nil {
		t.Fatal(err)
	}
	app := httpapi.New(httpapi.Options{Logger: discard, Board: boardapi.New(boardapi.Options{Store: f.store}),
		Pages: web.New(web.Options{Board: f.store, People: ppl, Writer: f.store, Now: f.clock.Now, MCP: true, Logger: discard})})
	srv := httptest.NewServer(withAxe(t, app))
	t.Cleanup(srv.Close)
	// A passkey's relying party is a host name: the pages are reached as
	// localhost (a secure context over plain http).
	b := startBrowser(t, exe, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1))
	q := "/predictions/" + f.thread
	ctx := b.tab(t)
	passkeyDevice(t, ctx)

	// Register.
	b.open(t, ctx, "/signin", 200)
	b.shot(t, ctx, "signin")
	run(t, ctx, chromedp.SendKeys(`#person_id`, "ada"), chromedp.SendKeys(`#name`, "Ada Lovelace"),
		chromedp.Click(`#register-form button`))
	waitPath(t, ctx, "/agents/ada")
	if got := eval[string](t, ctx, `document.querySelector("a.you").textContent`); got != "Ada Lovelace" {
		t.Errorf("signed in as %q, want Ada Lovelace", got)
	}

	// Forecast with JavaScript: the slider moves the field.
	b.open(t, ctx, q, 200)
	if eval[bool](t, ctx, `document.getElementById("forecast-slider").hidden`) {
		t.Errorf("with JavaScript the slider is hidden")
	}
	eval[bool](t, ctx, `(() => { const s = document.getElementById("forecast-slider"); s.value = 70; s.dispatchEvent(new Event("input")); return true })()`)
	if got := eval[string](t, ctx, `document.getElementById("forecast-p").value`); got != "70" {
		t.Errorf("after the slider: field %q, want 70", got)
	}
	start := time.Now()
	b.follow(t, ctx, chromedp.Click(`.forecast-form button`), 200)
	t.Logf("forecast round trip in the browser: %v", time.Since(start))
	if got := eval[string](t, ctx, `document.querySelector("#your-forecast .yours").textContent`); !strings.Contains(got, "You said 70%") {
		t.Errorf("after forecasting: %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("svg.history .you-ring").length`); n != 1 {
		t.Errorf("the chart rings %d of your forecasts, want 1", n)
	}
	if got := eval[string](t, ctx, `[...document.querySelectorAll("svg.history text.legend")].map(e => e.textContent).join("|")`); !strings.Contains(got, "Ada Lovelace (you)") {
		t.Errorf("the legend %q does not say which forecaster is you", got)
	}
	b.shot(t, ctx, "prediction-signed-in")

	// Reply, as a challenge to the first reply.
	run(t, ctx, chromedp.Click(`input[name=tag][value=challenge]`), chromedp.SendKeys(`#reply-body`, "The report is from 2024, not 2025."))
	eval[bool](t, ctx, `(() => { const s = document.getElementById("parent_id"); s.selectedIndex = 1; return true })()`)
	b.follow(t, ctx, chromedp.Click(`.reply-form button`), 200)
	if got := eval[string](t, ctx, `[...document.querySelectorAll("ul.thread li")].map(e => e.textContent).join("|")`); !strings.Contains(got, "The report is from 2024") {
		t.Errorf("the thread lacks the reply: %q", got)
	}

	// Follow, and find it on one's page.
	b.follow(t, ctx, chromedp.Click(`#follow button`), 200)
	b.open(t, ctx, "/agents/ada", 200)
	if got := eval[string](t, ctx, `document.getElementById("following").textContent`); !strings.Contains(got, "Fusion start-up") {
		t.Errorf("following: %q", got)
	}

	// Sign out, and in again with the passkey.
	b.follow(t, ctx, chromedp.Click(`form.signout button`), 200)
	if eval[bool](t, ctx, `document.querySelector("a.you") !== null`) {
		t.Errorf("still signed in after signing out")
	}
	b.open(t, ctx, "/signin?next="+q, 200)
	run(t, ctx, chromedp.Click(`#signin-form button`))
	waitPath(t, ctx, q)
	if got := eval[string](t, ctx, `document.querySelector("#your-forecast .yours").textContent`); !strings.Contains(got, "You said 70%") {
		t.Errorf("signed in again: %q", got)
	}

	// Without JavaScript: the number alone, sent by the form.
	plain := b.tab(t)
	noScript(t, plain)
	cookies := eval[string](t, ctx, `document.cookie`) // HttpOnly: not readable
	if cookies != "" {
		t.Errorf("the session cookie is readable by scripts: %q", cookies)
	}
	b.open(t, plain, q, 200)
	if !eval[bool](t, plain, `document.getElementById("forecast-slider").hidden`) {
		t.Errorf("without JavaScript the slider shows")
	}
	run(t, plain, chromedp.SetValue(`#forecast-p`, "35"))
	b.follow(t, plain, chromedp.Click(`.forecast-form button`), 200)
	if got := eval[string](t, plain, `document.querySelector("#your-forecast .yours").textContent`); !strings.Contains(got, "You said 35%") {
		t.Errorf("without JavaScript: %q", got)
	}

	// A moderator resolves: the page shows the person's scores.
	f.clock.Advance(time.Hour)
	if _, err := f.store.Resolve(context.Background(), f.thread, board.NewResolution{Outcome: board.OutcomeNo}); err != nil {
		t.Fatal(err)
	}
	b.open(t, ctx, q, 200)
	if got := eval[string](t, ctx, `document.getElementById("your-forecast").textContent`); !strings.Contains(got, "Your scores: peer") {
		t.Errorf("after resolution: %q", got)
	}
	b.shot(t, ctx, "prediction-person-resolved")

	// The leaderboard of people names them so.
	b.open(t, ctx, "/agents?kind=person", 200)
	if got := eval[string](t, ctx, `document.querySelector("h1").textContent + " | " + document.getElementById("range").textContent`); got != "People | Showing 1–1 of 1 person." {
		t.Errorf("people's leaderboard reads %q", got)
	}

	// Every page a person sees, at both widths and in both schemes.
	for _, s := range screens {
		for _, dark := range []bool{false, true} {
			tab := b.on(t, s)
			scheme(t, tab, dark)
			name := s.name
			if dark {
				name += "-dark"
			}
			for _, pg := range []struct{ path, shot string }{{q, "person-question"}, {"/agents/ada", "person-page"}, {"/signin", "person-signin"}, {"/agents?kind=person", "person-leaderboard"}} {
				b.open(t, tab, pg.path, 200)
				fitsWidth(t, tab, pg.shot+" "+name)
				axeNone(t, tab, pg.shot+" "+name)
				b.shot(t, tab, pg.shot+"-"+name)
			}
		}
	}
}
