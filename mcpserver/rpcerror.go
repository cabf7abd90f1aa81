package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeRefused is the JSON-RPC code of a request refused before the SDK
// sees it (a disallowed Origin or Host): -32000, the first of the codes
// JSON-RPC 2.0 leaves to the implementation for server errors.
const codeRefused = -32000

// writeRPCError answers with a JSON-RPC error response: for id when it is
// valid, else with no id, as the MCP transport specification allows for
// an error that answers no request. data, when not nil, is its data.
func writeRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, message string, data any) {
	e := &jsonrpc.Error{Code: code, Message: message}
	if data != nil {
		e.Data, _ = json.Marshal(data) // maps of strings always marshal
	}
	body, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: e}) // a response with an error always encodes
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// notHandled starts the SDK's plain-text answer (HTTP 400) to a message
// whose method it does not serve, under the protocol versions before
// 2026-07-28. From 2026-07-28 on it answers -32601 in a JSON-RPC body
// with HTTP 404 itself (SEP-2575), as it also does for -32601 from a
// handler; neither is held back.
const notHandled = "JSON RPC not handled"

// heldWriter holds back a plain-text 400 of the SDK so that ServeHTTP can
// answer an unknown method in JSON-RPC instead (answerNotHandled); every
// other answer passes through as written.
type heldWriter struct {
	http.ResponseWriter
	held bool
	body bytes.Buffer
}

func (w *heldWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *heldWriter) Write(b []byte) (int, error) {
	if w.held {
		return w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes a flush on unless the answer is held.
func (w *heldWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.held {
		f.Flush()
	}
}

// Unwrap is for http.ResponseController.
func (w *heldWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// release writes a held answer: an unknown method as the JSON-RPC error
// -32601 (Method not found, JSON-RPC 2.0 section 5.1) with the SDK's
// message, any other refusal as the SDK wrote it. A request (a message
// with an id) gets its error response with HTTP 200, as any JSON-RPC
// error answering it; a notification or a batch, which no response
// answers, gets HTTP 400 with an error that has no id (MCP transports:
// "If the server cannot accept the input, it MUST return an HTTP error
// status code ... The HTTP response body MAY comprise a JSON-RPC error
// response that has no id"). body is the request's body.
func (w *heldWriter) release(body []byte) {
	if !w.held {
		return
	}
	text := strings.TrimSpace(w.body.String())
	if !strings.HasPrefix(text, notHandled) {
		w.ResponseWriter.WriteHeader(http.StatusBadRequest)
		_, _ = w.ResponseWriter.Write(w.body.Bytes())
		return
	}
	hint := map[string]string{"hint": "send a method of the MCP specification that this server offers, such as tools/list or tools/call"}
	if msg, err := jsonrpc.DecodeMessage(body); err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			writeRPCError(w.ResponseWriter, http.StatusOK, req.ID, jsonrpc.CodeMethodNotFound, text, hint)
			return
		}
	}
	writeRPCError(w.ResponseWriter, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeMethodNotFound, text, hint)
}

// recordBody makes r's body keep a copy of what is read from it (by the
// SDK, which reads it whole) and returns the copy.
func recordBody(r *http.Request) *bytes.Buffer {
	var b bytes.Buffer
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(r.Body, &b), r.Body}
	return &b
}

// Resource not found: the specification up to protocol 2025-11-25
// (Resources, Error Handling) names -32002; SEP-2164 made it -32602
// (Invalid params) from protocol 2026-07-28 on. The SDK answers -32602
// for every version (its switch back, MCPGODEBUG=customresnotfounderrcode=1,
// is process-wide, for all versions, and goes in SDK 1.9), so
// resourceNotFound gives older versions their code.
const (
	codeResourceNotFound = -32002
	// sep2164Protocol is the first protocol version whose answer is -32602.
	sep2164Protocol = "2026-07-28"
	// sdkResourceNotFound is the message of the SDK's mcp.ResourceNotFoundError.
	sdkResourceNotFound = "Resource not found"
)

// resourceNotFound is receiving middleware that answers a resources/read
// of an unknown resource with -32002 under protocol versions before
// 2026-07-28, the SDK's error otherwise unchanged (code aside).
func resourceNotFound(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var e *jsonrpc.Error
		if method != "resources/read" || !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || e.Message != sdkResourceNotFound {
			return res, err
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			if p := ss.InitializeParams(); p != nil && p.ProtocolVersion >= sep2164Protocol {
				return res, err
			}
		}
		return res, &jsonrpc.Error{Code: codeResourceNotFound, Message: e.Message, Data: e.Data}
	}
}
