package web_test

// Browser checks of what a person reads first: results in view after a
// calculation, sorts that order by the numbers shown, the history chart,
// the colour schemes and the keyboard. Each runs at 1280 and 390 px.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/tools"
)

// screen is a width the pages are checked at.
type screen struct {
	name  string
	phone bool
}

var screens = []screen{{"desktop", false}, {"phone", true}}

// on opens a tab at the screen's width.
func (b *browser) on(t *testing.T, s screen) context.Context {
	t.Helper()
	ctx := b.tab(t)
	if s.phone {
		phone(t, ctx)
	}
	return ctx
}

// scheme makes the tab prefer the dark or the light colour scheme.
func scheme(t *testing.T, ctx context.Context, dark bool) {
	t.Helper()
	v := "light"
	if dark {
		v = "dark"
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return err
	})); err != nil {
		t.Fatalf("emulating prefers-color-scheme %s: %v", v, err)
	}
}

// inViewJS reports the top and bottom of the element with the id, and
// the window's height.
const inViewJS = `((id) => { const e = document.getElementById(id); if (!e) return [-1, -1, innerHeight];
	const r = e.getBoundingClientRect(); return [r.top, r.bottom, innerHeight] })`

// resultsInView: after Calculate, each tool's result starts in the
// window, and build_settings shows its install line there, above the
// full answer.
func resultsInView(t *testing.T, b *browser) {
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			for _, tl := range tools.All() {
				b.open(t, ctx, "/tools/"+tl.Name, 200)
				b.follow(t, ctx, chromedp.Click(chromedp.CSS(`form.tool button[type=submit]`)), 200)
				r := eval[[]float64](t, ctx, inViewJS+`('result')`)
				if r[0] < -2 || r[0] > r[2]/4 {
					t.Errorf("%s on %s: the result starts %.0f px down a %.0f px window, want in its top quarter", tl.Name, s.name, r[0], r[2])
				}
				if tl.Name != "build_settings" {
					continue
				}
				in := eval[[]float64](t, ctx, inViewJS+`('install')`)
				if in[0] < -2 || in[1] > in[2] {
					t.Errorf("build_settings on %s: the install line spans %.0f–%.0f px of a %.0f px window", s.name, in[0], in[1], in[2])
				}
				if !eval[bool](t, ctx, `document.getElementById('key').compareDocumentPosition(document.getElementById('fields')) === Node.DOCUMENT_POSITION_FOLLOWING && document.getElementById('key').checkVisibility()`) {
					t.Errorf("build_settings on %s: the settings in force are not shown above the full answer", s.name)
				}
				b.shot(t, ctx, fmt.Sprintf("result-build_settings-%s", s.name))
			}
		})
	}
}

// sortKeysJS reads, per feed card, the number it is sorted by: the
// element marked .sortkey, as a number (percent, count or time).
const sortKeysJS = `[...document.querySelectorAll('#feed li.prediction')].map(li => {
	const k = li.querySelector('.sortkey'); if (!k) return NaN;
	const t = k.querySelector('time') || (k.tagName === 'TIME' ? k : null);
	if (t) return Date.parse(t.getAttribute('datetime')) / 1000;
	return parseFloat(k.textContent.replace(/^[^0-9]*/, '')) })`

// sortsShowTheirNumbers: every feed sort orders its cards by the number
// each card marks, and the leaderboard's sorted column carries aria-sort
// and is in order.
func sortsShowTheirNumbers(t *testing.T, b *browser, f *fixture) {
	// Two questions with a close ahead, for the closing sort.
	for i, days := range []int{30, 10} {
		f.clock.Advance(time.Minute)
		if _, err := f.store.CreatePrediction(context.Background(), board.NewPrediction{AgentID: "oracle-1", AgentName: "Oracle One",
			Title: fmt.Sprintf("Closing question %d", i+1), Body: "Closes in days.", Confidence: ptr(0.5), Timeframe: "soon", Domain: "AI",
			CloseAt: f.clock.Now().AddDate(0, 0, days).Format(time.RFC3339)}); err != nil {
			t.Fatalf("CreatePrediction: %v", err)
		}
	}
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			for _, c := range []struct {
				sort string
				desc bool
			}{{"recent", true}, {"confidence", true}, {"popular", true}, {"closing", false}} {
				b.open(t, ctx, "/?sort="+c.sort, 200)
				keys := eval[[]float64](t, ctx, sortKeysJS)
				if len(keys) < 2 {
					t.Errorf("sort %s on %s: %d cards, want at least 2", c.sort, s.name, len(keys))
					continue
				}
				for i := 1; i < len(keys); i++ {
					if keys[i] != keys[i] || keys[i-1] != keys[i-1] || (c.desc && keys[i] > keys[i-1]) || (!c.desc && keys[i] < keys[i-1]) {
						t.Errorf("sort %s on %s: the marked numbers %v are not in order", c.sort, s.name, keys)
						break
					}
				}
				if c.sort == "confidence" {
					b.shot(t, ctx, "sort-confidence-"+s.name)
				}
			}
			for _, c := range []struct {
				sort, column string
				desc         bool
			}{{"recent", "Last seen", true}, {"peer_score", "Peer score", true}, {"brier", "Brier", false}, {"trust", "Trust", true}} {
				b.open(t, ctx, "/agents?sort="+c.sort, 200)
				got := eval[[]string](t, ctx, `[...document.querySelectorAll('#agents thead th[aria-sort]')].map(th => th.textContent.replace(/[▲▼]/g, '').trim() + '|' + th.getAttribute('aria-sort'))`)
				order := "ascending"
				if c.desc {
					order = "descending"
				}
				if want := c.column + "|" + order; len(got) != 1 || got[0] != want {
					t.Errorf("agents by %s on %s: headers with aria-sort %q, want [%s]", c.sort, s.name, got, want)
					continue
				}
				vals := eval[[]float64](t, ctx, `(() => { const ths = [...document.querySelectorAll('#agents thead th')];
					const i = ths.findIndex(th => th.hasAttribute('aria-sort'));
					return [...document.querySelectorAll('#agents tbody tr')].map(tr => { const c = tr.children[i];
						const tm = c.querySelector('time'); if (tm) return Date.parse(tm.getAttribute('datetime')) / 1000;
						const v = parseFloat(c.textContent); return isNaN(v) ? null : v }).filter(v => v !== null) })()`)
				for i := 1; i < len(vals); i++ {
					if (c.desc && vals[i] > vals[i-1]) || (!c.desc && vals[i] < vals[i-1]) {
						t.Errorf("agents by %s on %s: column %s reads %v, not in order", c.sort, s.name, c.column, vals)
						break
					}
				}
				if len(vals) == 0 {
					t.Errorf("agents by %s on %s: column %s has no numbers", c.sort, s.name, c.column)
				}
			}
			b.open(t, ctx, "/agents?sort=brier", 200)
			if !s.phone {
				// At 1280 px the whole leaderboard fits its box.
				if w := eval[[]float64](t, ctx, `(() => { const b = document.querySelector('#agents').closest('.scroll'); return [b.scrollWidth, b.clientWidth] })()`); w[0] > w[1] {
					t.Errorf("the leaderboard is %v px wide in a %v px box at 1280 px", w[0], w[1])
				}
			}
			b.shot(t, ctx, "agents-brier-"+s.name)
		})
	}
}

// feedSaysCloseAndWhy: every card says when its question closes (or
// closed, or that it has no close) and its status; an empty list says
// why; a void question headlines no forecast; an agent's calibration
// reads its scored forecasts.
func feedSaysCloseAndWhy(t *testing.T, b *browser, f *fixture) {
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			b.open(t, ctx, "/?limit=100", 200)
			missing := eval[int](t, ctx, `[...document.querySelectorAll('#feed li.prediction')].filter(li => !li.querySelector('.closes') || !li.querySelector('.status')).length`)
			if missing != 0 {
				t.Errorf("on %s: %d cards lack their close or status", s.name, missing)
			}
			b.open(t, ctx, "/?sort=closing&status=resolved", 200)
			if got := eval[string](t, ctx, `(document.getElementById('empty') || {}).textContent || ''`); !strings.Contains(got, "only open predictions") {
				t.Errorf("closing and resolved on %s: the empty list says %q", s.name, got)
			}
			b.shot(t, ctx, "feed-empty-"+s.name)
			b.open(t, ctx, "/predictions/"+f.void, 200)
			if got := eval[string](t, ctx, `document.getElementById('headline').textContent`); strings.Contains(got, "%") {
				t.Errorf("void prediction on %s: headline %q shows a forecast", s.name, got)
			}
			b.open(t, ctx, "/?status=void", 200)
			if got := eval[string](t, ctx, `document.querySelector('#feed .conf').textContent`); strings.Contains(got, "%") {
				t.Errorf("void card on %s: headline %q shows a forecast", s.name, got)
			}
			b.open(t, ctx, "/agents/skeptic", 200)
			if n := eval[int](t, ctx, `document.querySelectorAll('svg.calibration g.bin').length`); n == 0 {
				t.Errorf("skeptic's page on %s: no calibration point, though its forecast is scored", s.name)
			}
		})
	}
}

// chartReadable: the history chart of a resolved question has distinct
// time labels of at least 11 px, a shape per agent, the close and the
// outcome, and a table of the same forecasts a keyboard reaches.
func chartReadable(t *testing.T, b *browser, f *fixture) {
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			b.open(t, ctx, "/predictions/"+f.resolve, 200)
			labels := eval[[]string](t, ctx, `[...document.querySelectorAll('svg.history text.tick')].map(e => e.textContent)`)
			seen := map[string]bool{}
			for _, l := range labels {
				if seen[l] {
					t.Errorf("on %s: the axis label %q shows twice in %q", s.name, l, labels)
				}
				seen[l] = true
			}
			px := eval[float64](t, ctx, `(() => { const svg = document.querySelector('svg.history');
				return parseFloat(getComputedStyle(svg.querySelector('text.tick')).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width })()`)
			if px < 11 {
				t.Errorf("on %s: the axis text is %.1f px, want at least 11", s.name, px)
			}
			shapes := eval[[]string](t, ctx, `[...new Set([...document.querySelectorAll('svg.history > g.mark > :not(title)')].map(e => e.tagName))]`)
			if len(shapes) < 2 {
				t.Errorf("on %s: two agents drawn with the shapes %q, want two shapes", s.name, shapes)
			}
			for _, sel := range []string{"svg.history g.outcome", "svg.history g.close", "svg.history text.legend"} {
				if n := eval[int](t, ctx, `document.querySelectorAll('`+sel+`').length`); n == 0 {
					t.Errorf("on %s: the chart has no %s", s.name, sel)
				}
			}
			rows := eval[int](t, ctx, `document.querySelectorAll('#history-table tbody tr').length`)
			marks := eval[int](t, ctx, `document.querySelectorAll('svg.history > g.mark').length`)
			if rows == 0 || rows != marks {
				t.Errorf("on %s: the history table has %d rows for %d marks", s.name, rows, marks)
			}
			if !eval[bool](t, ctx, `document.getElementById('history-table').checkVisibility() && document.getElementById('history-table').closest('[tabindex="0"]') !== null`) {
				t.Errorf("on %s: the history table is hidden or out of the keyboard's reach", s.name)
			}
			if got := eval[string](t, ctx, `document.querySelector('meta[property="og:description"]').content`); !strings.HasPrefix(got, "Community forecast") {
				t.Errorf("on %s: og:description %q", s.name, got)
			}
			if s.phone {
				fitsWidth(t, ctx, "the history chart")
			}
			b.shot(t, ctx, "chart-"+s.name)
		})
	}
}

// axeNone fails the test on any axe-core finding, whatever its impact.
func axeNone(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, f := range axeRun(t, ctx, what) {
		t.Errorf("%s: axe-core %s (%s): %s\n\t%s", what, f.ID, f.Impact, f.Help, strings.Join(f.Nodes, "\n\t"))
	}
}

// darkScheme: the pages in the dark colour scheme, at both widths, pass
// axe-core (its contrast rule included) with no finding, and are dark.
// The light scheme is the one "every page" checks.
func darkScheme(t *testing.T, b *browser, f *fixture) {
	pages := []struct {
		name, path string
		status     int
		submit     bool
	}{
		{"feed", "/", 200, false},
		{"prediction-resolved", "/predictions/" + f.resolve, 200, false},
		{"agents", "/agents?sort=brier", 200, false},
		{"agent", "/agents/oracle-1", 200, false},
		{"tool-combine", "/tools/combine_forecasts", 200, true},
		{"tool-build_settings", "/tools/build_settings", 200, true},
		{"tool-error", "/tools/convert_odds?value=abc", 400, false},
		{"settings-confirmed", "/settings?preset=team&pool=median&confirm=yes", 200, false},
	}
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			scheme(t, ctx, true)
			for _, p := range pages {
				b.open(t, ctx, p.path, p.status)
				if p.submit {
					b.follow(t, ctx, chromedp.Click(chromedp.CSS(`form.tool button[type=submit]`)), 200)
				}
				what := p.path + " on " + s.name + " in the dark"
				axeNone(t, ctx, what)
				// The luminance of the page's background, from 0 to 255.
				bg := eval[float64](t, ctx, `(() => { const m = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
					return 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2] })()`)
				if bg >= 64 {
					t.Errorf("%s: the background's luminance is %.0f of 255", what, bg)
				}
				if p.name == "prediction-resolved" || p.name == "tool-combine" || p.name == "agent" {
					b.shot(t, ctx, "dark-"+p.name+"-"+s.name)
				}
			}
		})
	}
}

// keyboard: on the settings page an arrow key moves between the preset
// radios without sending the form, and Enter then sends it; on the feed
// and the leaderboard skip links reach the list and the pager in a few
// tab stops.
func keyboard(t *testing.T, b *browser) {
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			b.open(t, ctx, "/settings?preset=team", 200)
			if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`input[name=preset][value=team]`))); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // a submit would have started by now
			if loc := eval[string](t, ctx, `location.search`); loc != "?preset=team" {
				t.Errorf("on %s: an arrow key on a preset sent the form: address %q", s.name, loc)
			}
			moved := eval[string](t, ctx, `document.activeElement.name + '=' + document.activeElement.value + (document.activeElement.checked ? ' checked' : '')`)
			if moved == "preset=team checked" || !strings.HasPrefix(moved, "preset=") || !strings.HasSuffix(moved, " checked") {
				t.Errorf("on %s: after an arrow key the focus is on %q, want the next preset, checked", s.name, moved)
			}
			if !eval[bool](t, ctx, `document.getElementById('use-preset').checkVisibility()`) {
				t.Errorf("on %s: after an arrow key the preset button is hidden", s.name)
			}
			b.shot(t, ctx, "settings-keyboard-"+s.name)
			want := strings.TrimSuffix(strings.TrimPrefix(moved, "preset="), " checked")
			b.follow(t, ctx, chromedp.KeyEvent(kb.Enter), 200)
			if loc := eval[string](t, ctx, `location.search`); loc != "?preset="+want {
				t.Errorf("on %s: Enter on preset %s: address %q", s.name, want, loc)
			}

			for _, c := range []struct{ path, skip, lands string }{
				{"/?limit=20", "Skip to the pages", "pager"},
				{"/?limit=20", "Skip to the predictions", "feed"},
				{"/agents?limit=2", "Skip to the pages", "pager"},
			} {
				b.open(t, ctx, c.path, 200)
				stops := 0
				for ; stops < 5; stops++ {
					if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
						t.Fatal(err)
					}
					if eval[string](t, ctx, `document.activeElement.textContent.trim()`) == c.skip {
						break
					}
				}
				if stops == 5 {
					t.Errorf("%s on %s: no %q in the first 5 tab stops", c.path, s.name, c.skip)
					continue
				}
				if !eval[bool](t, ctx, `document.activeElement.checkVisibility() && document.activeElement.getBoundingClientRect().top >= 0`) {
					t.Errorf("%s on %s: the focused skip link is not in view", c.path, s.name)
				}
				if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
					t.Fatal(err)
				}
				if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
					t.Fatal(err)
				}
				if in := eval[bool](t, ctx, `document.getElementById('`+c.lands+`').contains(document.activeElement) || document.getElementById('`+c.lands+`').closest('.scroll') === document.activeElement`); !in {
					t.Errorf("%s on %s: after %q and a tab the focus is on %q, outside #%s", c.path, s.name, c.skip,
						eval[string](t, ctx, `document.activeElement.outerHTML.slice(0, 80)`), c.lands)
				}
			}
		})
	}
}

// smallerPoints: the settings page's selects show their whole value at
// both widths; a mistyped page address answers with a hint for people.
func smallerPoints(t *testing.T, b *browser) {
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			b.open(t, ctx, "/settings?preset=team", 200)
			cut := eval[[]string](t, ctx, `(() => { const c = document.createElement('canvas').getContext('2d');
				return [...document.querySelectorAll('#settings-form select')].filter(sel => {
					const st = getComputedStyle(sel); c.font = st.font;
					const room = sel.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 20; // the arrow
					return c.measureText(sel.options[sel.selectedIndex].text).width > room }).map(sel => sel.name) })()`)
			if len(cut) > 0 {
				t.Errorf("on %s: the selects %q cut their text", s.name, cut)
			}
			fitsWidth(t, ctx, "/settings")
			b.shot(t, ctx, "settings-"+s.name)
			b.open(t, ctx, "/predictons", 404)
			if got := eval[string](t, ctx, `document.getElementById('main').textContent`); strings.Contains(got, "/api/v1") || !strings.Contains(got, "The pages are") {
				t.Errorf("on %s: the 404 page says %q", s.name, got)
			}
		})
	}
}
