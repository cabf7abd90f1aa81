package web

import (
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/tools"
)

// History chart geometry: time across, probability up. The chart is
// drawn at about the width a phone shows it, so that its 12.5-unit text
// stays at least 11 px there; on a wide screen it grows to 520 px.
const (
	histLeft, histW, histH = 44.0, 340.0, 170.0
	histWidth              = histLeft + histW + 20
	histFont               = 12.5
	histTicks              = 4 // at most, across
)

// historyChart is what the history chart draws besides the forecasts.
type historyChart struct {
	Start, End time.Time
	// Close is the question's close (actual, else scheduled) when it
	// falls within the chart; nil when it does not.
	Close *time.Time
	// Outcome is yes, no or void once resolved; "" before.
	Outcome board.Outcome
	Title   string
	// You is the signed-in person's id ("" for none): their forecasts get
	// a ring, and their legend entry says "(you)".
	You string
	// Legend is the most agents the legend names, those with the most
	// forecasts (and You among them), then a line "+N more"; 0 names
	// every agent.
	Legend int
}

// legendAgents are the agents the legend names, of order (the agents in
// the order they first forecast): all of them when there are at most
// most (or most is 0), else the most who forecast most often (the first
// to forecast first among equals), then you if not among them. It
// returns them and how many it left out.
func legendAgents(fs []board.Forecast, order []string, most int, you string) ([]string, int) {
	if most <= 0 || len(order) <= most {
		return order, 0
	}
	count := make(map[string]int, len(order))
	for _, f := range fs {
		count[f.AgentID]++
	}
	top := slices.Clone(order)
	slices.SortStableFunc(top, func(a, b string) int { return count[b] - count[a] })
	top = top[:most]
	if _, ok := count[you]; ok && you != "" && !slices.Contains(top, you) {
		top = append(top, you)
	}
	return top, len(order) - len(top)
}

// A marker is how an agent's forecasts are drawn: a shape and a colour,
// so that agents differ without colour alone (WCAG 2.2, 1.4.1 Use of
// Color). The colours are Okabe and Ito's, told apart by most colour
// vision deficiencies.
type marker struct {
	Shape, Color string
}

var markerShapes = []string{"circle", "square", "triangle", "diamond", "cross", "plus"}
var markerColors = []string{"#b35806", "#0072b2", "#009e73", "#cc79a7", "#7a6a00", "#56b4e9"}

// markerOf is the marker of the i-th agent to forecast: six shapes, then
// the shapes again in another colour.
func markerOf(i int) marker {
	return marker{Shape: markerShapes[i%len(markerShapes)], Color: markerColors[(i+i/len(markerShapes))%len(markerColors)]}
}

// markers gives each agent of the history its marker, in the order they
// first forecast, and that order.
func markers(fs []board.Forecast) (map[string]marker, []string) {
	m := map[string]marker{}
	var order []string
	for _, f := range fs {
		if _, ok := m[f.AgentID]; !ok {
			m[f.AgentID] = markerOf(len(order))
			order = append(order, f.AgentID)
		}
	}
	return m, order
}

// shape writes a marker centred at x, y.
func shape(b *strings.Builder, mk marker, x, y float64, tip string) {
	const r = 4.5
	fill := ` fill="` + mk.Color + `" stroke="#1d1d1f" stroke-width="0.8"/>`
	if tip != "" { // a forecast
		b.WriteString(`<g class="mark"><title>` + tip + `</title>`)
	} else { // a key: the legend's or the table's
		b.WriteString(`<g class="key">`)
	}
	// Every number as %.1f writes it: a chart of many forecasts draws
	// many marks, and strconv is several times cheaper than fmt.
	n := func(prefix string, v float64) {
		var buf [32]byte
		b.WriteString(prefix)
		b.Write(strconv.AppendFloat(buf[:0], v, 'f', 1, 64))
	}
	switch mk.Shape {
	case "square":
		n(`<rect x="`, x-r+0.5)
		n(`" y="`, y-r+0.5)
		n(`" width="`, 2*r-1)
		n(`" height="`, 2*r-1)
		b.WriteString(`"` + fill)
	case "triangle":
		n(`<polygon points="`, x)
		n(`,`, y-r-0.5)
		n(` `, x+r)
		n(`,`, y+r-1)
		n(` `, x-r)
		n(`,`, y+r-1)
		b.WriteString(`"` + fill)
	case "diamond":
		n(`<polygon points="`, x)
		n(`,`, y-r-0.5)
		n(` `, x+r+0.5)
		n(`,`, y)
		n(` `, x)
		n(`,`, y+r+0.5)
		n(` `, x-r-0.5)
		n(`,`, y)
		b.WriteString(`"` + fill)
	case "cross":
		n(`<path d="M`, x-r)
		n(` `, y-r)
		n(`L`, x+r)
		n(` `, y+r)
		n(`M`, x-r)
		n(` `, y+r)
		n(`L`, x+r)
		n(` `, y-r)
		b.WriteString(`" stroke="` + mk.Color + `" stroke-width="2.5"/>`)
	case "plus":
		n(`<path d="M`, x-r-0.5)
		n(` `, y)
		n(`L`, x+r+0.5)
		n(` `, y)
		n(`M`, x)
		n(` `, y-r-0.5)
		n(`L`, x)
		n(` `, y+r+0.5)
		b.WriteString(`" stroke="` + mk.Color + `" stroke-width="2.5"/>`)
	default:
		n(`<circle cx="`, x)
		n(`" cy="`, y)
		n(`" r="`, r)
		b.WriteString(`"` + fill)
	}
	b.WriteString("</g>\n")
}

// markSVG draws a marker on its own, for the history table's rows.
func markSVG(mk marker) template.HTML {
	var b strings.Builder
	b.WriteString(`<svg class="mark" viewBox="0 0 12 12" width="12" height="12" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">`)
	shape(&b, mk, 6, 6.5, "")
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and constants only
}

// historySVG draws a prediction's forecast history: the community forecast
// after each forecast as a step line, each forecast as a marker (shape and
// colour by agent, named in the legend), time ticks chosen for the span,
// and the close and the outcome when there are. c.Title names the chart
// for screen readers; the table under the chart gives the same numbers.
func historySVG(fs []board.Forecast, c historyChart) template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	start, end := c.Start, c.End
	if !end.After(start) {
		end = start.Add(time.Minute)
	}
	span := end.Sub(start).Seconds()
	x := func(t time.Time) float64 {
		f := t.Sub(start).Seconds() / span
		return histLeft + min(max(f, 0), 1)*histW
	}
	// The top margin holds a row of labels above the plot for each of the
	// outcome and the close (the outcome's first), so neither lands on
	// the plot's marks, its axis or the other.
	closeIn := c.Close != nil && !c.Close.Before(start) && !c.Close.After(end)
	outcomeRow, closeRow, histTop := 0.0, 0.0, 14.0
	switch {
	case c.Outcome != "" && closeIn:
		outcomeRow, closeRow, histTop = 13, 29, 36
	case c.Outcome != "":
		outcomeRow, histTop = 20, 28
	case closeIn:
		closeRow, histTop = 20, 28
	}
	y := func(p float64) float64 { return histTop + (1-p)*histH }
	mk, order := markers(fs)
	named, more := legendAgents(fs, order, c.Legend, c.You)
	legendRows := (len(named) + 2) / 2 // the community line, then each agent, two a row
	if more > 0 {
		legendRows++ // the line "+N more"
	}
	height := histTop + histH + 46 + float64(legendRows)*18
	line(&b, `<svg class="plot history" viewBox="0 0 %g %g" role="img" aria-labelledby="hist-title" xmlns="http://www.w3.org/2000/svg" font-size="%g">`, histWidth, height, histFont)
	line(&b, `<title id="hist-title">%s: %s from %s to %s</title>`, esc(c.Title), tools.Count(len(fs), "forecast"), date(start), date(end))
	line(&b, `<rect class="plot-bg" x="%g" y="%g" width="%g" height="%g" fill="#fafafa" stroke="#999"/>`, histLeft, histTop, histW, histH)
	for i := 0; i <= 4; i++ {
		p := float64(i) / 4
		line(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`, histLeft, y(p), histLeft+histW, y(p))
		line(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end" fill="#444">%d%%</text>`, histLeft-5, y(p)+4, i*25)
	}
	ticks, layout := timeTicks(start, end, histTicks)
	right := -1e9 // the right end of the last label drawn
	for _, tk := range ticks {
		tx := x(tk)
		label := tk.UTC().Format(layout)
		lo, hi, anchor := labelSpan(tx, textWidth(label, histFont), histLeft, histLeft+histW)
		if lo < right+8 { // it would touch the label before: leave it out
			continue
		}
		right = hi
		line(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`, tx, histTop, tx, histTop+histH)
		line(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="%s" fill="#444">%s</text>`, tx, histTop+histH+16, anchor, esc(label))
	}
	line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#222">%s</text>`, histLeft+histW/2, histTop+histH+34, esc(axisCaption(start, end, layout)))
	if closeIn {
		cx := x(*c.Close)
		line(&b, `<g class="close"><title>closed to forecasts at %s</title><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1d1d1f" stroke-width="1.5" stroke-dasharray="4 3"/>`,
			date(*c.Close), cx, histTop, cx, histTop+histH)
		_, _, anchor := labelSpan(cx, textWidth("close", histFont), histLeft, histLeft+histW)
		line(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1d1d1f" stroke-width="1.5" stroke-dasharray="4 3"/>`, cx, closeRow+3, cx, histTop)
		line(&b, `<text class="close-label" x="%.1f" y="%.1f" text-anchor="%s" fill="#1d1d1f">close</text></g>`, cx, closeRow, anchor)
	}
	if len(fs) > 0 {
		// The community holds from one forecast to the next: a step line.
		// Its points are written straight into the chart: a history of
		// many forecasts has twice as many.
		b.WriteString(`<polyline class="community" points="`)
		for i, f := range fs {
			if i > 0 {
				appendPt(&b, x(f.CreatedAt), y(fs[i-1].Community.P))
				b.WriteByte(' ')
			}
			appendPt(&b, x(f.CreatedAt), y(f.Community.P))
			b.WriteByte(' ')
		}
		// The line runs to the close, after which no forecast counts, or
		// to the chart's end when the question has not closed.
		last := end
		if c.Close != nil && c.Close.Before(end) {
			last = *c.Close
		}
		appendPt(&b, x(last), y(fs[len(fs)-1].Community.P))
		b.WriteString(`" fill="none" stroke="#1f5fa8" stroke-width="2.5"/>` + "\n")
		placed := newPlacedMarks(histTop)
		names := map[string]string{} // each name escaped once, however many marks it names
		for _, f := range fs {
			mx, my := placed.dodge(x(f.CreatedAt), y(f.P))
			placed.add(mx, my)
			name, ok := names[f.AgentName]
			if !ok {
				name = esc(stripBidi(f.AgentName))
				names[f.AgentName] = name
			}
			shape(&b, mk[f.AgentID], mx, my, name+": "+pct(f.P)+" at "+date(f.CreatedAt)+" (community "+pct(f.Community.P)+")")
			if c.You != "" && f.AgentID == c.You {
				line(&b, `<circle class="you-ring" cx="%.1f" cy="%.1f" r="9" fill="none" stroke="#1d1d1f" stroke-width="2"/>`, x(f.CreatedAt), y(f.P))
			}
		}
	} else {
		line(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">no forecasts yet</text>`, histLeft+histW/2, y(0.5))
	}
	switch c.Outcome {
	case board.OutcomeYes, board.OutcomeNo:
		oy := y(0)
		if c.Outcome == board.OutcomeYes {
			oy = y(1)
		}
		line(&b, `<g class="outcome"><title>resolved %s</title><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1d1d1f" stroke-width="4"/>`,
			c.Outcome, histLeft+histW-40, oy, histLeft+histW, oy)
		line(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-weight="bold" fill="#1d1d1f">outcome: %s</text></g>`, histLeft+histW, outcomeRow, c.Outcome)
	case board.OutcomeVoid:
		line(&b, `<text class="outcome" x="%.1f" y="%.1f" text-anchor="end" font-weight="bold" fill="#1d1d1f">void: not scored</text>`, histLeft+histW, outcomeRow)
	}
	// The legend: the community line, then each agent's marker and name.
	ly := histTop + histH + 52
	line(&b, `<line class="community" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1f5fa8" stroke-width="2.5"/><text x="%.1f" y="%.1f" fill="#222">community</text>`,
		histLeft, ly-4, histLeft+16, ly-4, histLeft+22, ly)
	names := make(map[string]string, len(named)) // each agent's name in its first forecast
	for _, id := range named {
		names[id] = id
	}
	for i := len(fs) - 1; i >= 0; i-- {
		if _, ok := names[fs[i].AgentID]; ok {
			names[fs[i].AgentID] = fs[i].AgentName
		}
	}
	for i, id := range named {
		col, row := (i+1)%2, (i+1)/2
		lx, lyy := histLeft+float64(col)*histW/2, ly+float64(row)*18
		name := names[id]
		shape(&b, mk[id], lx+8, lyy-4, "")
		label := shorten(stripBidi(name), 22)
		if c.You != "" && id == c.You {
			label += " (you)"
		}
		line(&b, `<text class="legend" x="%.1f" y="%.1f" fill="#222">%s</text>`, lx+22, lyy, esc(label))
	}
	if more > 0 {
		line(&b, `<text class="legend more" x="%.1f" y="%.1f" fill="#222">+%s (the tables list all)</text>`,
			histLeft, ly+float64(legendRows-1)*18, esc(tools.Count(more, "more forecaster")))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and escaped text only
}

// textWidth estimates the width of s in the chart's sans-serif at size:
// about 0.6 em a character, a little more than most fonts' average, so
// that labels spaced by it do not touch.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

// labelSpan places a label of width w at x between lo and hi: centred,
// or from its start or end when centring would cross an edge. It
// returns the label's left and right ends and the text-anchor to draw
// it with.
func labelSpan(x, w, lo, hi float64) (float64, float64, string) {
	switch {
	case x-w/2 < lo:
		return x, x + w, "start"
	case x+w/2 > hi:
		return x - w, x, "end"
	}
	return x - w/2, x + w/2, "middle"
}

// markGap is how far apart, in chart units, two forecast marks are kept
// (a mark is 9 units across), so that forecasts made in the same minute
// at about the same value show as two marks, not one.
const markGap = 7.0

// placedMarks are the marks placed on the plot so far, filed by the
// square of side markGap they fall in (a grid over the plot, row by
// row), so that a mark's neighbours are those of the 3×3 squares around
// it, not every mark placed. Every mark lies within the plot: x() and
// y() keep forecasts there, and dodge does not move one out.
type placedMarks struct {
	cells      [][][2]float64
	cols, rows int
	top        float64 // the plot's top: y of the first row
	n          int
}

func newPlacedMarks(top float64) *placedMarks {
	cols, rows := int(math.Floor(histW/markGap))+1, int(math.Floor(histH/markGap))+1
	return &placedMarks{cells: make([][][2]float64, cols*rows), cols: cols, rows: rows, top: top}
}

// cell is the grid square of x, y, within the grid.
func (pm *placedMarks) cell(x, y float64) (int, int) {
	cx := min(max(int(math.Floor((x-histLeft)/markGap)), 0), pm.cols-1)
	cy := min(max(int(math.Floor((y-pm.top)/markGap)), 0), pm.rows-1)
	return cx, cy
}

func (pm *placedMarks) add(x, y float64) {
	cx, cy := pm.cell(x, y)
	pm.cells[cy*pm.cols+cx] = append(pm.cells[cy*pm.cols+cx], [2]float64{x, y})
	pm.n++
}

// clash says whether a mark already placed lies within markGap of x, y
// both across and up.
func (pm *placedMarks) clash(x, y float64) bool {
	cx, cy := pm.cell(x, y)
	for j := max(cy-1, 0); j <= min(cy+1, pm.rows-1); j++ {
		for i := max(cx-1, 0); i <= min(cx+1, pm.cols-1); i++ {
			for _, p := range pm.cells[j*pm.cols+i] {
				if math.Abs(p[0]-x) < markGap && math.Abs(p[1]-y) < markGap {
					return true
				}
			}
		}
	}
	return false
}

// dodge moves a mark at x, y right (or left at the plot's right edge)
// until no mark already placed lies within markGap of it both across and
// up; the table under the chart gives the exact times. A mark that would
// leave the plot so stays where it is, over the others: a crowded
// chart's marks stay within its time axis.
func (pm *placedMarks) dodge(x, y float64) (float64, float64) {
	step := markGap
	if x > histLeft+histW-3*markGap {
		step = -markGap
	}
	x0 := x
	for range pm.n + 1 {
		if !pm.clash(x, y) {
			return x, y
		}
		x += step
		if x < histLeft || x > histLeft+histW {
			return x0, y
		}
	}
	return x, y
}

// shorten cuts s to n characters, with an ellipsis when it cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// tickSteps are the spacings the time axis may take, shortest first.
var tickSteps = []struct {
	d      time.Duration
	months int // calendar months instead of d
	layout string
}{
	{10 * time.Second, 0, "15:04:05"}, {15 * time.Second, 0, "15:04:05"}, {30 * time.Second, 0, "15:04:05"},
	{time.Minute, 0, "15:04"}, {2 * time.Minute, 0, "15:04"}, {5 * time.Minute, 0, "15:04"}, {10 * time.Minute, 0, "15:04"},
	{15 * time.Minute, 0, "15:04"}, {30 * time.Minute, 0, "15:04"}, {time.Hour, 0, "15:04"}, {2 * time.Hour, 0, "15:04"},
	{3 * time.Hour, 0, "15:04"}, {6 * time.Hour, 0, "15:04"}, {12 * time.Hour, 0, "Jan 2 15:04"},
	{24 * time.Hour, 0, "Jan 2"}, {2 * 24 * time.Hour, 0, "Jan 2"}, {7 * 24 * time.Hour, 0, "Jan 2"}, {14 * 24 * time.Hour, 0, "Jan 2"},
	{0, 1, "Jan 2006"}, {0, 3, "Jan 2006"}, {0, 6, "Jan 2006"}, {0, 12, "2006"}, {0, 24, "2006"}, {0, 60, "2006"},
}

// timeTicks chooses the time axis' ticks: the shortest step of
// tickSteps that puts at most n ticks in [start, end], each on a round
// time of the step in UTC, and the layout that writes them. A span too
// long for every step (over 250 years) gets its two ends.
func timeTicks(start, end time.Time, n int) ([]time.Time, string) {
	start, end = start.UTC(), end.UTC()
	for _, st := range tickSteps {
		var ticks []time.Time
		if st.months == 0 {
			if end.Sub(start)/st.d > time.Duration(n) {
				continue
			}
			for t := start.Truncate(st.d); !t.After(end); t = t.Add(st.d) {
				if !t.Before(start) {
					ticks = append(ticks, t)
				}
			}
		} else {
			months := (end.Year()-start.Year())*12 + int(end.Month()-start.Month())
			if months/st.months > n {
				continue
			}
			m0 := (int(start.Month()) - 1) / st.months * st.months
			if st.months >= 12 {
				m0 = 0
			}
			y0 := start.Year()
			if st.months > 12 {
				y0 -= y0 % (st.months / 12)
			}
			for t := time.Date(y0, time.Month(m0+1), 1, 0, 0, 0, 0, time.UTC); !t.After(end); t = t.AddDate(0, st.months, 0) {
				if !t.Before(start) {
					ticks = append(ticks, t)
				}
			}
		}
		if len(ticks) >= 2 && len(ticks) <= n {
			return ticks, st.layout
		}
		if len(ticks) == 1 && n >= 1 && end.Sub(start) >= 2*st.d && st.months == 0 {
			return ticks, st.layout
		}
	}
	return []time.Time{start, end}, endsLayout(start, end)
}

// endsLayout writes the two ends of a span too short or too long for a
// round step: to the second within a minute, to the minute within a day,
// else the date.
func endsLayout(start, end time.Time) string {
	switch d := end.Sub(start); {
	case d < 2*time.Minute:
		return "15:04:05"
	case d < 24*time.Hour:
		return "15:04"
	case d < 250*365*24*time.Hour:
		return "Jan 2"
	}
	return "2006-01-02"
}

// axisCaption names the time axis: the day of clock-time ticks, else the
// range's years.
func axisCaption(start, end time.Time, layout string) string {
	start, end = start.UTC(), end.UTC()
	switch {
	case !strings.Contains(layout, "Jan") && !strings.Contains(layout, "2006") && start.Format("2006-01-02") == end.Format("2006-01-02"):
		return "time (UTC) on " + start.Format("2 January 2006")
	case !strings.Contains(layout, "Jan") && !strings.Contains(layout, "2006"):
		return "time (UTC), " + start.Format("2 Jan") + " to " + end.Format("2 Jan 2006")
	case layout == "Jan 2" || layout == "Jan 2 15:04":
		if start.Year() == end.Year() {
			return "date (UTC) in " + start.Format("2006")
		}
		return "date (UTC), " + start.Format("2006") + " to " + end.Format("2006")
	}
	return "date (UTC)"
}

// appendPt writes a point to b as "%.1f,%.1f" does.
func appendPt(b *strings.Builder, x, y float64) {
	var buf [48]byte
	p := strconv.AppendFloat(buf[:0], x, 'f', 1, 64)
	p = append(p, ',')
	b.Write(strconv.AppendFloat(p, y, 'f', 1, 64))
}

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
