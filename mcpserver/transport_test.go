package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/mcpserver"
)

// rpcError is a JSON-RPC error response as a plain client reads it; ID is
// nil when the response has no id.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Data    map[string]string `json:"data"`
	} `json:"error"`
}

func decodeRPCError(t *testing.T, resp *http.Response, body []byte) rpcError {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json; body %s", ct, body)
	}
	var e rpcError
	if err := json.Unmarshal(body, &e); err != nil || e.JSONRPC != "2.0" || e.Error == nil {
		t.Fatalf("body is not a JSON-RPC error response (%v): %s", err, body)
	}
	return e
}

// TestOrigin: the Origin rule of the MCP transport specification. No
// Origin (clients that are not browsers) is served; so are the service's
// own origin, loopback origins and the allowed ones; anything else gets
// 403 with a JSON-RPC error that has no id, and a hint.
func TestOrigin(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	base := mcpserver.Options{BaseURL: "https://predictions.example.org/pre"}
	baseAnyHost := mcpserver.Options{BaseURL: base.BaseURL, DisableDNSRebindingProtection: true}
	tests := []struct {
		name   string
		opt    mcpserver.Options
		origin []string // Origin header values; nil for none
		host   string   // the request's Host; "" for the test server's
		status int
	}{
		{"no Origin", mcpserver.Options{}, nil, "", 200},
		{"other site", mcpserver.Options{}, []string{"http://evil.example"}, "", 403},
		{"same origin as the Host", mcpserver.Options{}, []string{"SELF"}, "", 200},
		{"same host, other port", mcpserver.Options{}, []string{"http://127.0.0.1:1"}, "", 200}, // loopback
		{"localhost inspector", mcpserver.Options{}, []string{"http://localhost:6274"}, "", 200},
		{"loopback IPv4", mcpserver.Options{}, []string{"http://127.0.0.1:3000"}, "", 200},
		{"loopback IPv6", mcpserver.Options{}, []string{"http://[::1]:3000"}, "", 200},
		{"localhost as a subdomain", mcpserver.Options{}, []string{"http://localhost.evil.example"}, "", 403},
		{"loopback as a subdomain", mcpserver.Options{}, []string{"https://127.0.0.1.evil.example"}, "", 403},
		{"opaque origin", mcpserver.Options{}, []string{"null"}, "", 403},
		{"not an origin", mcpserver.Options{}, []string{"evil.example"}, "", 403},
		{"origin with a path", mcpserver.Options{}, []string{"http://evil.example/x"}, "", 403},
		{"two Origin headers", mcpserver.Options{}, []string{"http://localhost:1", "http://localhost:2"}, "", 403},
		{"allowed", mcpserver.Options{AllowedOrigins: []string{"https://App.Example.org:443"}}, []string{"https://app.example.org"}, "", 200},
		{"allowed, other scheme", mcpserver.Options{AllowedOrigins: []string{"https://app.example.org"}}, []string{"http://app.example.org"}, "", 403},
		{"any", mcpserver.Options{AllowedOrigins: []string{"*"}}, []string{"http://evil.example"}, "", 200},
		{"base URL's origin", base, []string{"https://predictions.example.org"}, "predictions.example.org", 200},
		{"base URL set: the Host's origin is not the service's", baseAnyHost, []string{"http://other.example"}, "other.example", 403},
		// DisableDNSRebindingProtection stands for a listener on a public
		// address, where the Host check does not apply: a rebound name's
		// page sends that name as Host and Origin alike.
		{"rebound name as Host and Origin, no base URL", mcpserver.Options{DisableDNSRebindingProtection: true}, []string{"http://evil.example:8080"}, "evil.example:8080", 403},
		{"an IP address as Host and Origin, no base URL", mcpserver.Options{DisableDNSRebindingProtection: true}, []string{"http://192.0.2.7:8080"}, "192.0.2.7:8080", 200},
		{"an allowed host as Host and Origin, no base URL", mcpserver.Options{DisableDNSRebindingProtection: true, AllowedHosts: []string{"Other.example"}}, []string{"http://other.example"}, "other.example", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := serve(t, tt.opt)
			h := http.Header{}
			for _, o := range tt.origin {
				if o == "SELF" {
					o = ts.URL
				}
				h.Add("Origin", o)
			}
			if tt.host != "" {
				h.Set("Host", tt.host)
			}
			resp, body := post(t, ts, h, ping)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d; %s", resp.StatusCode, tt.status, body)
			}
			if tt.status != http.StatusForbidden {
				return
			}
			e := decodeRPCError(t, resp, body)
			if e.ID != nil || e.Error.Code != -32000 || !strings.Contains(e.Error.Message, "Origin") || !strings.Contains(e.Error.Data["hint"], "--allowed-origins") {
				t.Errorf("403 body = %s; want a JSON-RPC error with no id, code -32000, naming Origin, with a hint", body)
			}
		})
	}
}

// TestHostRefusalIsJSONRPC: the DNS-rebinding 403 for a Host is a
// JSON-RPC error too.
func TestHostRefusalIsJSONRPC(t *testing.T) {
	ts := serve(t, mcpserver.Options{})
	resp, body := post(t, ts, http.Header{"Host": {"evil.example"}}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status = %d, want 403", resp.StatusCode)
	}
	if e := decodeRPCError(t, resp, body); e.ID != nil || e.Error.Code != -32000 || e.Error.Data["hint"] == "" {
		t.Errorf("403 body = %s", body)
	}
}

func TestAllowedOriginsOption(t *testing.T) {
	for _, bad := range []string{"app.example.org", "https://app.example.org/path", "ftp://app.example.org", "null", "https://user@app.example.org", "", "https://:443", "http://:80"} {
		if _, err := mcpserver.Handler(mcpserver.Options{AllowedOrigins: []string{bad}}); !errors.Is(err, mcpserver.ErrOrigin) {
			t.Errorf("Handler(AllowedOrigins %q) error = %v, want ErrOrigin", bad, err)
		}
	}
	for in, want := range map[string]string{"https://App.Example.org:443": "https://app.example.org", "http://localhost:80/": "http://localhost",
		"http://[::1]:6274": "http://[::1]:6274", "*": "*"} {
		if got, err := mcpserver.ParseOrigin(in); err != nil || got != want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestUnknownMethod: a method the server does not offer is the JSON-RPC
// error -32601 in a JSON-RPC body, the response to the request (HTTP 200),
// or with no id and HTTP 400 for a notification; under every protocol
// version the SDK answers in plain text.
func TestUnknownMethod(t *testing.T) {
	ts := serve(t, mcpserver.Options{})
	for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
		h := http.Header{}
		if version != "" {
			h.Set("Mcp-Protocol-Version", version)
		}
		t.Run("request/"+version, func(t *testing.T) {
			for _, id := range []string{`7`, `"abc"`} {
				resp, body := post(t, ts, h, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/frobnicate","params":{}}`)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status = %d, want 200; %s", resp.StatusCode, body)
				}
				e := decodeRPCError(t, resp, body)
				if string(e.ID) != id || e.Error.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(e.Error.Message, "tools/frobnicate") {
					t.Errorf("body = %s; want error -32601 with id %s naming the method", body, id)
				}
			}
		})
		t.Run("notification/"+version, func(t *testing.T) {
			resp, body := post(t, ts, h, `{"jsonrpc":"2.0","method":"notifications/frobnicated"}`)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400; %s", resp.StatusCode, body)
			}
			if e := decodeRPCError(t, resp, body); e.ID != nil || e.Error.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("body = %s; want error -32601 with no id", body)
			}
		})
	}
	// Other refusals of the SDK pass as it writes them.
	resp, body := post(t, ts, nil, `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("a notification sent with an id: status %d, %s; want the SDK's 400", resp.StatusCode, body)
	}
	// Known methods are unchanged.
	resp, body = post(t, ts, nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"tools"`) {
		t.Errorf("tools/list: %d %.200s", resp.StatusCode, body)
	}
}

// TestUnknownResource: reading a resource the server does not have is
// -32002 under protocol versions up to 2025-11-25 (the specification's
// Resources, Error Handling) and -32602 from 2026-07-28 (SEP-2164), with
// the URI in data either way.
func TestUnknownResource(t *testing.T) {
	ts := serve(t, mcpserver.Options{})
	read := `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"` + ts.URL + `/nothing-here"}}`
	for _, version := range []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		h := http.Header{}
		if version != "" {
			h.Set("Mcp-Protocol-Version", version)
		}
		resp, body := post(t, ts, h, read)
		var r struct {
			ID    int `json:"id"`
			Error *struct {
				Code int               `json:"code"`
				Data map[string]string `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != http.StatusOK || r.Error == nil {
			t.Fatalf("version %q: %d %s", version, resp.StatusCode, body)
		}
		if diff := cmp.Diff(-32002, r.Error.Code); diff != "" || r.ID != 3 || r.Error.Data["uri"] != ts.URL+"/nothing-here" {
			t.Errorf("version %q: %s; want error -32002 with the URI", version, body)
		}
	}

	// The SDK's own client, at the version it negotiates.
	cs := connect(t, ts)
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: ts.URL + "/nothing-here"})
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("ReadResource of an unknown URI: %v, want a JSON-RPC error", err)
	}
	want := int64(-32002)
	if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		want = jsonrpc.CodeInvalidParams
	}
	if e.Code != want {
		t.Errorf("protocol %s: code %d, want %d", cs.InitializeResult().ProtocolVersion, e.Code, want)
	}
	t.Logf("the SDK's client negotiated protocol %s: code %d", cs.InitializeResult().ProtocolVersion, e.Code)
	// A known resource still reads.
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.SkillURI(ts.URL)}); err != nil {
		t.Errorf("ReadResource(skill file): %v", err)
	}
}

// TestProtocolVersions: initialize negotiates up to 2025-11-25 and says
// so; a version the server does not serve in MCP-Protocol-Version is a
// 400 whose JSON-RPC error names what initialize negotiates and the
// version served through server/discover; logging/setLevel, tied to a
// capability the server does not declare, is -32601.
func TestProtocolVersions(t *testing.T) {
	ts := serve(t, mcpserver.Options{})
	for _, tc := range []struct{ asked, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-11-25", "2025-11-25"},
		{"2026-07-28", "2025-11-25"}, // initialize stops at 2025-11-25
		{"1999-01-01", "2025-11-25"},
	} {
		resp, body := post(t, ts, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+tc.asked+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		var r struct {
			Result struct {
				ProtocolVersion string         `json:"protocolVersion"`
				Capabilities    map[string]any `json:"capabilities"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize %s: %d %s", tc.asked, resp.StatusCode, body)
		}
		if r.Result.ProtocolVersion != tc.want {
			t.Errorf("initialize %s: protocolVersion %q, want %q", tc.asked, r.Result.ProtocolVersion, tc.want)
		}
		if _, ok := r.Result.Capabilities["logging"]; ok {
			t.Errorf("initialize %s: capabilities declare logging: %s", tc.asked, body)
		}
	}

	resp, body := post(t, ts, http.Header{"Mcp-Protocol-Version": {"2024-01-01"}}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unsupported MCP-Protocol-Version: status %d, want 400: %s", resp.StatusCode, body)
	}
	e := decodeRPCError(t, resp, body)
	for _, want := range []string{"2024-01-01", "initialize negotiates 2025-11-25, 2025-06-18", "2026-07-28 is served to clients that send it"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("unsupported MCP-Protocol-Version: %s does not say %q", body, want)
		}
	}
	if e.ID != nil {
		t.Errorf("unsupported MCP-Protocol-Version: error with id %s", e.ID)
	}

	resp, body = post(t, ts, nil, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`)
	if e := decodeRPCError(t, resp, body); resp.StatusCode != http.StatusOK || e.Error.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(e.Error.Message, "logging") {
		t.Errorf("logging/setLevel: %d %s; want -32601", resp.StatusCode, body)
	}
}
