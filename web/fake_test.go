package web_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/web"
)

// fakeBoard serves one prediction with a thread of replies of any kind,
// as a board with more reply kinds (debates, challenges) would.
type fakeBoard struct {
	p       board.Prediction
	replies []board.Reply
	agents  []board.Agent
	err     error // returned by every method when set
}

func (f *fakeBoard) Feed(ctx context.Context, q board.FeedQuery) (board.Feed, error) {
	return board.Feed{Predictions: []board.Prediction{f.p}, Total: 1, Limit: 20, Sort: board.SortRecent, Notes: []string{}}, f.err
}

func (f *fakeBoard) Prediction(ctx context.Context, id string) (board.Prediction, error) {
	if f.err != nil {
		return board.Prediction{}, f.err
	}
	if id != f.p.ID {
		return board.Prediction{}, board.ErrNotFound
	}
	return f.p, nil
}

func (f *fakeBoard) Thread(ctx context.Context, id string) ([]board.Reply, error) {
	return f.replies, f.err
}

func (f *fakeBoard) Reactions(ctx context.Context, id string) ([]board.Reaction, error) {
	return nil, f.err
}

func (f *fakeBoard) Agents(ctx context.Context, q board.AgentQuery) (board.AgentPage, error) {
	return board.AgentPage{Agents: f.agents, Total: len(f.agents), Limit: board.DefaultAgentLimit, Sort: board.AgentSortRecent, Notes: []string{}}, f.err
}

func (f *fakeBoard) Agent(ctx context.Context, id string) (board.Agent, error) {
	for _, a := range f.agents {
		if a.ID == id && f.err == nil {
			return a, nil
		}
	}
	return board.Agent{}, errors.Join(board.ErrNotFound, f.err)
}

func (f *fakeBoard) AgentNames(ctx context.Context, ids []string) (map[string]string, error) {
	return map[string]string{}, f.err
}

func (f *fakeBoard) Forecasts(ctx context.Context, id string, pg board.Page) (board.ForecastPage, error) {
	return board.ForecastPage{Forecasts: []board.Forecast{}, Notes: []string{}}, f.err
}

func (f *fakeBoard) Standing(ctx context.Context, id string) ([]board.Forecast, error) {
	return nil, f.err
}

func (f *fakeBoard) Scores(ctx context.Context, id string) (board.ScoreTable, error) {
	return board.ScoreTable{Scores: []board.Score{}, Notes: []string{}}, f.err
}

func (f *fakeBoard) AgentForecasts(ctx context.Context, id string, pg board.Page) (board.AgentForecastPage, error) {
	return board.AgentForecastPage{Forecasts: []board.AgentForecast{}, Notes: []string{}}, f.err
}

func TestReplyKinds(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	id := "0190f5a2-7b3c-7d4e-8f90-123456789abc"
	reply := func(rid, parent, kind, body string) board.Reply {
		return board.Reply{ID: rid, PredictionID: id, ParentID: parent, AgentID: "a1", AgentName: "a1",
			Body: body, Kind: board.ReplyKind(kind), CreatedAt: at, Flags: []string{}}
	}
	fb := &fakeBoard{
		p: board.Prediction{ID: id, AgentID: "a1", AgentName: "a1", Title: "T", Body: "B", Confidence: 0.5,
			Timeframe: "2026", Domain: "AI", CreatedAt: at, Status: board.StatusOpen, Flags: []string{}},
		replies: []board.Reply{
			reply("r1", "", "plain", "plain reply"),
			reply("r2", "r1", "debate", "[DEBATE] a debate"),
			reply("r3", "r2", "challenge", "[CHALLENGE] a challenge"),
			reply("r4", "", "Weird Kind<b>", "odd kind"),
		},
	}
	srv := httptest.NewServer(web.New(web.Options{Board: fb, Logger: discard}))
	t.Cleanup(srv.Close)
	status, h, body := get(t, srv, "/predictions/"+id)
	checkPage(t, "/predictions/"+id, h, body)
	if status != 200 {
		t.Fatalf("status %d\n%s", status, body)
	}
	for _, w := range []string{
		`<span class="kind kind-debate">debate</span>`,
		`<span class="kind kind-challenge">challenge</span>`,
		`<span class="kind kind-weird-kind-b-">Weird Kind&lt;b&gt;</span>`,
		// r3 answers r2, which answers r1: three nested lists.
		`<ul class="thread">`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("body lacks %q", w)
		}
	}
	if strings.Contains(body, `kind-plain`) {
		t.Errorf("plain replies get a label")
	}
	if i, j, k := strings.Index(body, "a debate"), strings.Index(body, "a challenge"), strings.Index(body, "odd kind"); !(i < j && j < k) {
		t.Errorf("thread order: debate %d, challenge %d, odd %d", i, j, k)
	}
	if n := strings.Count(body, `<ul class="thread">`); n != 3 {
		t.Errorf("%d nested thread lists, want 3", n)
	}
}

// TestBoardFailure checks that a failing board gives a 500 page without
// the error's detail.
func TestBoardFailure(t *testing.T) {
	fb := &fakeBoard{err: errors.New("database is on fire at 10.0.0.7")}
	srv := httptest.NewServer(web.New(web.Options{Board: fb, Logger: discard}))
	t.Cleanup(srv.Close)
	for _, path := range []string{"/", "/agents", "/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc"} {
		status, h, body := get(t, srv, path)
		checkPage(t, path, h, body)
		if status != 500 || strings.Contains(body, "fire") || !strings.Contains(body, "Something went wrong") {
			t.Errorf("GET %s: status %d, body:\n%s", path, status, body)
		}
	}
}

// TestBoardUnavailable: a board whose database is unavailable gives a
// 503 page with Retry-After, as the API does, without the error's detail:
// an error wrapping board.ErrUnavailable, and a driver's error that
// board.Classify recognises.
func TestBoardUnavailable(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("board: feed: %w", board.Classify(sql.ErrConnDone)),
		fmt.Errorf("board: feed at 10.0.0.7: %w", sql.ErrConnDone),
	} {
		srv := httptest.NewServer(web.New(web.Options{Board: &fakeBoard{err: err}, Logger: discard}))
		t.Cleanup(srv.Close)
		for _, path := range []string{"/", "/agents", "/predictions/0190f5a2-7b3c-7d4e-8f90-123456789abc"} {
			status, h, body := get(t, srv, path)
			checkPage(t, path, h, body)
			if status != 503 || h.Get("Retry-After") != "5" || strings.Contains(body, "10.0.0.7") || !strings.Contains(body, "Temporarily unavailable") {
				t.Errorf("GET %s with %v: status %d, Retry-After %q, body:\n%s", path, err, status, h.Get("Retry-After"), body)
			}
		}
	}
}

// TestBidi checks that text from agents cannot reorder the page: the
// bidirectional controls are removed wherever it is shown, and names are
// isolated so that a right-to-left name keeps "by NAME · 2 minutes ago"
// in order.
func TestBidi(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	id := "0190f5a2-7b3c-7d4e-8f90-123456789abc"
	const (
		rtlName = "وكيل التنبؤ"
		// Every control the pages remove, in stored text.
		controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
	)
	fb := &fakeBoard{
		p: board.Prediction{ID: id, AgentID: "rtl-1", AgentName: rtlName + "\u200f", Title: "Rain \u202etomorrow\u202c in Cairo",
			Body: "Body \u2067" + rtlName + "\u2069 text", Confidence: 0.5, Timeframe: "\u202dby 2027", Domain: "AI",
			CreatedAt: at, Status: board.StatusOpen, Flags: []string{}},
		replies: []board.Reply{{ID: "r1", PredictionID: id, AgentID: "rtl-1", AgentName: rtlName, Body: "reply \u202e" + controls,
			CreatedAt: at, Flags: []string{}}},
		agents: []board.Agent{{ID: "rtl-1", Name: "\u202e" + rtlName, LastSeen: at, Flags: []string{}}},
	}
	srv := httptest.NewServer(web.New(web.Options{Board: fb, Logger: discard, Now: func() time.Time { return at.Add(26 * time.Minute) }}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/", []string{`dir="auto">Rain tomorrow in Cairo</a>`, `<span class="timeframe" dir="auto">by 2027</span>`,
			`by <a class="agent" href="/agents/rtl-1"><bdi>` + rtlName + `</bdi></a> · <time`}},
		{"/predictions/" + id, []string{`<h1 dir="auto">Rain tomorrow in Cairo</h1>`, `<title>Rain tomorrow in Cairo · predictions</title>`,
			`<div class="text" id="body" dir="auto">Body ` + rtlName + ` text</div>`, `<div class="text" dir="auto">reply </div>`,
			`<bdi>` + rtlName + `</bdi></a> <small>(<bdi>rtl-1</bdi>)</small>`}},
		{"/agents", []string{`<bdi>` + rtlName + `</bdi></a> <small><bdi>rtl-1</bdi></small>`}},
		{"/agents/rtl-1", []string{`<h1 dir="auto">` + rtlName + `</h1>`}},
	} {
		status, h, body := get(t, srv, c.path)
		checkPage(t, c.path, h, body)
		if status != 200 {
			t.Fatalf("GET %s: status %d\n%s", c.path, status, body)
		}
		if i := strings.IndexAny(body, controls); i >= 0 {
			t.Errorf("GET %s: a bidirectional control is shown: %q", c.path, body[max(i-40, 0):min(i+40, len(body))])
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: body lacks %q", c.path, w)
			}
		}
	}

	// A tool's result repeats the input's names: shown without the
	// controls too (the form keeps what the person typed).
	path := "/tools/combine_forecasts?forecasts=" + url.QueryEscape("\u202escout, 0.6\n\u2067skeptic\u2069, 0.3")
	status, h, body := get(t, srv, path)
	checkPage(t, path, h, body)
	start := strings.Index(body, `id="result"`)
	if status != 200 || start < 0 {
		t.Fatalf("GET %s: status %d, no result\n%s", path, status, body)
	}
	result := body[start:]
	if end := strings.Index(result, `<form class="tool"`); end >= 0 { // the result comes before the form
		result = result[:end]
	}
	if i := strings.IndexAny(result, controls); i >= 0 {
		t.Errorf("GET %s: a bidirectional control is shown in the result: %q", path, result[max(i-40, 0):min(i+40, len(result))])
	}
	for _, w := range []string{">scout</text>", ">skeptic</text>", "<bdi>scout</bdi>"} {
		if !strings.Contains(result, w) {
			t.Errorf("GET %s: result lacks %q", path, w)
		}
	}
}
