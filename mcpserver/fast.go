package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path.
//
// In stateless mode the SDK builds a server session, its JSON-RPC
// connection and goroutines for every POST, and decodes the body four
// times; for the request this service gets most, a single tools/call, that
// is about nine tenths of the CPU (docs/BENCHMARKS.md). serveFast answers
// exactly that request itself: a single JSON-RPC call of method tools/call
// naming one of the seven tools, with only name and arguments, under a
// protocol version before the 2026-07-28 revision (which adds per-request
// _meta and header checks). It calls the same tool handler the SDK would,
// and encodes the answer with the SDK's own jsonrpc.EncodeMessage, so the
// status, headers and body are byte for byte the SDK's; TestFastPath and
// FuzzFastPath check that against the SDK on every kind of request. Any
// request it is not sure of goes to the SDK untouched.

// fastVersions are the MCP-Protocol-Version header values the fast path
// serves ("" is a missing header, which the SDK reads as 2025-03-26): the
// versions before 2026-07-28, for each of which tools/call is a plain
// request with no header or _meta rules. A version the SDK no longer
// supports is left to the SDK, which refuses it.
var fastVersions = slices.DeleteFunc([]string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"},
	func(v string) bool { return v != "" && !slices.Contains(mcp.SupportedProtocolVersions(), v) })

// serveFast answers r, a POST whose headers ServeHTTP has completed, if it
// is a plain single tools/call, and reports whether it did. When it does
// not answer, r (and its body) are as they came, for the SDK.
func (h *handler) serveFast(w http.ResponseWriter, r *http.Request) bool {
	if !fastHeaders(r.Header) {
		return false
	}
	s := h.fixed
	if s == nil {
		if s = h.site(r); s == nil {
			return false
		}
	}
	body, ok := readBody(r)
	if !ok {
		return false
	}
	call, ok := parseCall(body)
	if !ok {
		return false
	}
	run := s.tools[call.name]
	if run == nil {
		return false // the SDK answers an unknown tool
	}
	res, err := run(r.Context(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: call.name, Arguments: call.args}})
	if err != nil || res == nil {
		return false // never: the tool handlers turn every failure into a tool error
	}
	raw, err := marshalResult(res)
	if err != nil {
		return false
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: call.id, Result: raw})
	if err != nil {
		return false
	}
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
	h.fastCalls.Add(1)
	return true
}

// fastHeaders reports whether the headers are those of a request the SDK
// would pass to the session without a word: JSON in, JSON and an event
// stream accepted, no Last-Event-ID, and a protocol version of fastVersions.
func fastHeaders(hd http.Header) bool {
	if mt, _, err := mime.ParseMediaType(hd.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if jsonOK, streamOK := accepts(hd.Values("Accept")); !jsonOK || !streamOK {
		return false
	}
	if len(hd.Values("Last-Event-ID")) > 0 {
		return false
	}
	return slices.Contains(fastVersions, hd.Get("Mcp-Protocol-Version"))
}

// readBody reads r's body, up to MaxBodyBytes, and puts it back for a
// second reader. It reports false, with the body put back as it came
// (the bytes read, then the rest), when the body is larger or could not be
// read: the SDK then reads it and answers as it does.
func readBody(r *http.Request) ([]byte, bool) {
	orig := r.Body
	body, err := io.ReadAll(io.LimitReader(orig, MaxBodyBytes+1))
	if err != nil || len(body) > MaxBodyBytes {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), orig), orig}
		return body, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, len(body) > 0
}

// A toolCall is a tools/call request the fast path answers.
type toolCall struct {
	id   jsonrpc.ID
	name string
	args json.RawMessage
}

// parseCall reads body as a single JSON-RPC 2.0 tools/call with only the
// members jsonrpc, id, method and params, an id that is a plain string or a
// whole number the SDK keeps exactly, and params with only name (a plain
// string) and arguments. Anything else is for the SDK.
func parseCall(body []byte) (toolCall, bool) {
	var msg map[string]json.RawMessage
	if body[0] != '{' || json.Unmarshal(body, &msg) != nil || len(msg) != 4 ||
		string(msg["jsonrpc"]) != `"2.0"` || string(msg["method"]) != `"tools/call"` {
		return toolCall{}, false
	}
	id, ok := plainID(msg["id"])
	if !ok {
		return toolCall{}, false
	}
	var params map[string]json.RawMessage
	if p := msg["params"]; len(p) == 0 || p[0] != '{' || json.Unmarshal(p, &params) != nil {
		return toolCall{}, false
	}
	name, ok := plainString(params["name"])
	if !ok || len(params) > 2 || (len(params) == 2 && params["arguments"] == nil) {
		return toolCall{}, false
	}
	return toolCall{id: id, name: name, args: params["arguments"]}, true
}

// plainID reads a request id: a plain string, or a whole number of at most
// 15 digits (the SDK reads numbers as float64 and keeps their whole part).
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if s, ok := plainString(raw); ok {
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return jsonrpc.ID{}, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return jsonrpc.ID{}, false
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// plainString reads a JSON string with no escapes and no control
// characters, in valid UTF-8.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(s), utf8.Valid(s)
}

// marshalResult encodes a result as the SDK encodes results: encoding/json
// without HTML escaping and without the trailing newline.
func marshalResult(res *mcp.CallToolResult) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
