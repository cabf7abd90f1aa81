package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/mcpserver"
)

// toolShape is what both descriptions must agree on: the input fields of a
// tool and which of them are required.
type toolShape struct {
	Fields   []string
	Required []string
}

// TestMCPAndOpenAPIDescribeTheSameTools serves the full router, as
// `predictions serve` wires it, and compares the MCP tool list (through the
// go-sdk client) with the tools of the served openapi.json.
func TestMCPAndOpenAPIDescribeTheSameTools(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	h, err := mcpserver.Handler(mcpserver.Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = httpapi.New(httpapi.Options{BaseURL: base, MCP: h})
	srv.Start()
	defer srv.Close()

	// openapi.json: every /api/v1/<tool> POST body schema.
	res, err := http.Get(base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Paths map[string]struct {
			Post *struct {
				RequestBody struct {
					Content map[string]struct {
						Schema struct {
							Ref string `json:"$ref"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			} `json:"post"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	fromOpenAPI := map[string]toolShape{}
	for path, item := range doc.Paths {
		name, ok := strings.CutPrefix(path, "/api/v1/")
		if !ok || item.Post == nil || name == "settings" {
			continue
		}
		ref := item.Post.RequestBody.Content["application/json"].Schema.Ref
		s, ok := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		if !ok {
			t.Fatalf("%s: request body schema %q not found", path, ref)
		}
		fromOpenAPI[name] = shape(keys(s.Properties), s.Required)
	}

	// MCP: tools/list through the go-sdk client.
	client := mcp.NewClient(&mcp.Implementation{Name: "contract-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fromMCP := map[string]toolShape{}
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		fromMCP[tool.Name] = shape(keys(s.Properties), s.Required)
	}
	if len(fromMCP) != 7 {
		t.Errorf("MCP lists %d tools, want 7", len(fromMCP))
	}
	if diff := cmp.Diff(fromOpenAPI, fromMCP); diff != "" {
		t.Errorf("openapi.json and MCP disagree (-openapi +mcp):\n%s", diff)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func shape(fields, required []string) toolShape {
	f, r := slices.Clone(fields), slices.Clone(required)
	sort.Strings(f)
	sort.Strings(r)
	return toolShape{Fields: f, Required: r}
}
