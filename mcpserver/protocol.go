package mcpserver

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol versions. The SDK serves every version of
// mcp.SupportedProtocolVersions, but the initialize handshake only up to
// handshakeProtocol: from 2026-07-28 on a client learns the versions with
// server/discover and sends the version in MCP-Protocol-Version, and an
// initialize asking for a newer version is answered with handshakeProtocol
// (MCP 2025-11-25, Lifecycle, Version Negotiation: "the server MUST
// respond with another protocol version it supports").
const (
	discoverProtocol  = "2026-07-28"
	handshakeProtocol = "2025-11-25"
)

// protocolHeader is the transport's header naming the protocol version.
const protocolHeader = "Mcp-Protocol-Version"

// unsupportedProtocol answers a request whose MCP-Protocol-Version the
// SDK would refuse (a version before discoverProtocol that it does not
// serve) with a 400 that says which versions are served and how: the
// SDK's own text lists 2026-07-28 beside the versions initialize
// negotiates, as if initialize could agree on it. It reports whether it
// answered.
func unsupportedProtocol(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get(protocolHeader)
	if v == "" || v >= discoverProtocol || slices.Contains(mcp.SupportedProtocolVersions(), v) {
		return false
	}
	var viaInit []string
	for _, s := range mcp.SupportedProtocolVersions() {
		if s <= handshakeProtocol {
			viaInit = append(viaInit, s)
		}
	}
	writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, codeRefused,
		"Bad Request: unsupported protocol version "+v+" in MCP-Protocol-Version",
		map[string]string{
			"hint": "initialize negotiates " + strings.Join(viaInit, ", ") + "; " + discoverProtocol +
				" is served to clients that send it in MCP-Protocol-Version (server/discover lists it)",
		})
	return true
}

// noLogging is receiving middleware that answers logging/setLevel with
// -32601 (Method not found): the server declares no logging capability
// and sends no log messages, and the specification (MCP 2025-11-25,
// Utilities, Logging) ties the method to that capability.
func noLogging(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "logging/setLevel" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: "Method not found: logging/setLevel (this server declares no logging capability and sends no log messages)"}
		}
		return next(ctx, method, req)
	}
}
