package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/tools"
)

// History chart geometry: time across, probability up.
const (
	histLeft, histTop, histW, histH = 48.0, 12.0, 560.0, 200.0
	histWidth, histHeight           = histLeft + histW + 16, histTop + histH + 44
)

// historySVG draws a prediction's forecast history: the community forecast
// after each forecast as a step line, each forecast as a dot (the agent's
// name in its tooltip), from the prediction's creation to end (its
// resolution, or now). title names the chart for screen readers.
func historySVG(fs []board.Forecast, start, end time.Time, title string) template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	if !end.After(start) {
		end = start.Add(time.Minute)
	}
	span := end.Sub(start).Seconds()
	x := func(t time.Time) float64 {
		f := t.Sub(start).Seconds() / span
		return histLeft + min(max(f, 0), 1)*histW
	}
	y := func(p float64) float64 { return histTop + (1-p)*histH }
	line(&b, `<svg class="plot history" viewBox="0 0 %g %g" role="img" aria-labelledby="hist-title" xmlns="http://www.w3.org/2000/svg">`, histWidth, histHeight)
	line(&b, `<title id="hist-title">%s: %s from %s to %s</title>`, esc(title), tools.Count(len(fs), "forecast"), date(start), date(end))
	line(&b, `<rect class="plot-bg" x="%g" y="%g" width="%g" height="%g" fill="#fafafa" stroke="#999"/>`, histLeft, histTop, histW, histH)
	for i := 0; i <= 4; i++ {
		p := float64(i) / 4
		line(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`, histLeft, y(p), histLeft+histW, y(p))
		line(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-size="11" fill="#444">%d%%</text>`, histLeft-6, y(p)+4, i*25)
	}
	layout := "2006-01-02"
	if end.Sub(start) < 48*time.Hour {
		layout = "2006-01-02 15:04 UTC" // a short life: the hours tell more
	}
	line(&b, `<text x="%.1f" y="%.1f" font-size="11" fill="#444">%s</text>`, histLeft, histTop+histH+16, esc(start.UTC().Format(layout)))
	line(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-size="11" fill="#444">%s</text>`, histLeft+histW, histTop+histH+16, esc(end.UTC().Format(layout)))
	line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="12" fill="#222">community forecast (line) and each forecast (dots)</text>`, histLeft+histW/2, histHeight-6)
	if len(fs) > 0 {
		// The community holds from one forecast to the next: a step line.
		var pts []string
		for i, f := range fs {
			if i > 0 {
				pts = append(pts, pt(x(f.CreatedAt), y(fs[i-1].Community.P)))
			}
			pts = append(pts, pt(x(f.CreatedAt), y(f.Community.P)))
		}
		pts = append(pts, pt(x(end), y(fs[len(fs)-1].Community.P)))
		line(&b, `<polyline class="community" points="%s" fill="none" stroke="#1f5fa8" stroke-width="2"/>`, strings.Join(pts, " "))
		for _, f := range fs {
			line(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="#c05621" fill-opacity="0.7"><title>%s: %s at %s (community %s)</title></circle>`,
				x(f.CreatedAt), y(f.P), esc(stripBidi(f.AgentName)), pct(f.P), date(f.CreatedAt), pct(f.Community.P))
		}
	} else {
		line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13" fill="#555">no forecasts yet</text>`, histLeft+histW/2, y(0.5))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and escaped text only
}

func pt(x, y float64) string { return fmt.Sprintf("%.1f,%.1f", x, y) }

// stripBidi removes the bidirectional controls from text shown to people:
// the embeddings and overrides (U+202A–U+202E), the isolates
// (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C), so that stored
// text cannot reverse or reorder the rest of a line. The pages isolate
// user text with <bdi> or dir="auto" instead; templates call it as
// "bidi", and it is the one place these characters are named.
func stripBidi(s string) string {
	if !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isBidiControl(r) {
			return -1
		}
		return r
	}, s)
}

func isBidiControl(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r == 0x200E || r == 0x200F || r == 0x061C
}
