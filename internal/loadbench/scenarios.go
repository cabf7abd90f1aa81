package loadbench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Groups of scenarios, in the order they run.
const (
	GroupTools  = "tools"
	GroupMCP    = "mcp"
	GroupWrites = "board writes"
	GroupFeed   = "feed"
)

// scenario is one load against `predictions serve`. To add one, add a
// line to the table of its group (toolScenarios, writeScenario,
// feedScenarios): a name, a request and a check of its answer.
type scenario struct {
	name   string
	group  string
	method string
	path   string // with the query string
	header http.Header
	body   []byte
	// lua, when set, is Lua code added to wrk's script after method,
	// header and body are set from the fields above: a request() function
	// for requests that vary (the writes: a new agent and body each). The
	// fields above are then the first request, which preflight checks.
	lua string
	// check tells a right answer from a wrong one, on the request made
	// before the measurement.
	check func(status int, body []byte) error
	// feed scenarios: the seed size, sort, domain and offset, or the
	// depth of the cursor the page starts at (the path's cursor is then
	// fetched from the server before the load, by resolveCursor).
	n              int
	sort, domain   string
	offset         int
	cursorAt       int
	deps           []string // scenarios whose figures this one's ratio needs
	needsLargeSeed bool
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

// toolScenarios are the calculation tools over REST, each against a bare
// handler, and the same tool over MCP.
func toolScenarios() []*scenario {
	ok := wantStatus(http.StatusOK, "")
	return []*scenario{
		{name: "GET convert_odds", group: GroupTools, method: http.MethodGet,
			path: "/api/v1/convert_odds?" + convertQuery, check: wantStatus(http.StatusOK, `"tool":"convert_odds"`)},
		{name: "POST convert_odds", group: GroupTools, method: http.MethodPost, path: "/api/v1/convert_odds",
			header: jsonHeader, body: convertBody, check: ok},
		{name: "POST combine_forecasts (10 forecasts)", group: GroupTools, method: http.MethodPost, path: "/api/v1/combine_forecasts",
			header: jsonHeader, body: combineBody(), check: wantStatus(http.StatusOK, `"tool":"combine_forecasts"`)},
		{name: "POST check_forecast_md (60,000 chars)", group: GroupTools, method: http.MethodPost, path: "/api/v1/check_forecast_md",
			header: jsonHeader, body: checkBody(), check: wantStatus(http.StatusOK, `"ok":true`)},
		{name: "POST score_forecasts (200 items)", group: GroupTools, method: http.MethodPost, path: "/api/v1/score_forecasts",
			header: jsonHeader, body: scoreBody(), check: wantStatus(http.StatusOK, `"tool":"score_forecasts"`)},
		{name: "MCP tools/call convert_odds", group: GroupMCP, method: http.MethodPost, path: "/mcp",
			header: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}},
			body:   mcpBody, check: checkMCP, deps: []string{"POST convert_odds"}},
	}
}

// writeAgents is the number of agents the write scenario posts as.
const writeAgents = 1000

func writeScenario() *scenario {
	agent, body := writeBody(0, writeAgents)
	return &scenario{
		name: "POST /api/predictions", group: GroupWrites, method: http.MethodPost, path: "/api/predictions",
		header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + agent}},
		body:   body, lua: writeLua(writeAgents),
		check: wantStatus(http.StatusCreated, `"status":"prediction_created"`),
		deps:  []string{rawInsertName},
	}
}

// forecastTargets is how many predictions the forecast scenario spreads
// its forecasts over; they are posted before it runs.
const forecastTargets = 100

// forecastName names the forecast scenario.
const forecastName = "POST /api/predictions/{id}/forecasts"

// forecastScenario is the forecast writes: agent i forecasts on one of the
// predictions ids, which replaces its standing forecast there and pools
// the prediction's community forecast again, in the writing transaction.
func forecastScenario(ids []string) *scenario {
	agent, body := forecastBody(0, writeAgents)
	s := &scenario{
		name: forecastName, group: GroupWrites, method: http.MethodPost,
		header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + agent}},
		body:   body,
		// 201 for an agent's first forecast on it, 200 when it replaces one.
		check: func(status int, body []byte) error {
			if status == http.StatusOK {
				status = http.StatusCreated
			}
			return wantStatus(http.StatusCreated, `"community"`)(status, body)
		},
		deps: []string{rawInsertName},
	}
	if len(ids) > 0 {
		s.path = "/api/predictions/" + ids[0] + "/forecasts"
		s.lua = forecastLua(writeAgents, ids)
	}
	return s
}

// forecastBody is the body of forecast number i, by agent i mod agents.
func forecastBody(i uint64, agents int) (agent string, body []byte) {
	agent = fmt.Sprintf("agent-%d", i%uint64(agents))
	return agent, fmt.Appendf(nil, `{"agent_id":"%s","p":%s,"note":"load test"}`, agent, strconv.FormatFloat(float64(i%99+1)/100, 'g', -1, 64))
}

// forecastLua is wrk's request() for the forecasts: request i of thread t
// is number i*1000+t of forecastBody, on prediction ids[that mod len].
func forecastLua(agents int, ids []string) string {
	qs := make([]string, len(ids))
	for i, id := range ids {
		qs[i] = luaString([]byte(id))
	}
	return fmt.Sprintf(`
local agents, ids = %d, {%s}
%s
  local body = string.format('{"agent_id":"%%s","p":%%s,"note":"load test"}', agent, string.format("%%g", (seq %% 99 + 1) / 100))
  return wrk.format("POST", "/api/predictions/" .. ids[seq %% #ids + 1] .. "/forecasts", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. agent}, body)
end
`, agents, strings.Join(qs, ", "), luaSeq)
}

// feedScenarios are GET /api/predictions for each sort, with and without
// the domain filter, at offset 0 and at offset deep, over n stored
// predictions. Those over large predictions name their counterpart over
// small, and come with the pages after the cursor at depth deep (which
// only the large board has with the domain filter), measured against
// the first page of the large board.
func feedScenarios(n, small, deep int, large bool) []*scenario {
	pages := []struct{ offset, cursorAt int }{{0, 0}, {deep, 0}}
	if large {
		pages = append(pages, struct{ offset, cursorAt int }{0, deep})
	}
	var out []*scenario
	for _, page := range pages {
		for _, sort := range []string{"recent", "confidence", "popular"} {
			for _, domain := range []string{"", "Science"} {
				s := &scenario{group: GroupFeed, method: http.MethodGet, n: n, sort: sort, domain: domain,
					offset: page.offset, cursorAt: page.cursorAt, needsLargeSeed: large}
				s.name = feedName(n, sort, domain, page.offset, page.cursorAt)
				s.path = feedPath(sort, domain, fmt.Sprintf("offset=%d", page.offset))
				s.check = checkFeed(page.offset + page.cursorAt)
				if large && page.cursorAt == 0 {
					s.deps = []string{feedName(small, sort, domain, page.offset, 0)}
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// feedPath is the feed's path with sort, domain ("" for none) and more,
// a query string's parameters.
func feedPath(sort, domain, more string) string {
	p := "/api/predictions?sort=" + sort
	if domain != "" {
		p += "&domain=" + domain
	}
	return p + "&" + more
}

func feedName(n int, sort, domain string, offset, cursorAt int) string {
	f := sort
	if domain != "" {
		f += "+domain"
	}
	if cursorAt > 0 {
		return fmt.Sprintf("feed %s, n=%s, cursor at %s", f, count(n), count(cursorAt))
	}
	return fmt.Sprintf("feed %s, n=%s, offset %s", f, count(n), count(offset))
}

// firstPage is the feed scenario of s's sort and domain at offset 0 on
// the same board: the baseline of a cursor scenario, run in its rounds.
func (s *scenario) firstPage() *scenario {
	f := *s
	f.offset, f.cursorAt = 0, 0
	f.name = feedName(s.n, s.sort, s.domain, 0, 0) + " (beside the cursor)"
	f.path = feedPath(s.sort, s.domain, "offset=0")
	f.check = checkFeed(0)
	return &f
}

// resolveCursor sets the path of a cursor scenario: it asks the server
// for the page that ends at depth cursorAt (the 20 predictions before
// it, by offset) and starts the scenario's page at that page's
// next_cursor. Other scenarios are left alone.
func resolveCursor(ctx context.Context, s *scenario, p *proc) error {
	if s.cursorAt == 0 {
		return nil
	}
	before := *s
	before.path = feedPath(s.sort, s.domain, fmt.Sprintf("offset=%d&limit=20", s.cursorAt-20))
	before.check = checkFeed(s.cursorAt - 20)
	body, err := preflight(ctx, &before, p)
	if err != nil {
		return err
	}
	var page struct {
		NextCursor string `json:"next_cursor"`
	}
	if err := json.Unmarshal(body, &page); err != nil || page.NextCursor == "" {
		return fmt.Errorf("%s: the page before depth %d has no next_cursor (%v): %.300s", s.name, s.cursorAt, err, body)
	}
	s.path = feedPath(s.sort, s.domain, "cursor="+url.QueryEscape(page.NextCursor))
	return nil
}

// count writes 10000 as 10k and 1000000 as 1M.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func wantStatus(status int, contains string) func(int, []byte) error {
	return func(got int, body []byte) error {
		if got != status {
			return fmt.Errorf("status %d, want %d: %.300s", got, status, body)
		}
		if contains != "" && !strings.Contains(string(body), contains) {
			return fmt.Errorf("the answer lacks %s: %.300s", contains, body)
		}
		return nil
	}
}

// checkMCP accepts a JSON-RPC answer whose tool result is not an error.
func checkMCP(status int, body []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("status %d: %.300s", status, body)
	}
	var msg struct {
		Result *struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Result == nil || msg.Result.IsError ||
		!strings.Contains(string(msg.Result.StructuredContent), `"tool":"convert_odds"`) {
		return fmt.Errorf("not a successful tools/call result (%v): %.300s", err, body)
	}
	return nil
}

// checkFeed accepts a page whose length fits total and its depth (the
// offset, or where the cursor starts).
func checkFeed(depth int) func(int, []byte) error {
	return func(status int, body []byte) error {
		if status != http.StatusOK {
			return fmt.Errorf("status %d: %.300s", status, body)
		}
		var f struct {
			Total       int               `json:"total"`
			Predictions []json.RawMessage `json:"predictions"`
		}
		if err := json.Unmarshal(body, &f); err != nil {
			return fmt.Errorf("not a feed page: %v", err)
		}
		if want := min(20, max(0, f.Total-depth)); len(f.Predictions) != want || f.Total == 0 {
			return fmt.Errorf("%d predictions of total %d at depth %d, want %d", len(f.Predictions), f.Total, depth, want)
		}
		return nil
	}
}

// GroupReal is the reads and writes of a board of real size (a
// generated board of PredictionBook's shape, realboard.go), each against
// the same scenario on a small board in the same rounds.
const GroupReal = "real size"

// realScenarios are the reads of a generated board of n questions: the
// feed's first page and the page after its cursor at depth, the
// leaderboard by skill and a domain's, the most active forecaster's page,
// and the question of realBigForecasters forecasters (JSON, its
// forecasts and its HTML page); then the forecast writes on its open
// questions beside a reader of that question. With small set, each
// names its counterpart on the board of small questions as its baseline.
func realScenarios(n, small, depth int) []*scenario {
	big := realBigID(n)
	ok := func(contains string) func(int, []byte) error { return wantStatus(http.StatusOK, contains) }
	out := []*scenario{
		{name: "feed recent, first page", path: feedPath("recent", "", "offset=0"), sort: "recent", check: checkFeed(0)},
		{name: fmt.Sprintf("feed recent, cursor at %s", count(depth)), path: feedPath("recent", "", "offset=0"), sort: "recent", cursorAt: depth, check: checkFeed(depth)},
		{name: "leaderboard by skill", path: "/api/agents?sort=skill", check: ok(`"ranked":true`)},
		{name: "leaderboard by skill, Science", path: "/api/agents?sort=skill&domain=Science", check: ok(`"skill"`)},
		{name: "agent page (most active)", path: "/api/agents/" + realAgent(0), check: ok(`"` + realAgent(0) + `"`)},
		{name: "question of 200 forecasters", path: "/api/predictions/" + big, check: ok(`"forecasters":200`)},
		{name: "question of 200 forecasters, its forecasts", path: "/api/predictions/" + big + "/forecasts", check: ok(`"forecasts"`)},
		{name: "question of 200 forecasters, HTML page", path: "/predictions/" + big, check: ok("<html")},
	}
	ids := make([]string, realOpen)
	for j := range ids {
		ids[j] = realOpenID(j)
	}
	w := forecastScenario(ids)
	w.name, w.deps = "forecast writes, beside a reader", nil
	out = append(out, w)
	for _, s := range out {
		s.group, s.n = GroupReal, n
		if s.method == "" {
			s.method = http.MethodGet
		}
		s.name = realName(s.name, n)
		if small > 0 {
			s.deps = []string{realName(strings.TrimSuffix(s.name, realSuffix(n)), small)}
		}
	}
	return out
}

// realReader is the read beside the forecast writes on a board of n
// questions: the question of realBigForecasters forecasters.
func realReader(n int) *scenario {
	return &scenario{name: realName("reader beside the writes", n), group: GroupReal, method: http.MethodGet,
		path: "/api/predictions/" + realBigID(n), check: wantStatus(http.StatusOK, "")}
}

func realName(name string, n int) string { return name + realSuffix(n) }

func realSuffix(n int) string { return ", " + count(n) + " questions" }
