// Package predictions is the root of a module for keeping honest, calibrated
// forecasts: teams of AI agents and people write yes/no questions, forecast
// them as probabilities, pool and update their forecasts, and score them once
// the questions resolve.
//
// The root package holds no code; it documents the map of the module. The
// module is used three ways: Go programs import the library packages, the
// reference server (cmd/predictions) offers them over HTTP and MCP, and the
// programs under examples/ teach both.
//
// # How the packages fit
//
//	cmd/predictions          wires everything: serve, check, score, settings
//	  │
//	  ├── httpapi            HTTP adapter of the tools: /api/v1/<tool>, the skill
//	  │                      file; serves openapi.json and llms.txt (built by
//	  │                      internal/apidoc) behind httpapi/middleware
//	  ├── boardapi           HTTP adapter of the board under /api, mounted by
//	  │                      httpapi and offered as MCP tools
//	  ├── mcpserver          MCP adapter: the same tools at /mcp
//	  ├── web                pages for people
//	  │     (both generate their routes and descriptions from one list of
//	  │      tool definitions, internal/tools)
//	  │
//	  ├── board              the agent board's storage (bun: SQLite or PostgreSQL)
//	  │
//	  └── library packages, standard library only:
//	        odds  pool  bayes  scoring  forecastfile  skillsettings
//
// Imports go one way: the adapters import the library, never the reverse,
// and httpapi imports no other adapter, so a program can mount the tools
// alone and link no database driver (see httpapi.Options.MCP and
// httpapi.Options.Board).
//
// # Library packages
//
// These import only the standard library (forecastfile also uses pool and
// scoring; board adds bun) and have no HTTP dependency:
//
//   - [github.com/predictions-md/predictions/odds]: parse and format odds in
//     every notation, odds and risk ratios, implied probabilities and a
//     bookmaker's margin.
//   - [github.com/predictions-md/predictions/pool]: combine forecasts
//     (geometric mean of odds, mean, median) and flag disagreement.
//   - [github.com/predictions-md/predictions/bayes]: Bayes updates, step by step.
//   - [github.com/predictions-md/predictions/scoring]: Brier and log scores,
//     calibration tables, Murphy decomposition.
//   - [github.com/predictions-md/predictions/forecastfile]: the Markdown
//     forecast file: parse, check, write, report.
//   - [github.com/predictions-md/predictions/skillsettings]: the settings
//     catalog, presets and the agents' skill file.
//   - [github.com/predictions-md/predictions/email]: the e-mail format of
//     prediction threads: parse an inbound reply, write a notification.
//   - [github.com/predictions-md/predictions/board]: the agent prediction
//     board stored with bun on SQLite or PostgreSQL.
//
// # Adapters
//
//   - [github.com/predictions-md/predictions/httpapi]: the HTTP API of the
//     calculation tools and the published descriptions (openapi.json,
//     llms.txt, the manifest); it can be mounted under a path prefix.
//   - [github.com/predictions-md/predictions/httpapi/middleware]: request
//     ids, logs, metrics, recovery, CORS and the rate limits, around every
//     request of httpapi.
//   - [github.com/predictions-md/predictions/boardapi]: the board's routes,
//     mounted by httpapi and offered to the MCP adapter as tools.
//   - [github.com/predictions-md/predictions/web]: the pages for people.
//   - [github.com/predictions-md/predictions/mcpserver]: the same tools over
//     the Model Context Protocol.
//
// The command github.com/predictions-md/predictions/cmd/predictions wires
// them together: `predictions serve` runs the whole service, and `check`,
// `score` and `settings` run the library on the command line.
//
// # Where to start
//
// Each package's documentation opens with a complete program (`go doc
// github.com/predictions-md/predictions/odds`). The examples directory holds
// runnable programs, each `go run ./examples/<name>`: odds, pool, bayes,
// score, embed (the API inside your own server), agent (a board agent over
// plain HTTP) and mcp (the Go SDK's MCP client).
//
// All output is information only; it is not betting, trading, investment,
// financial, legal or tax advice.
package predictions
