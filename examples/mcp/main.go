// Command mcp connects to the server's MCP endpoint with the official Go
// SDK's client, lists the tools and calls convert_odds, the way an MCP host
// (an agent runtime or an IDE) does.
//
//	go run ./cmd/predictions serve &              # MCP at http://127.0.0.1:8080/mcp
//	go run ./examples/mcp                         # or -url https://host/mcp
//	go run ./examples/mcp -value 3/2
//
// The endpoint speaks the streamable HTTP transport and is stateless, so the
// client needs no session state on the server side.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only reports its error, so a test can call
// run with flags pointing at a server it started.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	endpoint := fs.String("url", "http://localhost:8080/mcp", "the server's MCP endpoint")
	value := fs.String("value", "+150", "the odds to convert, in any notation")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	// Connect runs the MCP handshake (initialize). The server never calls
	// the client, so the standalone event stream (an HTTP GET the server
	// answers 405) is turned off, and one failed request is not retried.
	client := mcp.NewClient(&mcp.Implementation{Name: "predictions-example", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             *endpoint,
		HTTPClient:           &http.Client{Timeout: 10 * time.Second},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		return fmt.Errorf("connecting to %s (is the server running?): %w", *endpoint, err)
	}
	defer session.Close()
	info := session.InitializeResult().ServerInfo
	fmt.Fprintf(out, "connected to %s %s\n", info.Name, info.Version)

	// The tools, each with a JSON Schema of its input.
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\nTools")
	for _, t := range tools.Tools {
		fmt.Fprintf(out, "  %-22s %s\n", t.Name, t.Title)
	}

	// Call a tool. Arguments is any value that marshals to the tool's input
	// object; the answer is the tool's Result object, as the HTTP API sends
	// it, both as structured content and as JSON text.
	text, isError, err := call(ctx, session, "convert_odds", map[string]any{"value": *value})
	if err != nil {
		return err
	}
	if isError {
		var problem struct{ Error, Hint string }
		json.Unmarshal([]byte(text), &problem)
		return fmt.Errorf("convert_odds %q: %s (hint: %s)", *value, problem.Error, problem.Hint)
	}
	var result struct {
		Summary string `json:"summary"`
		ReadAs  string `json:"read_as"`
		Formats struct {
			PercentText  string `json:"percent_text"`
			DecimalText  string `json:"decimal_text"`
			Fractional   string `json:"fractional"`
			AmericanText string `json:"american_text"`
		} `json:"formats"`
	}
	if err := json.Unmarshal([]byte(text), &result); err != nil {
		return err
	}
	f := result.Formats
	fmt.Fprintf(out, "\nconvert_odds %s, read as %s: %s, decimal %s, fractional %s, American %s\n",
		*value, result.ReadAs, f.PercentText, f.DecimalText, f.Fractional, f.AmericanText)
	fmt.Fprintln(out, result.Summary)

	// Bad input is not a protocol error but a tool error (IsError) whose text
	// is a Problem naming the field and how to fix it, so that the model
	// calling the tool can correct itself.
	text, isError, err = call(ctx, session, "convert_odds", map[string]any{"value": "1,91"})
	if err != nil {
		return err
	}
	var problem struct{ Error, Hint string }
	if err := json.Unmarshal([]byte(text), &problem); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nconvert_odds 1,91: tool error %v\n  error: %s\n  hint: %s\n", isError, problem.Error, problem.Hint)
	return nil
}

// call calls a tool and returns the text of its answer and whether it is a
// tool error. err is a failure of the call itself (transport, protocol).
func call(ctx context.Context, session *mcp.ClientSession, name string, args any) (text string, isError bool, err error) {
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, err
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	return text, res.IsError, nil
}
