package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/mcpserver"
	"github.com/predictions-md/predictions/skillsettings"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// specTools are the tools the specification (section 4) lists for /mcp, in order.
var specTools = []string{"convert_odds", "implied_probabilities", "combine_forecasts",
	"bayes_update", "score_forecasts", "check_forecast_md", "build_settings"}

// serve mounts the handler at /mcp on a test server, as httpapi does.
func serve(t testing.TB, opt mcpserver.Options) *httptest.Server {
	t.Helper()
	h, err := mcpserver.Handler(opt)
	if err != nil {
		t.Fatalf("Handler: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// connect opens a session with the go-sdk's own client.
func connect(t testing.TB, ts *httptest.Server) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: ts.URL + "/mcp", HTTPClient: ts.Client(), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// wantEnvelope runs the tool as the HTTP adapter does.
func wantEnvelope(t *testing.T, tool *tools.Tool, args []byte, base string) []byte {
	t.Helper()
	res, err := tool.Call(tools.WithBaseURL(context.Background(), base), args)
	if err != nil {
		t.Fatalf("tools.Call(%s, %s): %v", tool.Name, args, err)
	}
	body, err := res.Envelope(base + "/terms")
	if err != nil {
		t.Fatalf("Envelope: %v", err)
	}
	return body
}

// wantProblem is the Problem body the HTTP adapter sends for the input error
// of tool.Call(args), decoded.
func wantProblem(t *testing.T, tool *tools.Tool, args []byte, base string) map[string]any {
	t.Helper()
	_, err := tool.Call(context.Background(), args)
	var ie *tools.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("tools.Call(%s, %s) error = %v, want an *InputError", tool.Name, args, err)
	}
	p := map[string]any{"error": ie.Field + ": " + ie.Problem, "docs": base + "/llms-full.txt#" + tool.Name,
		"disclaimer": tools.Disclaimer, "terms": base + "/terms"}
	if ie.Hint != "" {
		p["hint"] = ie.Hint
	}
	return p
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("got %d content items, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// badArgs builds input of the wrong type for one of the tool's fields: true
// for its first field that does not take a boolean.
func badArgs(t *testing.T, tool *tools.Tool) []byte {
	t.Helper()
	names := tool.InputSchema.PropertyOrder
	if len(names) == 0 {
		for k := range tool.InputSchema.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
	}
	for _, n := range names {
		if p := tool.InputSchema.Properties[n]; p.Type != "boolean" && !slices.Contains(p.Types, "boolean") {
			return []byte(`{"` + n + `":true}`)
		}
	}
	t.Fatalf("%s: no field to send a wrong type to", tool.Name)
	return nil
}

func TestInitialize(t *testing.T) {
	cs := connect(t, serve(t, mcpserver.Options{}))
	init := cs.InitializeResult()
	if init.ServerInfo.Name != tools.Name || init.ServerInfo.Version != tools.Version {
		t.Errorf("server info = %s %s, want %s %s", init.ServerInfo.Name, init.ServerInfo.Version, tools.Name, tools.Version)
	}
	c := init.Capabilities
	if c.Tools == nil || c.Prompts == nil || c.Resources == nil {
		t.Errorf("capabilities = %+v, want tools, prompts and resources", c)
	}
	if !strings.Contains(init.Instructions, tools.Disclaimer) || !strings.Contains(init.Instructions, tools.DraftedSettingsRule) {
		t.Errorf("instructions lack the disclaimer or the drafted-settings rule: %q", init.Instructions)
	}
}

func TestToolList(t *testing.T) {
	cs := connect(t, serve(t, mcpserver.Options{}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	// The SDK lists tools sorted by name.
	if diff := cmp.Diff(specTools, names, cmpSorted); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}

	// The same tools with the same descriptions and input fields as the
	// definitions (the openapi.json side is compared in httpapi).
	if diff := cmp.Diff(tools.Names(), names, cmpSorted); diff != "" {
		t.Fatalf("tool names against tools.Names (-want +got):\n%s", diff)
	}
	for _, def := range tools.All() {
		got := res.Tools[slices.Index(names, def.Name)]
		t.Run(def.Name, func(t *testing.T) {
			if got.Title != def.Title || got.Description != def.Description {
				t.Errorf("title, description = %q, %q, want %q, %q", got.Title, got.Description, def.Title, def.Description)
			}
			if len(def.Description) < 80 {
				t.Errorf("description %q is too short to tell an agent how to fill the input", def.Description)
			}
			in := got.InputSchema.(map[string]any)
			var gotFields []string
			for k := range in["properties"].(map[string]any) {
				gotFields = append(gotFields, k)
			}
			var wantFields []string
			for k := range def.InputSchema.Properties {
				wantFields = append(wantFields, k)
			}
			slices.Sort(gotFields)
			slices.Sort(wantFields)
			if diff := cmp.Diff(wantFields, gotFields); diff != "" {
				t.Errorf("input fields (-want +got):\n%s", diff)
			}
			for _, sc := range []struct {
				name      string
				want, got any
			}{{"input", def.InputSchema, got.InputSchema}, {"output", def.OutputSchema, got.OutputSchema}} {
				b, err := json.Marshal(sc.want)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(decode(t, b), sc.got); diff != "" {
					t.Errorf("%s schema (-want +got):\n%s", sc.name, diff)
				}
			}
			if a := got.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Errorf("annotations = %+v, want read-only and closed-world", a)
			}
		})
	}

}

// TestToolListGolden keeps the tool list as it goes over the wire, in the
// server's order of fields; run go test -update after an intended change.
func TestToolListGolden(t *testing.T) {
	ts := serve(t, mcpserver.Options{BaseURL: "https://predictions.example.org"})
	_, body := post(t, ts, nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var r struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Result.Tools == nil {
		t.Fatalf("tools/list: %s (%v)", body, err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, r.Result.Tools, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	golden(t, "tools.golden.json", b.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); run go test -update if the change is intended:\n%s", path, diff)
	}
}

func TestCallTools(t *testing.T) {
	ts := serve(t, mcpserver.Options{})
	cs := connect(t, ts)
	base := ts.URL
	ctx := context.Background()
	for _, tool := range tools.All() {
		t.Run(tool.Name+"/example", func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: tool.Example})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if res.IsError {
				t.Fatalf("IsError with %s: %s", tool.Example, text(t, res))
			}
			want := wantEnvelope(t, tool, tool.Example, base)
			if got := text(t, res); got != string(want) {
				t.Errorf("text content differs from the HTTP Result\n got %s\nwant %s", got, want)
			}
			if diff := cmp.Diff(decode(t, want), res.StructuredContent); diff != "" {
				t.Errorf("structured content (-want +got):\n%s", diff)
			}
			// The SDK's validator (jsonschema-go) accepts the output schema
			// and the structured content conforms to it.
			rs, err := tool.OutputSchema.Resolve(nil)
			if err != nil {
				t.Fatalf("resolve output schema: %v", err)
			}
			if err := rs.Validate(res.StructuredContent); err != nil {
				t.Errorf("structured content does not match the output schema: %v", err)
			}
		})
		t.Run(tool.Name+"/bad", func(t *testing.T) {
			args := badArgs(t, tool)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if !res.IsError || res.StructuredContent != nil {
				t.Fatalf("IsError, StructuredContent = %v, %v; want true, nil", res.IsError, res.StructuredContent)
			}
			if diff := cmp.Diff(wantProblem(t, tool, args, base), decode(t, []byte(text(t, res)))); diff != "" {
				t.Errorf("problem (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCallErrors covers input errors beyond a wrong type.
func TestCallErrors(t *testing.T) {
	ts := serve(t, mcpserver.Options{DocsURL: func(base, tool string) string { return base + "/docs/" + tool }})
	cs := connect(t, ts)
	tests := []struct {
		tool      string
		args      string
		wantError string // prefix of the error field
	}{
		{"combine_forecasts", `{"forecasts":[]}`, "forecasts: "},
		{"combine_forecasts", `{}`, "forecasts: is required"},
		{"combine_forecasts", `{"forecasts":[{"p":0.5}],"method":"vote"}`, "method: "},
		{"score_forecasts", `{"forecasts":[{"p":0.5,"outcome":"maybe"}]}`, "forecasts[0].outcome: "},
	}
	for _, tt := range tests {
		tool := tools.Lookup(tt.tool)
		if tool == nil {
			t.Fatalf("no tool %s", tt.tool)
		}
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if !res.IsError {
				t.Fatalf("IsError = false for %s", tt.args)
			}
			want := wantProblem(t, tool, []byte(tt.args), ts.URL)
			want["docs"] = ts.URL + "/docs/" + tt.tool
			got := decode(t, []byte(text(t, res))).(map[string]any)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problem (-want +got):\n%s", diff)
			}
			if e, _ := got["error"].(string); !strings.HasPrefix(e, tt.wantError) {
				t.Errorf("error = %q, want it to start with %q", e, tt.wantError)
			}
			if h, _ := got["hint"].(string); h == "" {
				t.Error("no hint")
			}
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "place_bet"})
		if err == nil || !strings.Contains(err.Error(), "place_bet") {
			t.Errorf("CallTool(place_bet) error = %v, want a protocol error naming the tool", err)
		}
	})
}

func TestPrompt(t *testing.T) {
	day := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	ts := serve(t, mcpserver.Options{Now: func() time.Time { return day }})
	cs := connect(t, ts)
	ctx := context.Background()

	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("ListPrompts: %v", err)
	}
	if len(list.Prompts) != 1 || list.Prompts[0].Name != "predictions" {
		t.Fatalf("prompts = %+v, want one named predictions", list.Prompts)
	}
	var required []string
	for _, a := range list.Prompts[0].Arguments {
		if a.Required {
			required = append(required, a.Name)
		}
	}
	if diff := cmp.Diff([]string{"question"}, required); diff != "" {
		t.Errorf("required arguments (-want +got):\n%s", diff)
	}

	args := map[string]string{
		"question":   "Will the  city council approve\nthe new bus line by 2026-06-30?",
		"resolves":   "yes if the council minutes record a vote approving the line",
		"resolve_by": "2026-06-30",
		"who":        "agent:scout",
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "predictions", Arguments: args})
	if err != nil {
		t.Fatalf("GetPrompt: %v", err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("messages = %+v, want one user message", res.Messages)
	}
	msg := res.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{
		"# Will the city council approve the new bus line by 2026-06-30?\n",
		"- id: will-the-city-council-approve-the-new\n",
		"- resolves: yes if the council minutes record a vote approving the line\n",
		"- resolve_by: 2026-06-30\n",
		"updated: 2026-03-14\n",
		"- 2026-03-14 · agent:scout · <probability>% · <reason>\n",
		"base rate", "bayes_update", "check_forecast_md", "information only",
		tools.Disclaimer, tools.DraftedSettingsRule, ts.URL + "/predictions.md",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("prompt lacks %q:\n%s", want, msg)
		}
	}

	// The forecast file the prompt shows, once its placeholders are filled,
	// passes the checker with no finding.
	if chk := tools.Lookup("check_forecast_md"); chk != nil {
		file := regexp.MustCompile("(?s)```markdown\n(.*?)```").FindStringSubmatch(msg)
		if file == nil {
			t.Fatalf("no markdown block in the prompt:\n%s", msg)
		}
		filled := strings.NewReplacer("<base rate>", "20", "<probability>", "25", "<reason>", "base rate of similar votes").Replace(file[1])
		in, _ := json.Marshal(map[string]string{"text": filled, "today": "2026-03-14"})
		r, err := chk.Call(ctx, in)
		if err != nil {
			t.Fatalf("check_forecast_md: %v", err)
		}
		body, _ := r.Envelope("")
		var out struct {
			Questions, Forecasts int
			Findings, Warnings   []any
		}
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		if out.Questions != 1 || out.Forecasts != 1 || len(out.Findings)+len(out.Warnings) != 0 {
			t.Errorf("check_forecast_md on the prompt's example:\n%s\ngave %s", filled, body)
		}
	}

	for _, tt := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{}, "question: is required"},
		{map[string]string{"question": "Will it rain?", "resolve_by": "30/06/2026"}, "resolve_by: "},
		{map[string]string{"question": strings.Repeat("x", 301)}, "question: is 301 characters long"},
	} {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "predictions", Arguments: tt.args})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("GetPrompt(%v) error = %v, want one containing %q", tt.args, err, tt.want)
		}
	}
}

func TestResources(t *testing.T) {
	ts := serve(t, mcpserver.Options{})
	cs := connect(t, ts)
	ctx := context.Background()
	base := ts.URL

	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("ListResources: %v", err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
		if u, err := url.Parse(r.URI); err != nil || !u.IsAbs() {
			t.Errorf("resource URI %q is not absolute", r.URI)
		}
	}
	if diff := cmp.Diff([]string{base + "/api/v1/settings", base + "/predictions.md"}, uris,
		cmpSorted); diff != "" {
		t.Errorf("resource URIs (-want +got):\n%s", diff)
	}

	skill, _ := tools.SkillFile(nil, skillsettings.Options{BaseURL: base})
	settings, err := tools.SettingsCatalog().Envelope(base + "/terms")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		uri, mime, want string
	}{
		{mcpserver.SkillURI(base), "text/markdown", string(skill)},
		{mcpserver.SettingsURI(base), "application/json", string(settings)},
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tt.uri})
		if err != nil {
			t.Fatalf("ReadResource(%s): %v", tt.uri, err)
		}
		if len(res.Contents) != 1 {
			t.Fatalf("ReadResource(%s): %d contents, want 1", tt.uri, len(res.Contents))
		}
		c := res.Contents[0]
		if c.URI != tt.uri || c.MIMEType != tt.mime {
			t.Errorf("ReadResource(%s) = uri %q, type %q; want %q, %q", tt.uri, c.URI, c.MIMEType, tt.uri, tt.mime)
		}
		if diff := cmp.Diff(tt.want, c.Text); diff != "" {
			t.Errorf("ReadResource(%s) text (-want +got):\n%s", tt.uri, diff)
		}
	}

	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: base + "/terms"}); err == nil {
		t.Error("ReadResource of an unknown URI succeeded")
	}
}

var cmpSorted = cmp.Transformer("sort", func(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
})

// rpc is a JSON-RPC response as a plain client sees it.
type rpc struct {
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func post(t *testing.T, ts *httptest.Server, header http.Header, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" { // net/http sends req.Host, not the header
		req.Host = h
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func call(tool string, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// TestPlainHTTP sends what curl and other clients without an MCP library
// send: no initialize, and various Accept and Content-Type headers.
func TestPlainHTTP(t *testing.T) {
	ts := serve(t, mcpserver.Options{})
	tool := tools.All()[0]
	want := wantEnvelope(t, tool, tool.Example, ts.URL)
	tests := []struct {
		name   string
		header http.Header
		status int
	}{
		{"curl", http.Header{"Content-Type": {"application/json"}, "Accept": {"*/*"}}, 200},
		{"no headers", http.Header{}, 200},
		{"json only", http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}, 200},
		{"sdk", http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Accept": {"application/json, text/event-stream"}}, 200},
		{"form", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, http.StatusUnsupportedMediaType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, ts, tt.header, call(tool.Name, string(tool.Example)))
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tt.status, body)
			}
			if tt.status != 200 {
				return
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("Mcp-Session-Id = %q in stateless mode", sid)
			}
			var r rpc
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatalf("decode %s: %v", body, err)
			}
			if r.Error != nil || r.Result.IsError {
				t.Fatalf("error in %s", body)
			}
			if diff := cmp.Diff(decode(t, want), decode(t, r.Result.StructuredContent)); diff != "" {
				t.Errorf("structuredContent (-want +got):\n%s", diff)
			}
			if len(r.Result.Content) != 1 || r.Result.Content[0].Text != string(want) {
				t.Errorf("content = %+v, want the Result as text", r.Result.Content)
			}
		})
	}

	t.Run("arguments not an object", func(t *testing.T) {
		_, body := post(t, ts, nil, call(tool.Name, `[1,2]`))
		var r rpc
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if !r.Result.IsError || len(r.Result.Content) != 1 {
			t.Fatalf("want a tool error, got %s", body)
		}
		if diff := cmp.Diff(wantProblem(t, tool, []byte(`[1,2]`), ts.URL), decode(t, []byte(r.Result.Content[0].Text))); diff != "" {
			t.Errorf("problem (-want +got):\n%s", diff)
		}
	})

	// X-Forwarded-Proto counts only with TrustProxy, as in the HTTP API.
	for _, tt := range []struct {
		trust  bool
		scheme string
	}{{false, "http"}, {true, "https"}} {
		t.Run(fmt.Sprintf("forwarded https, TrustProxy %v", tt.trust), func(t *testing.T) {
			ts := serve(t, mcpserver.Options{TrustProxy: tt.trust})
			_, body := post(t, ts, http.Header{"X-Forwarded-Proto": {"https"}}, call(tool.Name, string(tool.Example)))
			host := strings.TrimPrefix(ts.URL, "http://")
			if want := `"terms":"` + tt.scheme + `://` + host + `/terms"`; !bytes.Contains(body, []byte(want)) {
				t.Errorf("no %s in %s", want, body)
			}
		})
	}

	t.Run("GET", func(t *testing.T) {
		resp, err := ts.Client().Get(ts.URL + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("GET: status %d, Allow %q; want 405, POST", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})

	t.Run("too large", func(t *testing.T) {
		big := call(tool.Name, `{"pad":"`+strings.Repeat("x", mcpserver.MaxBodyBytes)+`"}`)
		resp, _ := post(t, ts, nil, big)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("status = %d, want 413", resp.StatusCode)
		}
	})

	t.Run("largest forecast file fits", func(t *testing.T) {
		// 60,000 characters, the most a forecast file may have, each written
		// as an escaped surrogate pair as ASCII-only JSON encoders do.
		args := `{"text":"` + strings.Repeat(`\ud83d\ude00`, 60000) + `"}`
		resp, body := post(t, ts, nil, call("check_forecast_md", args))
		var r rpc
		if err := json.Unmarshal(body, &r); resp.StatusCode != http.StatusOK || err != nil || r.Error != nil {
			t.Fatalf("status = %d, want 200 with a result; %.300s", resp.StatusCode, body)
		}
		if r.Result.IsError && strings.Contains(r.Result.Content[0].Text, "characters long") {
			t.Errorf("60,000 characters refused: %.300s", r.Result.Content[0].Text)
		}
	})
}

func TestDNSRebinding(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	tests := []struct {
		name   string
		opt    mcpserver.Options
		host   string
		status int
	}{
		{"loopback host", mcpserver.Options{}, "", 200},
		{"localhost", mcpserver.Options{}, "localhost:8080", 200},
		{"other host", mcpserver.Options{}, "evil.example", 403},
		{"base URL host", mcpserver.Options{BaseURL: "https://predictions.example.org/"}, "predictions.example.org", 200},
		{"base URL host with port", mcpserver.Options{BaseURL: "https://predictions.example.org"}, "predictions.example.org:443", 200},
		{"base URL, other host", mcpserver.Options{BaseURL: "https://predictions.example.org"}, "evil.example", 403},
		{"allowed host", mcpserver.Options{AllowedHosts: []string{"Proxy.Example"}}, "proxy.example", 200},
		{"disabled", mcpserver.Options{DisableDNSRebindingProtection: true}, "evil.example", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := serve(t, tt.opt)
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d, want %d; %s", resp.StatusCode, tt.status, b)
			}
		})
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		base    string
		wantErr bool
		terms   string
	}{
		{"https://predictions.example.org/", false, "https://predictions.example.org/terms"},
		{"https://example.org/pre", false, "https://example.org/pre/terms"},
		{"", false, mcpserver.DefaultBaseURL + "/terms"},
		{"predictions.example.org", true, ""},
		{"ftp://example.org", true, ""},
		{"/relative", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			s, err := mcpserver.New(mcpserver.Options{BaseURL: tt.base})
			if _, herr := mcpserver.Handler(mcpserver.Options{BaseURL: tt.base}); (herr != nil) != tt.wantErr {
				t.Errorf("Handler(%q) error = %v, want error %v", tt.base, herr, tt.wantErr)
			}
			if tt.wantErr {
				if !errors.Is(err, mcpserver.ErrBaseURL) || !strings.Contains(err.Error(), tt.base) {
					t.Errorf("New(%q) error = %v, want ErrBaseURL naming the value", tt.base, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.base, err)
			}
			// In memory, as a program serving MCP over another transport would.
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tool := tools.All()[0]
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: tool.Example})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.StructuredContent.(map[string]any)["terms"]; got != tt.terms {
				t.Errorf("terms = %v, want %s", got, tt.terms)
			}
		})
	}
}

// BenchmarkCall compares a tool call over MCP (plain POST to the handler,
// no network) with the baseline: the same call through tools.Call and
// Envelope, as the HTTP adapter does.
func BenchmarkCall(b *testing.B) {
	tool := tools.All()[0]
	b.Run("baseline-tools.Call", func(b *testing.B) {
		for b.Loop() {
			res, err := tool.Call(context.Background(), tool.Example)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := res.Envelope("http://127.0.0.1:8080/terms"); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, base := range []string{"http://127.0.0.1:8080", ""} {
		name := "mcp-fixed-base"
		if base == "" {
			name = "mcp-base-from-request"
		}
		b.Run(name, func(b *testing.B) {
			h, err := mcpserver.Handler(mcpserver.Options{BaseURL: base})
			if err != nil {
				b.Fatal(err)
			}
			body := call(tool.Name, string(tool.Example))
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// BenchmarkNew measures building a server, which Handler does once per base
// URL (and per request beyond the cache of derived base URLs).
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := mcpserver.New(mcpserver.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
