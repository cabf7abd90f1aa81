package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/mcpserver"
)

// newMCP is the MCP adapter as cmd/predictions mounts it at /mcp.
func newMCP(t testing.TB) http.Handler {
	t.Helper()
	h, err := mcpserver.Handler(mcpserver.Options{Logger: apitest.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// mcpBad is one bad request to POST /mcp. The MCP endpoint answers in
// JSON-RPC, not with Problems: a request it cannot take is a 4xx from the
// transport (with a reason: a JSON-RPC error for a refused Origin or Host
// and an unknown notification, plain text for the SDK's own refusals), a
// malformed JSON-RPC message or an unknown method or resource is a
// JSON-RPC error, and bad tool arguments are a tool error (isError) whose
// text is the Problem the HTTP adapter would send.
type mcpBad struct {
	name   string
	method string // "" means POST
	header http.Header
	body   string
	length string
	status int
	// want: for a 4xx, a text the answer contains; for 200, the Problem's
	// field ("field" of "field: problem") when tool is set, else a text the
	// JSON-RPC error's message contains.
	want string
	tool bool
}

func rpcCall(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

func mcpRows() []mcpBad {
	rows := []mcpBad{
		// The transport.
		{name: "empty body", body: "", status: 400, want: ""},
		{name: "not JSON", body: "{", status: 400, want: ""},
		{name: "NaN id", body: `{"jsonrpc":"2.0","id":NaN,"method":"ping"}`, status: 400, want: ""},
		{name: "deep nesting", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + deepArray + `}`, status: 400, want: ""},
		{name: "text/plain", header: hdr("Content-Type", "text/plain"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 415, want: ""},
		{name: "form encoded", header: hdr("Content-Type", "application/x-www-form-urlencoded"), body: "a=1", status: 415, want: ""},
		{name: "body over 1 MB", body: rpcCall("check_forecast_md", `{"text":"`+strings.Repeat("x", mcpserver.MaxBodyBytes)+`"}`), status: 413, want: ""},
		{name: "huge Content-Length", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, length: "1000000000000", status: 413, want: ""},
		{name: "GET", method: "GET", status: 405, want: ""},
		{name: "DELETE", method: "DELETE", status: 405, want: ""},
		{name: "PUT", method: "PUT", body: `{}`, status: 405, want: ""},
		{name: "foreign Host on loopback", header: hdr("Content-Type", "application/json", "Host", "evil.example"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, want: "Host"},
		{name: "foreign Origin", header: hdr("Content-Type", "application/json", "Origin", "http://evil.example"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, want: "Origin"},
		{name: "opaque Origin", header: hdr("Content-Type", "application/json", "Origin", "null"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, want: "Origin"},

		// JSON-RPC.
		// A message with an id and no method reads as a response from the
		// client, which the transport accepts without an answer.
		{name: "no method", body: `{"jsonrpc":"2.0","id":1}`, status: 202, want: ""},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"no/such"}`, status: 200, want: "no/such"},
		{name: "unknown notification", body: `{"jsonrpc":"2.0","method":"notifications/no_such"}`, status: 400, want: "-32601"},
		{name: "unknown resource", body: `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"https://evil.example/x"}}`, status: 200, want: "Resource not found"},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, status: 400, want: ""},
		{name: "id object", body: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, status: 400, want: ""},
		{name: "params string", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`, status: 200, want: "params"},
		{name: "unknown tool", body: rpcCall("no_such_tool", `{}`), status: 200, want: "no_such_tool"},
		{name: "arguments string", body: rpcCall("convert_odds", `"+150"`), status: 200, want: "body", tool: true},
		{name: "arguments missing", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"convert_odds"}}`, status: 200, want: "value", tool: true},
	}
	// Each tool with a few bad arguments, as the HTTP table sends them.
	for _, tc := range []struct{ tool, args, field string }{
		{"convert_odds", `{"value":true}`, "value"},
		{"convert_odds", `{"value":1e400}`, "value"},
		{"convert_odds", `{"value":"` + strings.Repeat("9", 50000) + `"}`, "value"},
		{"convert_odds", `{"value":"\u0000"}`, "value"},
		{"convert_odds", `{"value":"+150","from":"roman"}`, "from"},
		{"implied_probabilities", `{"outcomes":[{"odds":"2.0"}]}`, "outcomes"},
		{"implied_probabilities", `{"outcomes":"x"}`, "outcomes"},
		{"combine_forecasts", `{"forecasts":[{"p":1e400}]}`, "forecasts[0].p"},
		{"combine_forecasts", `{"forecasts":[{"p":0.5}],"extremize":-0}`, "extremize"},
		{"combine_forecasts", `{"forecasts":[` + strings.TrimSuffix(strings.Repeat(`{"p":0.5},`, 101), ",") + `]}`, "forecasts"},
		{"bayes_update", `{"prior":"150%","evidence":[{"lr":2}]}`, "prior"},
		{"bayes_update", `{"prior":0.3,"evidence":[{"lr":-2}]}`, "evidence[0].lr"},
		{"score_forecasts", `{"forecasts":[{"p":0.5,"outcome":"maybe"}]}`, "forecasts[0].outcome"},
		{"score_forecasts", `{"forecasts":[{"p":0.5,"outcome":"yes"}],"bins":1e2}`, "bins"},
		{"check_forecast_md", `{"text":""}`, "text"},
		{"check_forecast_md", `{"text":5}`, "text"},
		{"build_settings", `{"preset":"lax"}`, "preset"},
		{"build_settings", `{"min_forecasters":1e400}`, "min_forecasters"},
	} {
		rows = append(rows, mcpBad{name: fmt.Sprintf("%s %.40s", tc.tool, tc.args), body: rpcCall(tc.tool, tc.args), status: 200, want: tc.field, tool: true})
	}
	return rows
}

// TestMalformedMCP sends the rows to /mcp of the full server: never a 5xx;
// a 4xx with a reason, a JSON-RPC error naming what is wrong, or a tool
// error whose Problem names the field.
func TestMalformedMCP(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{MCP: newMCP(t)})
	addr := strings.TrimPrefix(e.TS.URL, "http://")
	rows := mcpRows()
	statuses := map[int]int{}
	for _, m := range rows {
		t.Run(m.name, func(t *testing.T) {
			method := m.method
			if method == "" {
				method = http.MethodPost
			}
			h := m.header
			if h == nil {
				h = hdr("Content-Type", "application/json")
			}
			target := "/mcp"
			if host := h.Get("Host"); host != "" {
				h = h.Clone()
				h.Del("Host")
				target = "http://" + host + "/mcp" // absolute form: the Host is taken from it
			}
			var body []byte
			if method != http.MethodGet {
				body = []byte(m.body)
			}
			got := sendRaw(t, addr, method, target, h, body, m.length)
			statuses[got.status]++
			if req, err := http.NewRequest(method, e.TS.URL+"/mcp", strings.NewReader(string(body))); err == nil && m.length == "" && h.Get("Origin") == "" && target == "/mcp" {
				// The answer is one openapi.json declares for /mcp. JSON-RPC's
				// and MCP's own rules are the MCP specification's schema,
				// beyond the document's: a 400 it allows is expected.
				req.Header = h.Clone()
				e.Validate(t, req, &http.Response{StatusCode: got.status, Header: got.header}, got.body, apitest.Beyond)
			}
			if got.status != m.status {
				t.Fatalf("status %d, want %d: %s", got.status, m.status, apitest.Trim(got.body))
			}
			if got.status != 200 {
				if !strings.Contains(string(got.body), m.want) {
					t.Errorf("answer %q does not say %q", apitest.Trim(got.body), m.want)
				}
				if got.status >= 400 && got.status != 405 && strings.TrimSpace(string(got.body)) == "" {
					t.Errorf("a %d without a reason", got.status)
				}
				return
			}
			var r struct {
				Result *struct {
					Content []struct{ Text string } `json:"content"`
					IsError bool                    `json:"isError"`
				} `json:"result"`
				Error *struct{ Message string } `json:"error"`
			}
			if err := json.Unmarshal(got.body, &r); err != nil {
				t.Fatalf("answer is not JSON-RPC: %v\n%s", err, apitest.Trim(got.body))
			}
			if !m.tool {
				if r.Error == nil || !strings.Contains(r.Error.Message, m.want) {
					t.Fatalf("want a JSON-RPC error mentioning %q, got %s", m.want, apitest.Trim(got.body))
				}
				return
			}
			if r.Result == nil || !r.Result.IsError || len(r.Result.Content) != 1 {
				t.Fatalf("want a tool error, got %s", apitest.Trim(got.body))
			}
			var p httpapi.Problem
			if err := json.Unmarshal([]byte(r.Result.Content[0].Text), &p); err != nil {
				t.Fatalf("tool error is not a Problem: %v\n%s", err, r.Result.Content[0].Text)
			}
			if !strings.HasPrefix(p.Error, m.want+": ") || p.Hint == "" {
				t.Errorf("Problem %+v does not name %q with a hint", p, m.want)
			}
		})
	}
	t.Logf("malformed MCP requests: %d rows sent, statuses %v", len(rows), fmtStatuses(statuses))
	if m := e.Get(t, "/healthz", 200); m["status"] != "ok" {
		t.Errorf("/healthz after the table: %v", m)
	}
}
