package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// listSeen is what a question page shows of one of its long lists: its
// rows' first cells (the forecaster's name), whether a gap row stands
// before the signed-in person's own, and the note under it with its
// links.
type listSeen struct {
	Rows  int
	First string // the first row's forecaster
	Last  string // the last row's forecaster
	Gap   string // the gap row's text, "" for none
	Note  string // the cut note's text, "" for none
	Links []string
}

// questionSeen is what a question page shows of its three long lists and
// of the chart's legend.
type questionSeen struct {
	Standing, Scores, History listSeen
	LegendNames               int
	LegendMore                string
}

var (
	tagRE     = regexp.MustCompile(`<[^>]*>`)
	rowRE     = regexp.MustCompile(`(?s)<tr( class="gap")?>(.*?)</tr>`)
	hrefRE    = regexp.MustCompile(`href="([^"]*)"`)
	legendRE  = regexp.MustCompile(`<text class="legend" `)
	moreRE    = regexp.MustCompile(`<text class="legend more"[^>]*>([^<]*)</text>`)
	bdiNameRE = regexp.MustCompile(`<bdi>([^<]*)</bdi>`)
)

func text(s string) string { return strings.Join(strings.Fields(tagRE.ReplaceAllString(s, " ")), " ") }

// seenList reads the list of the table with id table, and the cut note of
// id note after it.
func seenList(t *testing.T, body, table, note string) listSeen {
	t.Helper()
	start := strings.Index(body, `id="`+table+`">`)
	if start < 0 {
		t.Fatalf("no table %s", table)
	}
	tb := body[start:]
	tb = tb[strings.Index(tb, "<tbody>"):strings.Index(tb, "</tbody>")]
	var l listSeen
	for _, m := range rowRE.FindAllStringSubmatch(tb, -1) {
		if m[1] != "" {
			l.Gap = text(m[2])
			continue
		}
		name := ""
		if n := bdiNameRE.FindStringSubmatch(m[2]); n != nil {
			name = n[1]
		}
		if l.Rows == 0 {
			l.First = name
		}
		l.Last = name
		l.Rows++
	}
	if i := strings.Index(body, `<p class="cut-note" id="`+note+`">`); i >= 0 {
		p := body[i : i+strings.Index(body[i:], "</p>")]
		l.Note = text(p)
		for _, h := range hrefRE.FindAllStringSubmatch(p, -1) {
			l.Links = append(l.Links, strings.ReplaceAll(h[1], "&amp;", "&"))
		}
	}
	return l
}

func seenQuestion(t *testing.T, body string) questionSeen {
	t.Helper()
	q := questionSeen{
		Standing:    seenList(t, body, "standing", "standing-cut"),
		Scores:      seenList(t, body, "scores", "scores-cut"),
		History:     seenList(t, body, "history-table", "history-cut"),
		LegendNames: len(legendRE.FindAllString(body, -1)),
	}
	if m := moreRE.FindStringSubmatch(body); m != nil {
		q.LegendMore = m[1]
	}
	return q
}

// TestQuestionPageCut reads the page of a resolved question of 200 agents
// and a person: each long list shows its first 50 rows, then the signed-in
// person's own, a note that counts them and links every row, and the
// legend names 12 forecasters (and you); ?all=1 shows every row.
func TestQuestionPageCut(t *testing.T) {
	ps := newPeopleSite(t)
	ps.register(t, "zoe", "Zoe")
	id := seedCrowdQuestion(t, ps.fixture, crowdForecasters, 2, "zoe")
	all := "/predictions/" + id + "?all=1#"
	api := "/api/predictions/" + id
	const total = crowdForecasters + 2 // the crowd, its host and zoe
	// The standing table is ordered by agent id, the scores by peer score,
	// the history oldest first: its first row is the author's confidence.
	cutOut := questionSeen{
		Standing: listSeen{Rows: 50, First: "Crowd forecaster 001", Last: "Crowd forecaster 050",
			Note:  "Showing 50 of 202 forecasters — all of them: on one page · as JSON",
			Links: []string{all + "standing-h", api + "/forecasts"}},
		Scores: listSeen{Rows: 50, Note: "Showing 50 of 202 forecasters — all of them: on one page · as JSON",
			Links: []string{all + "scores-h", api + "/scores"}},
		History: listSeen{Rows: 50, First: "Crowd Host", Last: "Crowd forecaster 049",
			Note:  "Showing 50 of 402 forecasts — all of them: on one page · as JSON",
			Links: []string{all + "history", api + "/forecasts?limit=1000"}},
		LegendNames: 12, LegendMore: "+190 more forecasters (the tables list all)",
	}
	cutIn := cutOut
	cutIn.Standing.Rows, cutIn.Standing.Last, cutIn.Standing.Gap = 51, "Zoe", "⋮ 152 more not shown here; yours:"
	cutIn.Standing.Note = "Showing 50 of 202 forecasters and yours — all of them: on one page · as JSON"
	cutIn.Scores.Rows, cutIn.Scores.Last, cutIn.Scores.Gap = 51, "Zoe", "⋮ 152 more not shown here; yours:"
	cutIn.Scores.Note = "Showing 50 of 202 forecasters and yours — all of them: on one page · as JSON"
	cutIn.History.Rows, cutIn.History.Last, cutIn.History.Gap = 51, "Zoe", "⋮ 352 more not shown here; yours:"
	cutIn.History.Note = "Showing 50 of 402 forecasts and yours — all of them: on one page · as JSON"
	cutIn.LegendNames, cutIn.LegendMore = 13, "+189 more forecasters (the tables list all)"
	every := questionSeen{
		Standing:    listSeen{Rows: total, First: "Crowd Host", Last: "Zoe"},
		Scores:      listSeen{Rows: total},
		History:     listSeen{Rows: 2*crowdForecasters + 2, First: "Crowd Host", Last: "Zoe"},
		LegendNames: total,
	}
	for _, tc := range []struct {
		name, query string
		signedIn    bool
		want        questionSeen
	}{
		{"signed out", "", false, cutOut},
		{"signed out, all=0", "?all=0", false, cutOut},
		{"signed in: your rows after the cut", "", true, cutIn},
		{"signed out, all=1", "?all=1", false, every},
		{"signed in, all=1", "?all=1", true, every},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var body string
			if tc.signedIn {
				res, b := ps.do(t, "GET", "/predictions/"+id+tc.query, nil, nil)
				code, body = res.StatusCode, b
			} else {
				code, _, body = get(t, ps.srv, "/predictions/"+id+tc.query)
			}
			if code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			got := seenQuestion(t, body)
			// The score table's order depends on the scores: its first
			// and last rows are checked below, against the board's.
			got.Scores.First = ""
			if got.Scores.Last != "Zoe" {
				got.Scores.Last = ""
			}
			if tc.query == "?all=1" {
				got.Standing.First, got.Standing.Last = "", ""
				got.History.Last = ""
				want := tc.want
				want.Standing.First, want.Standing.Last, want.History.Last = "", "", ""
				tc.want = want
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
		})
	}

	// The standing table is the board's: every standing forecast, in its
	// order, though the page reads them off the history.
	st, err := ps.store.Standing(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ps.store.Scores(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	_, _, body := get(t, ps.srv, "/predictions/"+id+"?all=1")
	var wantStanding, wantScores []string
	for _, f := range st {
		wantStanding = append(wantStanding, f.AgentName+" "+f.CreatedAt.Format(time.RFC3339))
	}
	for _, s := range sc.Scores {
		wantScores = append(wantScores, s.AgentName)
	}
	if len(wantStanding) != total || len(wantScores) != total {
		t.Fatalf("the board has %d standing forecasts and %d scores, want %d", len(wantStanding), len(wantScores), total)
	}
	if diff := cmp.Diff(wantStanding, standingCells(t, body)); diff != "" {
		t.Errorf("standing table (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantScores, tableCells(t, body, "scores", 1)); diff != "" {
		t.Errorf("score table (-want +got):\n%s", diff)
	}
	// The cut score table is the board's first 50.
	_, _, body = get(t, ps.srv, "/predictions/"+id)
	if diff := cmp.Diff(wantScores[:50], tableCells(t, body, "scores", 1)); diff != "" {
		t.Errorf("cut score table (-want +got):\n%s", diff)
	}
}

// standingCells reads the standing table's rows: each forecaster's name
// and the time of their forecast.
func standingCells(t *testing.T, body string) []string {
	t.Helper()
	tb := body[strings.Index(body, `id="standing">`):]
	tb = tb[:strings.Index(tb, "</tbody>")]
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<tr><th scope="row">.*?<bdi>([^<]*)</bdi>.*?datetime="([^"]*)"`).FindAllStringSubmatch(tb, -1) {
		out = append(out, m[1]+" "+m[2])
	}
	return out
}

// tableCells reads the rows of the table with id table: the text of
// each row's first n cells, joined by a space (gap rows left out).
func tableCells(t *testing.T, body, table string, n int) []string {
	t.Helper()
	start := strings.Index(body, `id="`+table+`">`)
	tb := body[start:]
	tb = tb[strings.Index(tb, "<tbody>"):strings.Index(tb, "</tbody>")]
	var out []string
	for _, m := range rowRE.FindAllStringSubmatch(tb, -1) {
		if m[1] != "" {
			continue
		}
		cells := regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`).FindAllStringSubmatch(m[2], n)
		var parts []string
		for _, c := range cells {
			parts = append(parts, text(c[1]))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// TestQuestionPageSmall: a question of fewer forecasters than the cut
// shows every row, as ?all=1 does, byte for byte, with no cut note.
func TestQuestionPageSmall(t *testing.T) {
	f := seed(t)
	srv := newServer(t, f)
	for _, tc := range []struct{ name, id string }{{"thread", f.thread}, {"resolved", f.resolve}, {"void", f.void}} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, cut := get(t, srv, "/predictions/"+tc.id)
			_, _, all := get(t, srv, "/predictions/"+tc.id+"?all=1")
			if diff := cmp.Diff(all, cut); diff != "" {
				t.Errorf("page (-all=1 +default):\n%s", diff)
			}
			if strings.Contains(cut, "cut-note") || strings.Contains(cut, `class="gap"`) || strings.Contains(cut, "legend more") {
				t.Errorf("a small question's page notes a cut")
			}
		})
	}
}

// TestQuestionPageAllBad: a bad all is a 400 that names the parameter.
func TestQuestionPageAllBad(t *testing.T) {
	f := seed(t)
	srv := newServer(t, f)
	for _, v := range []string{"yes", "2", "true"} {
		code, _, body := get(t, srv, "/predictions/"+f.thread+"?all="+v)
		if code != http.StatusBadRequest || !strings.Contains(body, "all is &#34;"+v+"&#34;; it must be 1 (every row) or 0") {
			t.Errorf("all=%s: %d, want 400 naming all; body has %q", v, code, text(body)[:min(len(text(body)), 300)])
		}
	}
}
