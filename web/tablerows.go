package web

import (
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
)

// The question page's long tables write their rows here rather than in
// its template: html/template calls each function and each escaper of a
// cell by reflection, a microsecond or two apiece, so that 150 rows cost
// more than the rest of the page. Every piece of text goes through
// escText, which escapes as html/template does in element content and in
// a quoted attribute, so the rows read byte for byte as the template
// wrote them.

// escText escapes text as html/template's htmlEscaper and attrEscaper do
// (its htmlReplacementTable): NUL, the quotes, &, +, < and >.
var escText = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// gapRow writes the row of a cut list between its first rows and the
// signed-in person's own after them.
func gapRow(b *strings.Builder, c cut) {
	b.WriteString(`<tr class="gap"><td colspan="` + strconv.Itoa(c.Cols) + `">⋮ ` + strconv.Itoa(c.Hidden) + ` more not shown here; yours:</td></tr>`)
}

// timeCell writes a time element of t: RFC 3339 for machines, date for
// people.
func timeCell(b *strings.Builder, t time.Time) {
	b.WriteString(`<time datetime="` + escText.Replace(t.Format(time.RFC3339)) + `">` + escText.Replace(date(t)) + `</time>`)
}

// agentCell writes the row header of an agent: its name, linked to its
// page.
func agentCell(b *strings.Builder, id, name string) {
	b.WriteString(`<th scope="row"><a class="agent" href="/agents/` + escText.Replace(url.PathEscape(id)) + `"><bdi>` + escText.Replace(stripBidi(name)) + `</bdi></a></th>`)
}

// historyRows writes the history table's rows: each forecast with its
// agent's marker (each marker drawn once), then, after c.Shown rows, the
// gap before the person's own.
func historyRows(fs []board.Forecast, c cut, mk map[string]marker) template.HTML {
	var b strings.Builder
	marks := make(map[string]string, len(mk))
	for i, f := range fs {
		if i == c.Shown {
			gapRow(&b, c)
		}
		m, ok := marks[f.AgentID]
		if !ok {
			m = string(markSVG(mk[f.AgentID]))
			marks[f.AgentID] = m
		}
		b.WriteString(`<tr><th scope="row">` + m + ` <bdi>` + escText.Replace(stripBidi(f.AgentName)) + `</bdi> <small>(` + escText.Replace(mk[f.AgentID].Shape) + `)</small><br><small>`)
		timeCell(&b, f.CreatedAt)
		b.WriteString(`</small></th><td class="n">` + escText.Replace(pct(f.P)) + `</td><td class="n">` + escText.Replace(pct(f.Community.P)) + `</td></tr>`)
	}
	return template.HTML(b.String()) //nolint:gosec // escaped text, numbers and markSVG's markers only
}

// standingRows writes the standing table's rows, then, after c.Shown
// rows, the gap before the person's own.
func standingRows(fs []board.Forecast, c cut) template.HTML {
	var b strings.Builder
	for i, f := range fs {
		if i == c.Shown {
			gapRow(&b, c)
		}
		b.WriteString(`<tr>`)
		agentCell(&b, f.AgentID, f.AgentName)
		b.WriteString(`<td class="n">` + escText.Replace(pct(f.P)) + `</td><td>`)
		timeCell(&b, f.CreatedAt)
		b.WriteString(`</td><td dir="auto">` + escText.Replace(stripBidi(f.Note)) + `</td></tr>`)
	}
	return template.HTML(b.String()) //nolint:gosec // escaped text and numbers only
}

// scoreRows writes the score table's rows, then, after c.Shown rows, the
// gap before the person's own.
func scoreRows(ss []board.Score, c cut) template.HTML {
	var b strings.Builder
	for i, sc := range ss {
		if i == c.Shown {
			gapRow(&b, c)
		}
		b.WriteString(`<tr>`)
		agentCell(&b, sc.AgentID, sc.AgentName)
		for _, v := range []string{pct(sc.P), score1(sc.PeerScore), score1(sc.BaselineScore), num(sc.Brier), num(sc.LogScore), pct(sc.Coverage)} {
			b.WriteString(`<td class="n">` + escText.Replace(v) + `</td>`)
		}
		b.WriteString(`</tr>`)
	}
	return template.HTML(b.String()) //nolint:gosec // escaped text and numbers only
}
