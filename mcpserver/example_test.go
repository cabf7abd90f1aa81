package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/mcpserver"
)

// Mount the endpoint at /mcp and list its tools with the SDK's client
// (which lists them sorted by name).
func ExampleHandler() {
	h, err := mcpserver.Handler(mcpserver.Options{})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tool.Name)
	}
	// Output:
	// bayes_update
	// build_settings
	// check_forecast_md
	// combine_forecasts
	// convert_odds
	// implied_probabilities
	// score_forecasts
}

// A plain POST, as curl sends it, without initialize: the answer is one
// JSON-RPC response whose structuredContent is the tool's Result object.
func ExampleHandler_curl() {
	h, err := mcpserver.Handler(mcpserver.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"convert_odds","arguments":{"value":"+150"}}}`
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result struct {
			StructuredContent struct {
				Tool   string `json:"tool"`
				ReadAs string `json:"read_as"`
			} `json:"structuredContent"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Println(r.Result.StructuredContent.Tool, r.Result.StructuredContent.ReadAs, r.Result.IsError)
	// Output:
	// 200 application/json
	// convert_odds american false
}

// Serve the server over any MCP transport; here in memory, getting the
// prompt.
func ExampleNew() {
	s, err := mcpserver.New(mcpserver.Options{BaseURL: "https://predictions.example.org"})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "predictions",
		Arguments: map[string]string{"question": "Will it rain in Paris on 2026-07-14?"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Description)
	// Output:
	// Forecast: Will it rain in Paris on 2026-07-14?
}

func ExampleSkillURI() {
	fmt.Println(mcpserver.SkillURI("https://predictions.example.org"))
	fmt.Println(mcpserver.SettingsURI("https://predictions.example.org"))
	// Output:
	// https://predictions.example.org/predictions.md
	// https://predictions.example.org/api/v1/settings
}
