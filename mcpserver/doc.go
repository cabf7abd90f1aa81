// Package mcpserver offers the predictions service's calculation tools over
// the Model Context Protocol (MCP), with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// [New] builds an *mcp.Server from the same tool definitions the HTTP
// adapter uses (package internal/tools): the seven tools convert_odds,
// implied_probabilities, combine_forecasts, bayes_update, score_forecasts,
// check_forecast_md and build_settings, with their input and output schemas;
// one prompt, "predictions"; and two resources, the skill file and the
// settings catalog. [Handler] serves it over streamable HTTP, to be mounted
// at /mcp.
//
// A program that serves the MCP endpoint alone on
// http://127.0.0.1:8080/mcp:
//
//	package main
//
//	import (
//		"log"
//		"net/http"
//
//		"github.com/predictions-md/predictions/mcpserver"
//	)
//
//	func main() {
//		h, err := mcpserver.Handler(mcpserver.Options{})
//		if err != nil {
//			log.Fatal(err)
//		}
//		mux := http.NewServeMux()
//		mux.Handle("/mcp", h)
//		log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
//	}
//
// [New] returns the *mcp.Server, for other transports (stdio, in-memory);
// [Handler] wraps it for HTTP. Handler fails only if a tool definition
// cannot be turned into an MCP tool, which the tests rule out. The
// runnable program examples/mcp in the repository is a client: it connects
// with the SDK, lists the tools and calls one.
//
// # Adding the server to an MCP client
//
// URL {base}/mcp (for a local `predictions serve`: http://127.0.0.1:8080/mcp),
// transport "streamable HTTP" (in some clients "http"; not "sse"), no
// authentication. For example, in a client that reads an mcpServers file:
//
//	{"mcpServers": {"predictions": {"type": "http", "url": "http://127.0.0.1:8080/mcp"}}}
//
// or with Claude Code: claude mcp add --transport http predictions http://127.0.0.1:8080/mcp
//
// To try it with curl (no initialize needed, since the server is stateless):
//
//	curl -s http://127.0.0.1:8080/mcp -H 'Content-Type: application/json' \
//	  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"convert_odds","arguments":{"value":"+150"}}}'
//
// The -H is needed because curl -d labels the body as a form; a request
// without Content-Type is read as JSON. curl's default Accept: */* is fine,
// and a missing Accept or one naming only application/json is completed
// with text/event-stream, which the SDK otherwise demands.
//
// # Transport
//
// The endpoint is stateless: every POST stands alone, no Mcp-Session-Id is
// issued, GET and DELETE get 405, and the server never calls the client.
// Answers are application/json, never an event stream. A body over
// [MaxBodyBytes] gets 413. There is no authentication, and the package adds
// no CORS headers: the SDK has none, and the HTTP adapter (httpapi) wraps
// this handler with its CORS middleware. That middleware must answer
// OPTIONS preflight requests itself (this handler gives OPTIONS 405) and
// allow the request headers Content-Type, Accept and Mcp-Protocol-Version.
//
// # Results and errors
//
// A tool call runs [tools.Tool.Call] and [tools.Result.Envelope], the code
// path of the HTTP adapter, so a tool answers the same over both: the Result
// object (tool, summary, the tool's fields, notes, disclaimer, terms) is the
// structured content, and the same JSON is the text content. Bad input is a
// tool error (isError true) whose text is the Problem object the HTTP
// adapter sends with its 400: {"error","hint","docs","disclaimer","terms"},
// with error "field: problem". The error result has no structured content,
// because some clients check structured content against the output schema
// even on errors. A failure that is not the client's fault is a tool error
// with a generic message; its detail is logged.
//
// # Prompt and resources
//
// The prompt "predictions" takes the question (required) and optionally how
// it resolves, the resolve-by date and who forecasts. It tells the agent to
// forecast from a base rate, update with the tools, record the forecast in
// the forecast file format, check the file, and treat the result as
// information only.
//
// The resources' URIs are the HTTP addresses of the same documents, so
// they are absolute and can also be fetched without MCP: [SkillURI]
// ({base}/predictions.md, text/markdown, with the default settings) and
// [SettingsURI] ({base}/api/v1/settings, application/json, a Result object).
//
// # Base URL and DNS-rebinding protection
//
// [Options.BaseURL] makes the terms address, docs links and resource URIs.
// Left empty, [Handler] derives it from each request (TLS for the scheme,
// the Host header for the host, or X-Forwarded-Proto and X-Forwarded-Host
// with [Options.TrustProxy], the rule of the HTTP API), which is wrong
// under a path prefix: set it there.
//
// A request that arrives on a loopback address with a Host header that is
// not a loopback name is refused with 403, as the SDK does, to stop DNS
// rebinding. The host of BaseURL and [Options.AllowedHosts] are accepted as
// well, so a reverse proxy on the same machine works once the base URL is
// configured; [Options.DisableDNSRebindingProtection] turns the check off.
//
// # Origin
//
// The transport specification says servers must validate the Origin
// header. A request with one is served when it is a loopback origin (a
// local page, such as an inspector on http://localhost:6274), the
// service's own origin (that of BaseURL, or, when BaseURL is empty, the
// scheme and host the request was sent to if that host is an IP address
// or one of [Options.AllowedHosts]: a name alone could be an attacker's,
// rebound to this server's address, on any listener) or one of
// [Options.AllowedOrigins] ("*" for any); any other, "null" and
// unreadable values included, gets 403. Requests without Origin, as MCP
// clients that are not browsers send, are served. Both 403s carry a
// JSON-RPC error response with no id (code -32000) whose data has a hint.
//
// # JSON-RPC errors
//
// A request for a method the server does not offer gets the JSON-RPC
// error -32601 (Method not found) as its response; the SDK itself answers
// that with HTTP 404 under protocol 2026-07-28, and with a plain-text 400
// before it, which [Handler] turns into the error response (HTTP 200; for
// a notification, HTTP 400 with an error that has no id). Reading a
// resource the server does not have gets -32002 under protocol versions
// up to 2025-11-25 (their Resources page, Error Handling) and -32602 from
// 2026-07-28 on (SEP-2164), with the URI in the error's data.
// logging/setLevel is -32601 too: the server declares no logging
// capability and sends no log messages.
//
// # Protocol versions
//
// initialize negotiates the versions up to 2025-11-25 and answers a newer
// request with 2025-11-25; 2026-07-28, which has server/discover instead,
// is served to clients that send it in MCP-Protocol-Version. Any other
// version in that header is a 400 with a JSON-RPC error naming both.
package mcpserver
