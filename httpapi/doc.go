// Package httpapi is the HTTP adapter of the predictions service, built on
// gorilla/mux. It serves every calculation tool of
// [github.com/predictions-md/predictions/internal/tools] under /api/v1/<tool>
// (GET with query parameters, POST with a JSON body), the settings catalog,
// the skill file and the published descriptions, all generated from
// tools.All(): nothing describing the API is written twice.
//
//	srv := httpapi.New(httpapi.Options{BaseURL: "https://predictions.example.org"})
//	http.ListenAndServe("127.0.0.1:8080", srv)
//
// # Routes
//
//   - GET, POST /api/v1/<tool>: the tool's Result (200) or a [Problem].
//   - GET /api/v1/settings: the settings catalog, as a Result.
//   - GET /predictions.md: the skill file with the query's settings written
//     in (text/markdown); notes on clamped or ignored settings in the
//     X-Settings-Notes header, separated by "; ".
//   - GET /openapi.json (OpenAPI 3.1), /llms.txt (llmstxt.org layout, one
//     section per tool: Problems link to /llms.txt#<tool>), [ManifestPath],
//     /terms, / (a landing page) and /healthz.
//   - /mcp: [Options.MCP], when set.
//   - The agent board under [BoardPrefix] (/api/predictions, /api/agents,
//     /api/stats, /api/inbound/email), when [Options.Board] is set: one
//     route table in board.go registers the routes and feeds openapi.json,
//     the manifest and llms.txt.
//
// # Board authentication
//
// POST routes need Authorization: Bearer <agent_id>, equal to the body's
// agent_id: missing or malformed is 401 with WWW-Authenticate, a different
// agent_id is 403. The order of checks is: the header (401), the id in the
// path (404), the body (413, 415, 400), the agent (403), then validation
// (400). Resolving and POST /api/inbound/email (a raw message/rfc822 body
// of at most [MaxMessageBytes], what `predictions mail` reads on stdin)
// need Authorization: Bearer <moderator token>, compared in constant time;
// without a configured token they answer 403 with a hint naming
// --moderator-token. An e-mail that cannot be read is 400; one read but
// not recordable (unknown sender, no prediction named, an auto-reply) is
// 422; a prediction that is not on the board 404. A registered e-mail
// address taken by another agent is 409. Ids that cannot exist (not a UUID, not an
// agent id) are 404 without a query.
//
// HEAD is answered wherever GET is. OPTIONS is answered 204 with Allow and
// the CORS headers on every known path.
//
// # Errors
//
// Handlers return errors; one function writes them. [StatusOf] maps an
// error to its status through one table in errors.go: bad input (a
// [tools.InputError] or an [*Error] wrapping [ErrBadRequest]) is 400,
// [ErrNotFound] 404, [ErrMethodNotAllowed] 405 (with Allow), [ErrTooLarge]
// 413 (body over [MaxBodyBytes]), [ErrQueryTooLong] 414 (query over
// [MaxQueryBytes]: use POST), [ErrMediaType] 415 (a Content-Type that is
// present and not application/json; charset utf-8 is allowed). Anything
// else is a 500 whose detail is only logged. Every error body is a
// [Problem] with error, hint, docs, disclaimer and terms.
//
// A POST body must be exactly one JSON object: trailing data, another JSON
// value and a key repeated in any object at any depth are 400s naming the
// field. Duplicate keys inside URL-encoded JSON query values are refused
// the same way.
//
// # Middleware
//
// Request ID (X-Request-Id: the client's if it is 1 to 64 plain
// characters, else a new UUIDv7), one log line per request, panic recovery
// into a 500 Problem and open CORS wrap the whole router, so they also
// cover 404s, 405s and preflights.
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
