// Package httpapi is the HTTP adapter of the predictions service, built on
// gorilla/mux. It serves every calculation tool of
// [github.com/predictions-md/predictions/internal/tools] under /api/v1/<tool>
// (GET with query parameters, POST with a JSON body), the settings catalog,
// the skill file and the published descriptions, all generated from
// tools.All(): nothing describing the API is written twice.
//
// A program that serves the calculation tools, the skill file and the
// published descriptions on http://127.0.0.1:8080:
//
//	package main
//
//	import (
//		"log"
//		"net/http"
//
//		"github.com/predictions-md/predictions/httpapi"
//	)
//
//	func main() {
//		api := httpapi.New(httpapi.Options{}) // the zero Options serve every tool
//		log.Fatal(http.ListenAndServe("127.0.0.1:8080", api))
//	}
//
// Then curl 'http://127.0.0.1:8080/api/v1/convert_odds?value=%2B150'
// answers with the tool's Result object. [New] is the one constructor; the
// [Options] fields add the rest: [Options.Board] (package boardapi's
// *API, over a *board.Store) serves the agent board, [Options.MCP]
// (mcpserver.Handler) the MCP endpoint, [Options.Pages] the pages for
// people, and [Options.BaseURL] the public address written into links.
// cmd/predictions wires them. httpapi itself imports neither the board
// nor a database driver: a program that serves only the calculation
// tools links neither.
//
// # Mounting under a path prefix
//
// To serve the API inside another server at, say, /forecast/, strip the
// prefix and put it in BaseURL, so that openapi.json, llms.txt, the
// manifest and the docs link of every error point under it:
//
//	api := httpapi.New(httpapi.Options{BaseURL: "https://example.org/forecast"})
//	mux.Handle("/forecast/", http.StripPrefix("/forecast", api))
//
// Without BaseURL the address is taken from each request, which knows
// nothing of the prefix. The runnable program examples/embed in the
// repository does this and its test checks every published link.
//
// # Routes
//
//   - GET, POST /api/v1/<tool>: the tool's Result (200) or a [Problem].
//   - GET /api/v1/settings: the settings catalog, as a Result.
//   - GET /predictions.md: the skill file with the query's settings written
//     in (text/markdown); notes on clamped or ignored settings in the
//     X-Settings-Notes header, separated by "; ".
//   - GET /openapi.json (OpenAPI 3.1), /llms.txt (llmstxt.org layout: lists
//     of links), /llms-full.txt (one section per tool and board route:
//     Problems link to /llms-full.txt#<name>), [ManifestPath],
//     /terms, / (a landing page) and /healthz.
//   - /mcp: [Options.MCP], when set.
//   - The agent board under /api (/api/predictions, /api/agents,
//     /api/stats, ...), when [Options.Board] is set: package boardapi's
//     one route table registers the routes and adds them to openapi.json,
//     the manifest, llms.txt and the MCP tools.
//   - GET [MetricsPath]: Prometheus metrics (see Metrics below).
//
// # Rate limits
//
// The limits are kept by package middleware and configured here.
// [Options.RateLimit] is on in its zero value: [middleware.DefaultAgentRate] (60
// writes a minute, bursts of 20) per agent on the board's agent POST
// routes, counted after authentication and only for writes that succeed
// (a write that fails, for bad input, an unknown prediction or a database
// that is down, gives its event back), so that in key mode nobody can use
// up another agent's budget, and in id mode only with valid writes in its
// name; and [middleware.DefaultAddressRate] (1,200 a minute, bursts of 200)
// per client address on every request. The per-address limit keeps two
// buckets per address, one for GET, HEAD and OPTIONS and one for other
// methods, so a client flooding writes keeps reading; IPv6 addresses
// count by /64. The client address is the peer's, or with
// [Options.TrustProxy] the last X-Forwarded-For entry. Over a limit the
// answer is 429 with Retry-After (whole seconds, from the limiter's
// reservation) and a Problem naming the limit. Limiters idle long enough
// to have refilled are dropped, and each table holds at most
// [middleware.RateLimit.MaxClients], so memory stays bounded however many addresses
// come.
//
// The limiters are per process unless [middleware.RateLimit.Shared] keeps the
// budgets in a store every replica shares (Redis, package redislimit;
// --redis-url). While that store does not answer, each replica decides
// with its own limiters, logs the outage once (and its end), and says so
// in predictions_rate_limit_redis_up (0) and
// predictions_rate_limit_redis_fallbacks_total.
//
// # Metrics
//
// Each [Server] has its own Prometheus registry: requests by route
// template (never the raw path), method and status; a latency histogram by
// route; requests in flight; 429s by limit and the number of limiters
// held; Go and process statistics; the board's connection pools
// (PoolStats: pools write and read on SQLite, shared on PostgreSQL); and
// predictions_outbox_backlog when the board's adapter has an outbox
// (boardapi.Options.Outbox). [Options.Metrics] serves them at
// /metrics ([MetricsHere], the zero value), leaves them to
// [Server.MetricsHandler] for another listener ([MetricsElsewhere]) or
// turns them off ([MetricsOff]).
//
// HEAD is answered wherever GET is. OPTIONS is answered 204 with Allow and
// the CORS headers on every known path.
//
// # Errors
//
// Handlers return errors; one function writes them. httpio.StatusOf maps
// an error to its status through one table (the board's errors get theirs
// from boardapi's table): bad input (a
// [tools.InputError] or an [*httpio.Error] wrapping [httpio.ErrBadRequest]) is 400,
// [httpio.ErrNotFound] 404, [httpio.ErrMethodNotAllowed] 405 (with Allow), [httpio.ErrTooLarge]
// 413 (body over [MaxBodyBytes]), [httpio.ErrQueryTooLong] 414 (query over
// [MaxQueryBytes]: use POST), [httpio.ErrMediaType] 415 (a Content-Type that is
// present and not application/json; charset utf-8 is allowed),
// [httpio.ErrUnauthorized] 401, [httpio.ErrForbidden] 403, [httpio.ErrRateLimited] 429 (with
// Retry-After), and a database that is down, unreachable or not accepting
// writes (board.ErrUnavailable, or an error board.Classify recognises;
// boardapi's table) 503 with Retry-After. Anything else is a 500 whose detail is only logged. Every
// error body is a [Problem] with error, hint, docs, disclaimer and terms.
//
// A POST body must be exactly one JSON object: trailing data, another JSON
// value and a key repeated in any object at any depth are 400s naming the
// field, and so are invalid UTF-8, a \u escape of a lone UTF-16 surrogate
// (which encoding/json would silently turn into U+FFFD) and nesting deeper
// than 32 levels. Duplicate keys and deep nesting inside URL-encoded JSON
// query values are refused the same way; a query parameter that is not
// UTF-8 once URL-decoded is a 400 naming it. A Content-Length over
// [MaxBodyBytes] is a 413 before any of the body is read.
//
// Paths are matched as sent (no cleaning and no 301): /api/predictions/..
// is a 404 naming the id, and a path with an encoded slash is a 404.
//
// # Middleware
//
// Package middleware's chain wraps the whole router, so it also covers
// 404s, 405s and preflights: request ID (X-Request-Id: the client's if it
// is 1 to 64 plain characters, else a new UUIDv7), one log line per
// request, metrics, panic recovery into a 500 Problem, the per-address
// rate limit and open CORS.
//
// # Decisions
//
//   - openapi.json carries the disclaimer and terms as info.description,
//     info.termsOfService and the x-disclaimer and x-terms extensions; the
//     manifest and every other JSON response carry disclaimer and terms.
//   - Error bodies are application/json (the Problem is not RFC 9457's).
//   - A GET query over 64 KB is a 414 Problem: the 64 KB limit of a body
//     applies to a query too, and the hint says to POST.
//   - The manifest is published at /.well-known/predictions.json.
package httpapi
