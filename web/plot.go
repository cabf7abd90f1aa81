package web

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/scoring"
)

// The plots are inline SVG written here rather than in a template: they are
// mostly coordinates. Every piece of text in them goes through
// template.HTMLEscapeString, so a forecaster's name cannot break out; they
// use presentation attributes and classes only (no style attribute), which
// the Content-Security-Policy allows.

// Calibration plot geometry: a square plot area with room for the axes.
const (
	// The text is 14 units in a 360-unit-wide drawing, so that at a
	// phone's 358 px it stays at least 12 px (WCAG's readable size is
	// the browser's default; 12 px is the least the pages draw).
	calLeft, calTop, calSize = 60.0, 30.0, 276.0
	calWidth, calHeight      = calLeft + calSize + 24, calTop + calSize + 56
	calFont                  = 14.0
)

// calibrationSVG draws a reliability diagram of a calibration table: the
// mean forecast of each bin on x, the share that resolved yes on y, the
// diagonal of perfect calibration, and one point per non-empty bin whose
// area grows with its count and which is labelled with the count. title
// names the plot for screen readers.
func calibrationSVG(bins []scoring.Bin, title string) template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	x := func(p float64) float64 { return calLeft + p*calSize }
	y := func(p float64) float64 { return calTop + (1-p)*calSize }
	total, most := 0, 0
	for _, bin := range bins {
		total += bin.Count
		most = max(most, bin.Count)
	}
	line(&b, `<svg class="plot calibration" viewBox="0 0 %g %g" role="img" aria-labelledby="cal-title" xmlns="http://www.w3.org/2000/svg">`, calWidth, calHeight)
	line(&b, `<title id="cal-title">%s: %s in %d bins</title>`, esc(title), tools.Count(total, "forecast"), len(bins))
	line(&b, `<rect class="plot-bg" x="%g" y="%g" width="%g" height="%g" fill="#fafafa" stroke="#999"/>`, calLeft, calTop, calSize, calSize)
	for i := 0; i <= 5; i++ {
		p := float64(i) / 5
		line(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`, x(p), y(0), x(p), y(1))
		line(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`, x(0), y(p), x(1), y(p))
		line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="%g" fill="#444">%d%%</text>`, x(p), y(0)+22, calFont, i*20)
		line(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-size="%g" fill="#444">%d%%</text>`, x(0)-6, y(p)+5, calFont, i*20)
	}
	line(&b, `<line class="diagonal" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888" stroke-dasharray="5 4"><title>perfect calibration</title></line>`, x(0), y(0), x(1), y(1))
	// The diagonal is named above the plot, where no point or count goes.
	line(&b, `<line class="diagonal" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888" stroke-dasharray="5 4"/>`, x(1)-textWidth("perfect calibration", calFont)-28, calTop-12, x(1)-textWidth("perfect calibration", calFont)-6, calTop-12)
	line(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-size="%g" fill="#444">perfect calibration</text>`, x(1), calTop-7, calFont)
	line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="%g" fill="#222">forecast probability</text>`, x(0.5), calHeight-12, calFont)
	line(&b, `<text x="16" y="%.1f" text-anchor="middle" font-size="%g" fill="#222" transform="rotate(-90 16 %.1f)">observed frequency</text>`, y(0.5), calFont, y(0.5))

	var pts []string
	for _, bin := range bins {
		if bin.Count > 0 && bin.MeanForecast != nil && bin.ObservedFrequency != nil {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(*bin.MeanForecast), y(*bin.ObservedFrequency)))
		}
	}
	if len(pts) > 1 {
		line(&b, `<polyline class="curve" points="%s" fill="none" stroke="#1f5fa8" stroke-width="1.5"/>`, strings.Join(pts, " "))
	}
	for _, bin := range bins {
		if bin.Count == 0 || bin.MeanForecast == nil || bin.ObservedFrequency == nil {
			continue
		}
		cx, cy := x(*bin.MeanForecast), y(*bin.ObservedFrequency)
		r := 4 + 8*math.Sqrt(float64(bin.Count)/float64(most))
		line(&b, `<g class="bin"><title>%s–%s: %s, mean forecast %s, resolved yes %s</title>`,
			pct(bin.Lo), pct(bin.Hi), tools.Count(bin.Count, "forecast"), pct(*bin.MeanForecast), pct(*bin.ObservedFrequency))
		line(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="#1f5fa8" fill-opacity="0.55" stroke="#123d6e"/>`, cx, cy, r)
		// The count sits above the point, or below it at the top edge,
		// and inside the frame with room to spare at either side.
		label := fmt.Sprint(bin.Count)
		ty := cy - r - 5
		if ty-calFont < calTop+3 {
			ty = cy + r + calFont + 1
		}
		ty = min(ty, calTop+calSize-4)
		tx := min(max(cx, calLeft+textWidth(label, calFont)/2+5), calLeft+calSize-textWidth(label, calFont)/2-5)
		line(&b, `<text class="count" x="%.1f" y="%.1f" text-anchor="middle" font-size="%g" font-weight="bold" fill="#123d6e" stroke="#fff" stroke-width="3" paint-order="stroke">%s</text></g>`, tx, ty, calFont, label)
	}
	if total == 0 {
		line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13" fill="#555">no resolved forecasts</text>`, x(0.5), y(0.5))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and escaped text only
}

// scaleForecast is one forecast on the combine scale.
type scaleForecast struct {
	Who    string
	P      float64
	Weight float64
}

// Combine scale geometry.
const (
	scaleLeft, scaleRight, scaleWidth = 20.0, 340.0, 360.0
	scaleAxisY                        = 56.0
	scaleLabelRows                    = 6
)

// combineSVG draws forecasts and their pooled value on one 0–100% scale:
// a dot per forecast (hollow when its weight is 0, so it was left out), a
// band from the lowest to the highest included forecast, and a line at
// the pooled value with its label.
func combineSVG(fs []scaleForecast, pooled float64, pooledLabel string) template.HTML {
	esc := template.HTMLEscapeString
	x := func(p float64) float64 { return scaleLeft + p*(scaleRight-scaleLeft) }

	// Labels go below the axis in rows; each takes the first row where it
	// does not overlap the previous label, or none (its dot keeps a tooltip).
	order := make([]int, len(fs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case fs[a].P < fs[b].P:
			return -1
		case fs[a].P > fs[b].P:
			return 1
		}
		return 0
	})
	rowEnd := make([]float64, scaleLabelRows)
	for i := range rowEnd {
		rowEnd[i] = math.Inf(-1)
	}
	rows, used := make([]int, len(fs)), 0
	for _, i := range order {
		w := labelWidth(label(fs[i], i))
		start := x(fs[i].P) - w/2
		rows[i] = -1
		for r := range rowEnd {
			if start > rowEnd[r]+4 {
				rows[i], rowEnd[r] = r, start+w
				used = max(used, r+1)
				break
			}
		}
	}
	height := scaleAxisY + 28 + float64(used)*18

	var b strings.Builder
	line(&b, `<svg class="plot scale" viewBox="0 0 %g %g" role="img" aria-labelledby="scale-title" xmlns="http://www.w3.org/2000/svg">`, scaleWidth, height)
	line(&b, `<title id="scale-title">%s and the pooled value %s on a scale from 0%% to 100%%</title>`, tools.Count(len(fs), "forecast"), pct(pooled))
	lo, hi, some := 1.0, 0.0, false
	for _, f := range fs {
		if f.Weight > 0 {
			lo, hi, some = min(lo, f.P), max(hi, f.P), true
		}
	}
	if some {
		line(&b, `<rect class="spread" x="%.1f" y="%.1f" width="%.1f" height="16" fill="#dbe7f5"><title>spread: %s to %s</title></rect>`,
			x(lo), scaleAxisY-8, max(x(hi)-x(lo), 1), pct(lo), pct(hi))
	}
	line(&b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444"/>`, x(0), scaleAxisY, x(1), scaleAxisY)
	for i := 0; i <= 10; i++ {
		p := float64(i) / 10
		line(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444"/>`, x(p), scaleAxisY-4, x(p), scaleAxisY+4)
		if i%2 == 0 { // labels every 20%, so that they fit on a phone
			line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13" fill="#444">%d%%</text>`, x(p), scaleAxisY-12, i*10)
		}
	}
	for i, f := range fs {
		fill := `fill="#1f5fa8" fill-opacity="0.6"`
		note := ""
		if f.Weight <= 0 {
			fill, note = `fill="#fff"`, ", left out (weight 0)"
		} else if f.Weight != 1 {
			note = ", weight " + trimFloat(f.Weight)
		}
		line(&b, `<g class="forecast"><title>%s: %s%s</title><circle cx="%.1f" cy="%.1f" r="6" %s stroke="#123d6e"/>`,
			esc(label(f, i)), pct(f.P), note, x(f.P), scaleAxisY, fill)
		if rows[i] >= 0 {
			ly := scaleAxisY + 26 + float64(rows[i])*18
			line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13" fill="#123d6e">%s</text>`, x(f.P), ly, esc(label(f, i)))
		}
		b.WriteString(`</g>`)
	}
	px := x(pooled)
	line(&b, `<g class="pooled"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#b5400b" stroke-width="3"/>`, px, scaleAxisY-14, px, scaleAxisY+14)
	anchor := "middle"
	switch {
	case px < scaleLeft+90:
		anchor = "start"
	case px > scaleRight-90:
		anchor = "end"
	}
	line(&b, `<text x="%.1f" y="16" text-anchor="%s" font-size="14" font-weight="bold" fill="#b5400b">%s</text></g>`, px, anchor, esc(pooledLabel))
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and escaped text only
}

// label names a forecast on the scale: its who, shortened, or its number.
func label(f scaleForecast, i int) string {
	if f.Who == "" {
		return fmt.Sprintf("#%d", i+1)
	}
	who := stripBidi(f.Who)
	if utf8.RuneCountInString(who) > 18 {
		r := []rune(who)
		return string(r[:17]) + "…"
	}
	return who
}

// labelWidth estimates the width of a 13-pixel label.
func labelWidth(s string) float64 { return 7.3 * float64(utf8.RuneCountInString(s)) }

func trimFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// line writes one element of a plot on its own line, so that the golden
// files diff readably.
func line(b *strings.Builder, format string, args ...any) {
	fmt.Fprintf(b, format, args...)
	b.WriteByte('\n')
}
