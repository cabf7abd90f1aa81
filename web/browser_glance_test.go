package web_test

// Browser checks that a first-time visitor reads each page's answer at a
// glance: tool answers in plain sight with the focus on them, scores
// explained and never "-0.0", a question's headline its status and the
// number that matters, charts whose labels do not collide, tables that
// keep their key columns on a phone, the first content within a phone's
// first screen, targets a finger hits, and tool pages in plain words.
// Each runs at 1280 and 390 px, in the light and the dark scheme, with
// axe-core finding nothing.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/tools"
)

// glanceFixture is what the checks add to the seed: an open question
// due 2027-06-30 with three forecasts made in the same minute at about
// the same value, whose chart spans a few seconds.
type glanceFixture struct {
	due string
}

func addGlance(t *testing.T, f *fixture) glanceFixture {
	t.Helper()
	ctx := context.Background()
	f.clock.Advance(time.Minute)
	p, err := f.store.CreatePrediction(ctx, board.NewPrediction{AgentID: "oracle-1", AgentName: "Oracle One",
		Title: "The bridge reopens by the end of June 2027", Body: "Works are on schedule.", Confidence: ptr(0.5),
		Timeframe: "by 2027-06-30", Domain: "Science", ResolveBy: "2027-06-30"})
	if err != nil {
		t.Fatalf("CreatePrediction: %v", err)
	}
	for _, fc := range []struct{ agent, p string }{{"same-minute-1", `0.52`}, {"same-minute-2", `0.52`}, {"same-minute-3", `0.53`}} {
		if _, err := f.store.Forecast(ctx, p.ID, board.NewForecast{AgentID: fc.agent, P: json.RawMessage(fc.p)}); err != nil {
			t.Fatalf("Forecast: %v", err)
		}
	}
	f.clock.Advance(5 * time.Second)
	return glanceFixture{due: p.ID}
}

// look is a screen and a colour scheme.
type look struct {
	screen
	dark bool
}

func (l look) String() string {
	if l.dark {
		return l.name + " in the dark"
	}
	return l.name + " in the light"
}

var looks = []look{{screens[0], false}, {screens[0], true}, {screens[1], false}, {screens[1], true}}

// tabFor opens a tab with the look's width and scheme.
func (b *browser) tabFor(t *testing.T, l look) context.Context {
	t.Helper()
	ctx := b.on(t, l.screen)
	scheme(t, ctx, l.dark)
	return ctx
}

// minusZeroJS finds "-0.0" (or "−0.0") in the page's text.
const minusZeroJS = `(document.body.innerText.match(/[-−]0\.0(?![0-9])/g) || []).length`

// overlapsJS lists the pairs of text labels of the SVG that overlap, by
// their boxes (getBBox, in the drawing's units; no label is transformed).
const overlapsJS = `((sel) => { const svg = document.querySelector(sel); if (!svg) return ['no ' + sel];
	const ts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
	const bs = ts.map(t => t.getBBox()); const out = [];
	for (let i = 0; i < bs.length; i++) for (let j = i + 1; j < bs.length; j++) {
		const a = bs[i], b = bs[j];
		if (a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5)
			out.push(ts[i].textContent + ' / ' + ts[j].textContent);
	}
	return out })`

// clippedJS lists the labels of the SVG that run past its drawing's
// edges, where they are cut off.
const clippedJS = `((sel) => { const svg = document.querySelector(sel); const vb = svg.viewBox.baseVal;
	return [...svg.querySelectorAll('text')].filter(t => { const r = t.getBoundingClientRect(), s = svg.getBoundingClientRect();
		return r.left < s.left - 0.5 || r.right > s.right + 0.5 || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5 }).map(t => { const r = t.getBoundingClientRect(), s = svg.getBoundingClientRect();
		return t.textContent + ' (' + [r.left - s.left, s.right - r.right, r.top - s.top, s.bottom - r.bottom].map(Math.round).join(' ') + ')' }) })`

// offPlotJS lists the labels of the outcome and the close that touch the
// plot's area (where the marks and the axis are).
const offPlotJS = `(() => { const svg = document.querySelector('svg.history'); const bg = svg.querySelector('.plot-bg').getBBox();
	return [...svg.querySelectorAll('.outcome text, text.outcome, .close text')].filter(t => { const b = t.getBBox();
		return b.y + b.height > bg.y + 0.5 && b.y < bg.y + bg.height }).map(t => t.textContent) })()`

// contrastJS is the lowest contrast ratio (WCAG 2.2) of a forecast mark's
// fill or edge, whichever is higher, against the plot's background.
const contrastJS = `(() => { const lum = c => { const m = c.match(/[\d.]+/g); if (!m) return null;
		const v = m.slice(0, 3).map(Number).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4) });
		return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2] };
	const ratio = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
	const bg = lum(getComputedStyle(document.querySelector('svg.history .plot-bg')).fill);
	let worst = 99;
	document.querySelectorAll('svg.history g.mark > :not(title)').forEach(e => { const st = getComputedStyle(e);
		const parts = [st.fill, st.stroke].filter(c => c && c !== 'none').map(lum).filter(l => l !== null);
		worst = Math.min(worst, Math.max(...parts.map(l => ratio(l, bg)))) });
	return worst })()`

// stackedJS counts the pairs of forecast marks drawn within 3 px of each
// other both across and up: one mark hiding another.
const stackedJS = `(() => { const cs = [...document.querySelectorAll('svg.history g.mark')].map(g => { const r = g.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] });
	let n = 0; for (let i = 0; i < cs.length; i++) for (let j = i + 1; j < cs.length; j++)
		if (Math.abs(cs[i][0] - cs[j][0]) < 3 && Math.abs(cs[i][1] - cs[j][1]) < 3) n++;
	return n })()`

// smallTargetsJS lists the visible targets of the selector smaller than
// 24 × 24 px (WCAG 2.2, 2.5.8 Target Size (Minimum)).
const smallTargetsJS = `((sel) => [...document.querySelectorAll(sel)].filter(e => e.checkVisibility()).map(e => [e, e.getBoundingClientRect()])
	.filter(([e, r]) => r.height < 23.5 || r.width < 23.5).map(([e, r]) => e.textContent.trim().slice(0, 30) + ' ' + Math.round(r.width) + '×' + Math.round(r.height)))`

// rightOfJS is the right edge of the header cell of a table whose text
// starts with the words, and the window's width.
const rightOfJS = `((table, words) => { const th = [...document.querySelectorAll(table + ' thead th')].find(th => th.textContent.trim().startsWith(words));
	return th ? [th.getBoundingClientRect().right, document.documentElement.clientWidth] : [-1, 0] })`

func atAGlance(t *testing.T, b *browser, f *fixture, g glanceFixture) {
	for _, l := range looks {
		t.Run(l.String(), func(t *testing.T) {
			ctx := b.tabFor(t, l)
			suffix := l.name
			if l.dark {
				suffix += "-dark"
			}
			toolAnswers(t, b, ctx, l, suffix)
			scoresExplained(t, b, ctx, l, f)
			headlines(t, b, ctx, l, f, g, suffix)
			chartLabels(t, b, ctx, l, f, g, suffix)
			keyColumns(t, b, ctx, l, f)
			if l.phone {
				firstScreen(t, b, ctx, f)
				targets(t, b, ctx, f)
			}
			plainTools(t, b, ctx, l)
			b.open(t, ctx, "/", 200)
			axeNone(t, ctx, "the feed on "+l.String())
			b.shot(t, ctx, "glance-feed-"+suffix)
			b.open(t, ctx, "/agents/oracle-1", 200)
			axeNone(t, ctx, "an agent on "+l.String())
			b.shot(t, ctx, "glance-agent-"+suffix)
		})
	}
}

// toolAnswers: every tool's answer is in its result box as percents or
// odds, implied_probabilities' per outcome, and the focus is on it.
func toolAnswers(t *testing.T, b *browser, ctx context.Context, l look, suffix string) {
	t.Helper()
	for _, tl := range tools.All() {
		b.open(t, ctx, "/tools/"+tl.Name, 200)
		b.follow(t, ctx, chromedp.Click(chromedp.CSS(`form.tool button[type=submit]`)), 200)
		if got := eval[string](t, ctx, `document.activeElement.id`); got != "result" {
			t.Errorf("%s on %s: after Calculate the focus is on %q, want the result", tl.Name, l, got)
		}
		if tl.Name == "build_settings" {
			continue // its answer is the install line, checked by "results in view"
		}
		answer := eval[[]string](t, ctx, `[...document.querySelectorAll('#result #answer td.value')].filter(e => e.checkVisibility()).map(e => e.textContent)`)
		if len(answer) == 0 {
			t.Errorf("%s on %s: no answer in the result box", tl.Name, l)
		}
		if tl.Name == "implied_probabilities" {
			if want := []string{"45.4%", "28.1%", "26.5%"}; len(answer) < 3 || strings.Join(answer[:3], " ") != strings.Join(want, " ") {
				t.Errorf("implied_probabilities on %s: the answer shows %q, want %q first", l, answer, want)
			}
			axeNone(t, ctx, "implied_probabilities' result on "+l.String())
			b.shot(t, ctx, "glance-tool-implied-"+suffix)
		}
		if tl.Name == "score_forecasts" {
			axeNone(t, ctx, "score_forecasts' result on "+l.String())
			b.shot(t, ctx, "glance-tool-score-"+suffix)
		}
	}
}

// scoresExplained: no "-0.0" on the pages with scores; every score of
// the agent page and the score table says what it means, on hover (a
// title), on tap (a link to the line that explains it) and to screen
// readers (that line as its description); a question whose scores are
// all over no time says so.
func scoresExplained(t *testing.T, b *browser, ctx context.Context, l look, f *fixture) {
	t.Helper()
	for _, path := range []string{"/", "/agents", "/agents/oracle-1", "/agents/skeptic", "/predictions/" + f.resolve, "/predictions/" + f.thread} {
		b.open(t, ctx, path, 200)
		if n := eval[int](t, ctx, minusZeroJS); n != 0 {
			t.Errorf("%s on %s: %d times -0.0", path, l, n)
		}
	}
	b.open(t, ctx, "/predictions/"+f.resolve, 200)
	heads := eval[[]string](t, ctx, `[...document.querySelectorAll('#scores thead a.tip')].map(a => {
		const d = document.getElementById(a.getAttribute('aria-describedby'));
		return a.textContent + '|' + (a.title ? 'title' : '') + '|' + (d && d.textContent.trim() && d.checkVisibility() ? 'described' : '') })`)
	if len(heads) != 5 {
		t.Errorf("score table on %s: %d explained headers %q, want 5", l, len(heads), heads)
	}
	for _, h := range heads {
		if !strings.HasSuffix(h, "|title|described") {
			t.Errorf("score table on %s: header %q lacks its title or its visible description", l, h)
		}
	}
	if eval[bool](t, ctx, `[...document.querySelectorAll('#scores tbody tr td:last-child')].every(td => td.textContent.trim() === '0%')`) &&
		!eval[bool](t, ctx, `!!document.getElementById('uncovered') && document.getElementById('uncovered').checkVisibility()`) {
		t.Errorf("question resolved at once on %s: every coverage is 0%% and nothing says why", l)
	}
	b.open(t, ctx, "/agents/oracle-1", 200)
	for _, name := range []string{"Trust score", "Peer score", "Baseline score"} {
		got := eval[string](t, ctx, fmt.Sprintf(`(() => { const dt = [...document.querySelectorAll('dl.facts dt')].find(d => d.textContent === %q);
			if (!dt) return 'missing'; const ex = dt.nextElementSibling.querySelector('.explain');
			return (dt.title ? 'title ' : '') + (ex && ex.checkVisibility() ? ex.textContent : '') })()`, name))
		if !strings.HasPrefix(got, "title ") || len(got) < 30 {
			t.Errorf("agent page on %s: %s explained as %q", l, name, got)
		}
	}
}

// headlines: a question's headline is its status and the number that
// matters now; its close is one row, spelled as its resolve_by was
// given; the closing sort lights the status chip it shows.
func headlines(t *testing.T, b *browser, ctx context.Context, l look, f *fixture, g glanceFixture, suffix string) {
	t.Helper()
	for _, c := range []struct{ name, id, starts, has string }{
		{"open", g.due, "", "community forecast"},
		{"closed", f.flagged, "Closed, awaiting resolution", "community forecast stood at"},
		{"resolved", f.resolve, "Resolved ", "The community gave it"},
		{"void", f.void, "Void", "not scored"},
	} {
		b.open(t, ctx, "/predictions/"+c.id, 200)
		got := eval[string](t, ctx, `document.getElementById('headline').innerText.trim()`)
		if !strings.HasPrefix(got, c.starts) || !strings.Contains(got, c.has) {
			t.Errorf("%s question on %s: headline %q, want it to start %q and hold %q", c.name, l, got, c.starts, c.has)
		}
		// The headline's first line is its largest text.
		if sizes := eval[[]float64](t, ctx, `(() => { const h = document.getElementById('headline'); const big = parseFloat(getComputedStyle(h.querySelector('.big strong')).fontSize);
			return [big, Math.max(...[...h.querySelectorAll('.sub')].map(p => parseFloat(getComputedStyle(p).fontSize)))] })()`); sizes[0] <= sizes[1] {
			t.Errorf("%s question on %s: the headline's status is %.0f px, its secondary text %.0f px", c.name, l, sizes[0], sizes[1])
		}
		axeNone(t, ctx, c.name+" question on "+l.String())
		b.shot(t, ctx, "glance-question-"+c.name+"-"+suffix)
	}
	b.open(t, ctx, "/predictions/"+g.due, 200)
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('dl.facts dt')].map(d => d.textContent)`)
	for _, r := range rows {
		if r == "Timeframe" || r == "Resolve by" || r == "Status" {
			t.Errorf("question on %s: the facts still hold %q beside Closes (%q)", l, r, rows)
		}
	}
	if got := eval[string](t, ctx, `[...document.querySelectorAll('dl.facts dt')].find(d => d.textContent === 'Closes').nextElementSibling.textContent`); !strings.HasPrefix(got, "end of 2027-06-30 UTC") {
		t.Errorf("question due 2027-06-30 on %s: closes %q", l, got)
	}
	b.open(t, ctx, "/?sort=closing", 200)
	chips := eval[[]string](t, ctx, `[...document.querySelectorAll('#statuses a')].map(a => a.textContent + (a.classList.contains('active') ? '*' : '') + '|' + a.getAttribute('href'))`)
	for _, c := range chips {
		label, href, _ := strings.Cut(c, "|")
		switch {
		case label == "all*":
			t.Errorf("closing sort on %s: the chip \"all\" is lit over a list of open questions (%q)", l, chips)
		case label == "open*" || label == "open":
		case strings.Contains(href, "sort=closing"):
			t.Errorf("closing sort on %s: the chip %q keeps the closing sort (%s), which shows only open questions", l, label, href)
		}
	}
	if !strings.Contains(strings.Join(chips, " "), "open*") {
		t.Errorf("closing sort on %s: the chip \"open\" is not lit (%q)", l, chips)
	}
}

// chartLabels: the history chart's labels never overlap and the
// outcome's and the close's stay off the plot; a span of seconds gets
// ticks; marks are seen on the plot and not stacked; the community line
// stops at the close; the calibration plot's text is readable and its
// counts clear of the frame.
func chartLabels(t *testing.T, b *browser, ctx context.Context, l look, f *fixture, g glanceFixture, suffix string) {
	t.Helper()
	for _, c := range []struct{ name, id string }{{"resolved", f.resolve}, {"void", f.void}, {"closed", f.flagged}, {"thread", f.thread}, {"due", g.due}} {
		b.open(t, ctx, "/predictions/"+c.id, 200)
		if got := eval[[]string](t, ctx, overlapsJS+`('svg.history')`); len(got) > 0 {
			t.Errorf("%s chart on %s: labels overlap: %q", c.name, l, got)
		}
		if got := eval[[]string](t, ctx, clippedJS+`('svg.history')`); len(got) > 0 {
			t.Errorf("%s chart on %s: %q cut off at the edge", c.name, l, got)
		}
		if got := eval[[]string](t, ctx, offPlotJS); len(got) > 0 {
			t.Errorf("%s chart on %s: %q sit on the plot", c.name, l, got)
		}
		if n := eval[int](t, ctx, `[...document.querySelectorAll('svg.history text.tick')].filter(e => !e.textContent.endsWith('%')).length`); n < 2 {
			t.Errorf("%s chart on %s: %d time ticks, want at least 2", c.name, l, n)
		}
		if n := eval[int](t, ctx, stackedJS); n > 0 {
			t.Errorf("%s chart on %s: %d pairs of marks drawn on one another", c.name, l, n)
		}
		if worst := eval[float64](t, ctx, contrastJS); worst < 3 {
			t.Errorf("%s chart on %s: a mark has contrast %.2f:1 against the plot, want 3:1", c.name, l, worst)
		}
		if c.name == "resolved" || c.name == "closed" {
			past := eval[float64](t, ctx, `(() => { const svg = document.querySelector('svg.history'); const cl = svg.querySelector('g.close line');
				const xs = svg.querySelector('polyline.community').getAttribute('points').split(' ').map(p => parseFloat(p));
				return Math.max(...xs) - parseFloat(cl.getAttribute('x1')) })()`)
			if past > 0.5 {
				t.Errorf("%s chart on %s: the community line runs %.1f units past the close", c.name, l, past)
			}
		}
		if c.name == "due" {
			b.shot(t, ctx, "glance-chart-dense-"+suffix)
		}
	}
	b.open(t, ctx, "/agents/oracle-1", 200)
	px := eval[float64](t, ctx, `(() => { const svg = document.querySelector('svg.calibration');
		return Math.min(...[...svg.querySelectorAll('text')].map(e => parseFloat(e.getAttribute('font-size')))) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width })()`)
	if px < 12 {
		t.Errorf("calibration plot on %s: text of %.1f px, want at least 12", l, px)
	}
	if got := eval[[]string](t, ctx, `(() => { const svg = document.querySelector('svg.calibration'); const bg = svg.querySelector('.plot-bg').getBBox();
		return [...svg.querySelectorAll('text.count')].filter(t => { const b = t.getBBox();
			return b.x < bg.x + 2 || b.x + b.width > bg.x + bg.width - 2 || b.y < bg.y + 2 || b.y + b.height > bg.y + bg.height - 2 }).map(t => t.textContent) })()`); len(got) > 0 {
		t.Errorf("calibration plot on %s: the counts %q touch the frame", l, got)
	}
	if got := eval[[]string](t, ctx, clippedJS+`('svg.calibration')`); len(got) > 0 {
		t.Errorf("calibration plot on %s: %q cut off at the edge", l, got)
	}
	if got := eval[[]string](t, ctx, overlapsJS+`('svg.calibration')`); len(got) > 0 {
		t.Errorf("calibration plot on %s: labels overlap: %q", l, got)
	}
}

// keyColumns: on a phone the history table shows its forecast and the
// community after it, and the agent page its forecasts' status and peer
// score, without scrolling; at 1280 a long agent name pushes no column
// out; the swipe hint is for phones only.
func keyColumns(t *testing.T, b *browser, ctx context.Context, l look, f *fixture) {
	t.Helper()
	b.open(t, ctx, "/predictions/"+f.thread, 200)
	for _, col := range []string{"Forecast", "Community after"} {
		if r := eval[[]float64](t, ctx, rightOfJS+`('#history-table', '`+col+`')`); r[0] < 0 || r[0] > r[1] {
			t.Errorf("history table on %s: the column %q ends at %.0f px of %.0f", l, col, r[0], r[1])
		}
	}
	if w := eval[[]float64](t, ctx, `(() => { const b = document.getElementById('history-table').closest('.scroll'); return [b.scrollWidth, b.clientWidth] })()`); !l.phone && w[0] > w[1] {
		t.Errorf("history table on %s, with a long agent name: %v px wide in a %v px box", l, w[0], w[1])
	}
	if !l.phone {
		if n := eval[int](t, ctx, `[...document.querySelectorAll('.scroll-cue')].filter(c => c.checkVisibility()).length`); n > 0 {
			t.Errorf("question on %s: %d swipe hints shown on a desktop", l, n)
		}
	}
	b.open(t, ctx, "/agents/oracle-1", 200)
	for _, col := range []string{"Prediction, status", "Peer"} {
		if r := eval[[]float64](t, ctx, rightOfJS+`('#agent-forecasts', '`+col+`')`); r[0] < 0 || r[0] > r[1] {
			t.Errorf("agent's forecasts on %s: the column %q ends at %.0f px of %.0f", l, col, r[0], r[1])
		}
	}
	if !l.phone {
		if n := eval[int](t, ctx, `[...document.querySelectorAll('.scroll-cue')].filter(c => c.checkVisibility()).length`); n > 0 {
			t.Errorf("agent page on %s: %d swipe hints shown on a desktop", l, n)
		}
		// The agent with a long name and a title of 80-letter words.
		b.open(t, ctx, "/agents/"+longAgentID, 200)
		if w := eval[[]float64](t, ctx, `(() => { const b = document.getElementById('agent-forecasts').closest('.scroll'); return [b.scrollWidth, b.clientWidth] })()`); w[0] > w[1] {
			t.Errorf("long agent's forecasts on %s: %v px wide in a %v px box", l, w[0], w[1])
		}
	}
}

// firstScreen: at 390 × 844 the feed's first question and a question's
// chart start within the first screen.
func firstScreen(t *testing.T, b *browser, ctx context.Context, f *fixture) {
	t.Helper()
	b.open(t, ctx, "/", 200)
	top := eval[float64](t, ctx, `document.querySelector('#feed li.prediction').getBoundingClientRect().top`)
	t.Logf("feed at 390 × 844: the first question starts at %.0f px", top)
	if top > 844-120 {
		t.Errorf("feed at 390 × 844: the first question starts at %.0f px, want its title within the first screen", top)
	}
	for _, id := range []string{f.thread, f.resolve} {
		b.open(t, ctx, "/predictions/"+id, 200)
		top := eval[float64](t, ctx, `document.getElementById('chart').getBoundingClientRect().top`)
		t.Logf("question at 390 × 844: the chart starts at %.0f px", top)
		if top > 844-150 {
			t.Errorf("question at 390 × 844: the chart starts at %.0f px, want it within the first screen", top)
		}
	}
}

// targets: at 390 px the links and toggles a finger taps are 24 × 24 px.
func targets(t *testing.T, b *browser, ctx context.Context, f *fixture) {
	t.Helper()
	for _, c := range []struct{ path, sel string }{
		{"/agents", "a.agent, table.data thead th a"},
		{"/agents/oracle-1", "a.agent, .crumbs a, table.data thead th a"},
		{"/predictions/" + f.resolve, "a.agent, .crumbs a, details > summary, table.data thead th a"},
		{"/settings?preset=team", "details > summary"},
		{"/", ".chips a, a.agent"},
	} {
		b.open(t, ctx, c.path, 200)
		if got := eval[[]string](t, ctx, smallTargetsJS+`('`+c.sel+`')`); len(got) > 0 {
			t.Errorf("%s at 390 px: targets under 24 × 24 px: %q", c.path, got)
		}
	}
}

// plainTools: a tool page opens with a short lead in plain words, its
// labels carry no parameter names, its API reference is one click away,
// and what shows holds no literal backticks or library jargon.
func plainTools(t *testing.T, b *browser, ctx context.Context, l look) {
	t.Helper()
	for _, tl := range tools.All() {
		b.open(t, ctx, "/tools/"+tl.Name, 200)
		shown := eval[string](t, ctx, `(() => { const m = document.getElementById('main').cloneNode(true); m.querySelectorAll('details:not([open])').forEach(d => d.remove()); return m.textContent })()`)
		for _, bad := range []string{"`", "scikit", "g[i]", "a 400 naming"} {
			if strings.Contains(shown, bad) {
				t.Errorf("%s on %s: the page shows %q", tl.Name, l, bad)
			}
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('form.tool label code').length`); n > 0 {
			t.Errorf("%s on %s: %d labels carry a parameter name in code", tl.Name, l, n)
		}
		if lines := eval[float64](t, ctx, `(() => { const e = document.getElementById('lead'); return e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight) })()`); lines > 4.5 {
			t.Errorf("%s on %s: the lead runs %.0f lines", tl.Name, l, lines)
		}
		if !eval[bool](t, ctx, `(() => { const d = document.getElementById('api-ref'); return !!d && d.querySelector('summary').checkVisibility() && d.textContent.includes('/api/v1/`+tl.Name+`') })()`) {
			t.Errorf("%s on %s: no API reference one click away", tl.Name, l)
		}
	}
}
