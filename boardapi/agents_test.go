package boardapi_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/uptrace/bun"
)

// agentBoard is a store with n agents, each with one prediction.
func agentBoard(t *testing.T, n int) *board.Store {
	t.Helper()
	s := apitest.OpenStore(t)
	for i := range n {
		if _, err := s.CreatePrediction(context.Background(), board.NewPrediction{AgentID: fmt.Sprintf("agent-%03d", i),
			Title: "Seed", Body: "Seed", Confidence: new(0.6), Timeframe: "2027", Domain: "AI"}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestListAgentsPages: GET /api/agents answers a page (50 by default, at
// most 200, above it clamped with a note) with total, has_more and
// next_cursor; following next_cursor reads every agent once; a bad limit
// or cursor is a 400 naming it.
func TestListAgentsPages(t *testing.T) {
	const n = 120
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: agentBoard(t, n)})})
	first := e.Get(t, "/api/agents", 200)
	if len(first["agents"].([]any)) != board.DefaultAgentLimit || first["total"] != float64(n) || first["count"] != float64(board.DefaultAgentLimit) ||
		first["has_more"] != true || first["next_cursor"] == nil || first["limit"] != float64(board.DefaultAgentLimit) {
		t.Errorf("GET /api/agents = %d agents, total %v, count %v, has_more %v, limit %v", len(first["agents"].([]any)), first["total"], first["count"], first["has_more"], first["limit"])
	}
	if s, _ := first["summary"].(string); !strings.Contains(s, fmt.Sprintf("50 of %d agents", n)) || !strings.Contains(s, "next_cursor") {
		t.Errorf("summary = %q", s)
	}
	all := e.Get(t, "/api/agents?limit=500", 200)
	if len(all["agents"].([]any)) != n || all["limit"] != float64(board.MaxAgentLimit) || !strings.Contains(fmt.Sprint(all["notes"]), "clamped to 200") {
		t.Errorf("limit=500: %d agents, limit %v, notes %v", len(all["agents"].([]any)), all["limit"], all["notes"])
	}
	for _, sort := range []string{"recent", "peer_score", "brier", "trust"} {
		seen := map[string]bool{}
		path := "/api/agents?limit=35&sort=" + sort
		for pages := 0; ; pages++ {
			page := e.Get(t, path, 200)
			for _, a := range page["agents"].([]any) {
				id := a.(map[string]any)["agent_id"].(string)
				if seen[id] {
					t.Errorf("sort=%s: %s twice", sort, id)
				}
				seen[id] = true
			}
			if page["has_more"] != true {
				break
			}
			path = "/api/agents?limit=35&sort=" + sort + "&cursor=" + url.QueryEscape(page["next_cursor"].(string))
		}
		if len(seen) != n {
			t.Errorf("sort=%s: a walk by cursor saw %d agents, want %d", sort, len(seen), n)
		}
	}
	cur := url.QueryEscape(first["next_cursor"].(string))
	for _, tc := range []struct {
		query, field string
		rv           apitest.ReqValid // Beyond: a cursor of this board and its sort
	}{
		{"limit=0", "limit", apitest.MustFail},
		{"limit=ten", "limit", apitest.MustFail},
		{"cursor=nope", "cursor", apitest.Beyond},
		{"cursor=", "cursor", apitest.MustFail},
		{"sort=trust&cursor=" + cur, "cursor", apitest.Beyond},
		{"sort=loudest", "sort", apitest.MustFail},
	} {
		resp, body := e.Do(t, "GET", "/api/agents?"+tc.query, nil, nil, tc.rv)
		if p := apitest.ProblemOf(t, body); resp.StatusCode != 400 || !strings.HasPrefix(p.Error, tc.field+":") || p.Hint == "" {
			t.Errorf("GET /api/agents?%s: %d %s; want 400 naming %s", tc.query, resp.StatusCode, body, tc.field)
		}
	}
}

// TestMCPListAgentsPages: the MCP tool list_agents takes limit and cursor
// from the same route definition and answers the same pages.
func TestMCPListAgentsPages(t *testing.T) {
	cs := mcpSession(t, mcpBoardOn(t, agentBoard(t, 60), boardapi.AuthID), "")
	page, isErr := callTool(t, cs, "list_agents", nil)
	if isErr || len(page["agents"].([]any)) != board.DefaultAgentLimit || page["total"] != 60.0 || page["has_more"] != true {
		t.Fatalf("list_agents = error %v, %d agents, total %v", isErr, len(page["agents"].([]any)), page["total"])
	}
	seen := map[string]bool{}
	args := map[string]any{"limit": 7, "sort": "trust"}
	for pages := 0; ; pages++ {
		page, isErr := callTool(t, cs, "list_agents", args)
		if isErr || pages > 60 {
			t.Fatalf("list_agents(%v) = %v", args, page)
		}
		for _, a := range page["agents"].([]any) {
			seen[a.(map[string]any)["agent_id"].(string)] = true
		}
		if page["has_more"] != true {
			break
		}
		args["cursor"] = page["next_cursor"]
	}
	if len(seen) != 60 {
		t.Errorf("a walk by cursor over MCP saw %d agents, want 60", len(seen))
	}
	if p, isErr := callTool(t, cs, "list_agents", map[string]any{"cursor": "nope"}); !isErr || !strings.HasPrefix(fmt.Sprint(p["error"]), "cursor:") {
		t.Errorf("list_agents(cursor=nope) = %v, want a tool error naming cursor", p)
	}
}

// TestListAgentsKind: GET /api/agents?kind= lists one kind of forecaster,
// every agent carries its kind, an unknown kind is a 400 naming kind, and
// an agent posting under a person's id is a 409 naming agent_id.
func TestListAgentsKind(t *testing.T) {
	s := agentBoard(t, 3)
	ctx := context.Background()
	if err := s.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := s.AddPerson(ctx, tx, "pat", "Pat")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e := apitest.NewEnv(t, httpapi.Options{Board: boardapi.New(boardapi.Options{Store: s})})
	for _, tc := range []struct {
		query, kind string
		want        []string
	}{
		{"", "", []string{"pat:person", "agent-002:agent", "agent-001:agent", "agent-000:agent"}},
		{"?kind=person", "person", []string{"pat:person"}},
		{"?kind=AGENT&sort=trust", "agent", []string{"agent-002:agent", "agent-001:agent", "agent-000:agent"}},
	} {
		page := e.Get(t, "/api/agents"+tc.query, 200)
		var got []string
		for _, a := range page["agents"].([]any) {
			m := a.(map[string]any)
			got = append(got, fmt.Sprint(m["agent_id"], ":", m["kind"]))
		}
		var kind any // left out of the page when not asked for
		if tc.kind != "" {
			kind = tc.kind
		}
		if diff := cmp.Diff(tc.want, got); diff != "" || page["total"] != float64(len(tc.want)) || page["kind"] != kind {
			t.Errorf("GET /api/agents%s: total %v, kind %v; agents (-want +got):\n%s", tc.query, page["total"], page["kind"], diff)
		}
	}
	resp, body := e.Do(t, "GET", "/api/agents?kind=robot", nil, nil, apitest.MustFail)
	if p := apitest.ProblemOf(t, body); resp.StatusCode != 400 || !strings.HasPrefix(p.Error, "kind:") || !strings.Contains(p.Hint, "person") {
		t.Errorf("GET /api/agents?kind=robot: %d %s; want 400 naming kind", resp.StatusCode, body)
	}
	resp, body = e.Do(t, "POST", "/api/predictions", apitest.JSONBody(t, apitest.Pred("agent_id", "pat")), apitest.BearerH("pat"), apitest.MustPass)
	if p := apitest.ProblemOf(t, body); resp.StatusCode != 409 || !strings.HasPrefix(p.Error, "agent_id:") || !strings.Contains(p.Error, "person's id") {
		t.Errorf("an agent's post under a person's id: %d %s; want 409 naming agent_id", resp.StatusCode, body)
	}
}
