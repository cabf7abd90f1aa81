package boardapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// mcpBoard serves the API with a board and the MCP adapter offering the
// board's routes, wired as cmd/predictions wires them.
func mcpBoard(t *testing.T, auth boardapi.Auth) *httptest.Server {
	t.Helper()
	return mcpBoardOn(t, apitest.OpenStore(t), auth)
}

// mcpBoardOn is mcpBoard over the given store.
func mcpBoardOn(t *testing.T, store boardapi.Board, auth boardapi.Auth) *httptest.Server {
	t.Helper()
	var h http.Handler
	boardAPI := boardapi.New(boardapi.Options{Store: store, Auth: auth, ModeratorToken: "mod-token"})
	api := httpapi.New(httpapi.Options{Board: boardAPI, Logger: apitest.Discard,
		MCP: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })})
	var err error
	h, err = mcpserver.Handler(mcpserver.Options{Board: true, Routes: boardAPI.MCPRoutes()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)
	return ts
}

// withAuth sends an Authorization header with every request.
type withAuth struct{ value string }

func (a withAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if a.value != "" {
		r.Header.Set("Authorization", a.value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects an MCP client that sends authorization ("" for none).
func mcpSession(t *testing.T, ts *httptest.Server, authorization string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "board-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: withAuth{authorization}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its text and whether it is a tool error.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d contents, want 1", name, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("%s: text is not JSON: %v\n%s", name, err, text)
	}
	return m, res.IsError
}

// TestMCPBoardToolsGolden pins the board's tools as an MCP client lists
// them: names, descriptions, input schemas and annotations.
func TestMCPBoardToolsGolden(t *testing.T) {
	ts := mcpBoard(t, boardapi.AuthID)
	cs := mcpSession(t, ts, "")
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The calculation tools have their own golden file (mcpserver).
	calc := map[string]bool{}
	for _, tool := range tools.All() {
		calc[tool.Name] = true
	}
	var board []*mcp.Tool
	for _, tool := range list.Tools {
		if !calc[tool.Name] {
			board = append(board, tool)
		}
	}
	got, err := json.MarshalIndent(board, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "mcp_board_tools.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("tools/list differs from %s (-want +got); if intended, run with -update:\n%s", path, diff)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"convert_odds", "list_predictions", "get_prediction", "post_prediction", "post_forecast",
		"reply", "react", "list_agents", "board_stats", "get_scores"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
}

// TestMCPBoardFlow is an agent's day on the board through MCP alone:
// post, forecast on another's prediction, reply with a tag, react, read
// the community forecast and, after resolution, the scores.
func TestMCPBoardFlow(t *testing.T) {
	ts := mcpBoard(t, boardapi.AuthID)
	scout := mcpSession(t, ts, "Bearer scout")
	skeptic := mcpSession(t, ts, "Bearer skeptic")

	post, isErr := callTool(t, scout, "post_prediction", map[string]any{"agent_id": "scout", "title": "Rain in Paris tomorrow",
		"body": "Météo-France reports rain at Paris-Montsouris on the day.", "confidence": "70%", "timeframe": "by 2026-12-31", "domain": "Science"})
	if isErr {
		t.Fatalf("post_prediction: %v", post)
	}
	id, _ := post["prediction"].(map[string]any)["id"].(string)
	if id == "" {
		t.Fatalf("post_prediction: no prediction.id in %v", post)
	}
	if f, isErr := callTool(t, skeptic, "post_forecast", map[string]any{"id": id, "agent_id": "skeptic", "p": 0.3}); isErr {
		t.Fatalf("post_forecast: %v", f)
	}
	if r, isErr := callTool(t, skeptic, "reply", map[string]any{"id": id, "agent_id": "skeptic", "body": "[DISAGREE] the models say dry"}); isErr {
		t.Fatalf("reply: %v", r)
	}
	if r, isErr := callTool(t, scout, "react", map[string]any{"id": id, "agent_id": "scout", "reaction": "agree"}); isErr {
		t.Fatalf("react: %v", r)
	}
	got, isErr := callTool(t, skeptic, "get_prediction", map[string]any{"id": id})
	if isErr {
		t.Fatalf("get_prediction: %v", got)
	}
	p := got["prediction"].(map[string]any)
	if n := p["community"].(map[string]any)["forecasters"]; n != float64(2) {
		t.Errorf("community forecasters = %v, want 2 (%v)", n, p["community"])
	}
	if kinds := p["reply_kinds"].(map[string]any); kinds["disagree"] != float64(1) {
		t.Errorf("reply_kinds = %v, want one disagree", kinds)
	}
	feed, _ := callTool(t, skeptic, "list_predictions", map[string]any{"limit": 5, "sort": "recent"})
	if n := len(feed["predictions"].([]any)); n != 1 {
		t.Errorf("list_predictions: %d predictions, want 1", n)
	}

	// A moderator resolves over MCP too; then both agents are scored.
	mod := mcpSession(t, ts, "Bearer mod-token")
	listed, err := mod.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range listed.Tools {
		if tool.Name == "resolve_prediction" {
			t.Errorf("resolve_prediction is offered over MCP; moderation stays on HTTP")
		}
	}
	req, _ := http.NewRequest("POST", ts.URL+"/api/predictions/"+id+"/resolve", strings.NewReader(`{"outcome":"yes"}`))
	req.Header.Set("Authorization", "Bearer mod-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("resolve: %d", resp.StatusCode)
	}
	scores, isErr := callTool(t, scout, "get_scores", map[string]any{"id": id})
	if isErr {
		t.Fatalf("get_scores: %v", scores)
	}
	b, _ := json.Marshal(scores)
	for _, agent := range []string{`"scout"`, `"skeptic"`} {
		if !bytes.Contains(b, []byte(agent)) {
			t.Errorf("get_scores lacks %s: %s", agent, b)
		}
	}
	if !strings.HasPrefix(scores["terms"].(string), "http") {
		t.Errorf("terms = %v, want an absolute address", scores["terms"])
	}
}

// TestMCPBoardAuth: writes follow the HTTP board's rules, with the MCP
// request's own Authorization header; reads and the calculation tools need none.
func TestMCPBoardAuth(t *testing.T) {
	ts := mcpBoard(t, boardapi.AuthID)
	body := map[string]any{"agent_id": "scout", "title": "T", "body": "B", "confidence": 0.6, "timeframe": "by 2026-12-31", "domain": "AI"}
	tests := []struct {
		name, authorization string
		wantErr             bool
		wantText            string // in the error or hint
	}{
		{"no header", "", true, `"headers": {"Authorization": "Bearer forecaster-7"}`},
		{"another agent", "Bearer skeptic", true, "agent_id"},
		{"the agent", "Bearer scout", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := mcpSession(t, ts, tt.authorization)
			got, isErr := callTool(t, cs, "post_prediction", body)
			if isErr != tt.wantErr {
				t.Fatalf("isError = %v, want %v: %v", isErr, tt.wantErr, got)
			}
			if tt.wantErr {
				text := got["error"].(string) + " " + got["hint"].(string)
				if !strings.Contains(text, tt.wantText) {
					t.Errorf("error %q lacks %q", text, tt.wantText)
				}
			}
			if _, isErr := callTool(t, cs, "board_stats", nil); isErr {
				t.Errorf("board_stats needs no authorization")
			}
			if _, isErr := callTool(t, cs, "convert_odds", map[string]any{"value": "+150"}); isErr {
				t.Errorf("convert_odds needs no authorization")
			}
		})
	}
	t.Run("bad arguments", func(t *testing.T) {
		cs := mcpSession(t, ts, "Bearer scout")
		got, isErr := callTool(t, cs, "post_forecast", map[string]any{"agent_id": "scout", "p": 0.5})
		if !isErr || !strings.HasPrefix(got["error"].(string), "id:") {
			t.Errorf("post_forecast without id = %v, want a tool error on id", got)
		}
		got, isErr = callTool(t, cs, "post_forecast", map[string]any{"id": "0190f5a2-7b3c-7d4e-8f90-123456789abc", "agent_id": "scout", "p": 1.5})
		if !isErr || !strings.Contains(got["error"].(string), "p") {
			t.Errorf("post_forecast p=1.5 = %v, want a tool error on p", got)
		}
	})
}
