package boardapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/internal/apitest"
)

// TestBoardFeedFilters: q, agent_id and status filter the feed, every
// page carries next_cursor until the last, and cursor walks the feed.
func TestBoardFeedFilters(t *testing.T) {
	e := apitest.NewBoardEnv(t, apitest.ModToken)
	var rain []string
	for i := range 7 {
		title := fmt.Sprintf("Sunny day %d", i)
		if i%2 == 0 {
			title = fmt.Sprintf("Rain in Paris %d", i)
		}
		id := apitest.CreatePred(t, e, "agent_id", fmt.Sprintf("agent-%d", i%2), "title", title, "body", "Forecast: "+title+".")
		if i%2 == 0 {
			rain = append([]string{id}, rain...) // newest first
		}
		if i == 2 {
			e.Post(t, "/api/predictions/"+id+"/resolve", apitest.ModToken, map[string]any{"outcome": "void"}, apitest.MustPass, 200)
		}
	}
	// Walk the search results by cursor, two a page.
	var got []string
	path := "/api/predictions?q=rain&limit=2"
	for page := 0; ; page++ {
		m := e.Get(t, path, 200)
		for _, p := range m["predictions"].([]any) {
			got = append(got, p.(map[string]any)["id"].(string))
		}
		next, _ := m["next_cursor"].(string)
		if (next != "") != (m["has_more"] == true) || m["total"] != 4.0 || m["q"] != "rain" {
			t.Fatalf("page %d: next_cursor %q, has_more %v, total %v, q %v", page, next, m["has_more"], m["total"], m["q"])
		}
		if next == "" {
			break
		}
		path = "/api/predictions?q=rain&limit=2&cursor=" + url.QueryEscape(next)
	}
	if diff := cmp.Diff(rain, got); diff != "" {
		t.Errorf("q=rain pages (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		query string
		total float64
	}{
		{"agent_id=agent-0", 4}, {"agent_id=agent-1&status=open", 3}, {"status=void", 1}, {"status=OPEN&q=paris", 3},
		{"q=" + url.QueryEscape("Rain in Paris 4"), 1},
	} {
		m := e.Get(t, "/api/predictions?"+c.query, 200)
		if m["total"] != c.total || len(m["predictions"].([]any)) != int(c.total) {
			t.Errorf("%s: total %v, %d predictions; want %v", c.query, m["total"], len(m["predictions"].([]any)), c.total)
		}
	}

	first := e.Get(t, "/api/predictions?limit=1", 200)["next_cursor"].(string)
	// rv: what openapi.json says of the request: MustFail where a schema
	// states the rule, Beyond where none can (a query with no word, a
	// cursor of this board, two parameters that exclude each other).
	for _, c := range []struct {
		query, field string
		rv           apitest.ReqValid
	}{
		{"q=", "q", apitest.MustFail},
		{"q=" + strings.Repeat("a", board.MaxQuery+1), "q", apitest.MustFail},
		{"q=%21%21", "q", apitest.Beyond},
		{"status=closing", "status", apitest.MustFail},
		{"status=", "status", apitest.MustFail},
		{"agent_id=no%20spaces", "agent_id", apitest.MustFail},
		{"agent_id=", "agent_id", apitest.MustFail},
		{"cursor=", "cursor", apitest.MustFail},
		{"cursor=abc", "cursor", apitest.Beyond},
		{"cursor=" + strings.Repeat("A", board.MaxCursor+1), "cursor", apitest.MustFail},
		{"cursor=" + first + "&offset=0", "cursor", apitest.Beyond},
		{"cursor=" + first + "&sort=popular", "cursor", apitest.Beyond},
		{"cursor=" + first + "&domain=AI", "cursor", apitest.Beyond},
	} {
		resp, body := e.Do(t, "GET", "/api/predictions?"+c.query, nil, nil, c.rv)
		p := apitest.ProblemOf(t, body)
		if resp.StatusCode != 400 || !strings.HasPrefix(p.Error, c.field+":") || p.Hint == "" {
			t.Errorf("%.60s: %d %s, want 400 naming %s with a hint", c.query, resp.StatusCode, body, c.field)
		}
	}
	// The longest q is accepted.
	e.Get(t, "/api/predictions?q="+strings.Repeat("a", board.MaxQuery), 200)
}

// TestMCPFeedCursor: list_predictions takes the feed's filters and cursor.
func TestMCPFeedCursor(t *testing.T) {
	ts := mcpBoard(t, boardapi.AuthID)
	cs := mcpSession(t, ts, "Bearer agent-a")
	for i := range 3 {
		if m, isErr := callTool(t, cs, "post_prediction", apitest.Pred("title", fmt.Sprintf("Rain %d", i))); isErr {
			t.Fatalf("post_prediction: %v", m)
		}
	}
	var ids []string
	args := map[string]any{"limit": 2, "q": "rain", "agent_id": "agent-a", "status": "open"}
	for {
		m, isErr := callTool(t, cs, "list_predictions", args)
		if isErr {
			t.Fatalf("list_predictions: %v", m)
		}
		for _, p := range m["predictions"].([]any) {
			ids = append(ids, p.(map[string]any)["id"].(string))
		}
		next, _ := m["next_cursor"].(string)
		if next == "" {
			break
		}
		args["cursor"] = next
	}
	if len(ids) != 3 || ids[0] == ids[1] || ids[1] == ids[2] {
		t.Errorf("list_predictions by cursor: %v, want 3 different ids", ids)
	}
	if m, isErr := callTool(t, cs, "list_predictions", map[string]any{"cursor": "nope"}); !isErr || !strings.HasPrefix(fmt.Sprint(m["error"]), "cursor:") {
		t.Errorf("list_predictions with a bad cursor: %v, error %v; want a tool error naming cursor", m, isErr)
	}
}
