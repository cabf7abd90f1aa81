package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/predictions-md/predictions/internal/tools"
)

// mcpTool describes t as an MCP tool. The schemas are the tool's own
// (*jsonschema.Schema values, shared, never modified); the annotations say
// that every tool only computes.
func mcpTool(t *tools.Tool) *mcp.Tool {
	no := false
	return &mcp.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    true,
			IdempotentHint:  true,
			DestructiveHint: &no,
			OpenWorldHint:   &no,
		},
	}
}

// Messages of a tool failure that is not the client's fault; the detail goes
// to the log only.
const (
	internalError = "internal error: the tool failed on this input"
	internalHint  = "try again; if it fails again, report the input to the operator of the service"
)

// toolHandler runs t through [tools.Tool.Call], the code path the HTTP
// adapter uses, so that a tool answers the same over both.
//
// Success: the Result object is the structured content and, as JSON text,
// the text content. Bad input: a tool error (isError) whose text is the
// Problem object the HTTP adapter would send. The error result carries no
// structured content, because some clients validate structured content
// against the output schema even on errors (typescript-sdk issue #1943).
func (a *adapter) toolHandler(t *tools.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := bytes.TrimSpace(req.Params.Arguments)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			raw = []byte("{}") // arguments are optional in the protocol
		}
		res, err := t.Call(tools.WithBaseURL(ctx, a.base), raw)
		if err != nil {
			return a.toolError(ctx, t, err), nil
		}
		body, err := res.Envelope(a.terms())
		if err != nil {
			return a.toolError(ctx, t, err), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
			StructuredContent: json.RawMessage(body),
		}, nil
	}
}

// toolError turns an error of [tools.Tool.Call] into a tool error result.
// An [*tools.InputError] gives its message and hint; anything else gives a
// generic message, and its detail is logged.
func (a *adapter) toolError(ctx context.Context, t *tools.Tool, err error) *mcp.CallToolResult {
	p := tools.Problem{Docs: a.docs(t.Name), Disclaimer: tools.Disclaimer, Terms: a.terms()}
	if !p.Explain(err) {
		a.logger().ErrorContext(ctx, "mcpserver: tool failed", "tool", t.Name, "err", err)
		p.Error, p.Hint = internalError, internalHint
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: string(marshal(p))}},
		IsError: true,
	}
}

// marshal encodes v as compact JSON without HTML escaping, as
// [tools.Result.Envelope] does.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only called with plain structs of strings
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// routeTool is the MCP tool of a route of the HTTP API. Reads are marked
// read-only and idempotent; writes are not destructive (nothing is
// deleted) and not idempotent (a forecast or a reply is added each time).
func routeTool(rt tools.Route) *mcp.Tool {
	no := false
	return &mcp.Tool{
		Name:        rt.Name,
		Title:       rt.Title,
		Description: rt.Description,
		InputSchema: rt.InputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:           rt.Title,
			ReadOnlyHint:    rt.ReadOnly,
			IdempotentHint:  rt.ReadOnly,
			DestructiveHint: &no,
			OpenWorldHint:   &no,
		},
	}
}

// routeHandler calls the route with the arguments and the MCP request's
// headers (the go-sdk gives a tool handler the headers of the HTTP request
// that carried the call, in CallToolRequest.Extra.Header): its
// Authorization and Idempotency-Key. A 2xx answer is the result (structured content
// and text); any other is a tool error whose text is the route's Problem.
// A 401 adds how to set the header in an MCP client.
func (a *adapter) routeHandler(rt tools.Route) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var header http.Header
		if req.Extra != nil {
			header = req.Extra.Header
		}
		status, body := rt.Call(tools.WithBaseURL(ctx, a.base), req.Params.Arguments, header)
		if status >= 200 && status < 300 {
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
				StructuredContent: json.RawMessage(body),
			}, nil
		}
		if status == http.StatusUnauthorized {
			var p tools.Problem
			if json.Unmarshal(body, &p) == nil {
				p.Hint += "; over MCP, add the header to this server's entry in your client's configuration, such as " +
					`"headers": {"Authorization": "Bearer forecaster-7"} in .mcp.json, or claude mcp add --transport http --header "Authorization: Bearer forecaster-7"`
				body = marshal(p)
			}
		}
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: string(body)}},
			IsError: true,
		}, nil
	}
}
