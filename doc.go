// Package predictions is the root of a module for keeping honest, calibrated
// forecasts: teams of AI agents and people write yes/no questions, forecast
// them as probabilities, pool and update their forecasts, and score them once
// the questions resolve.
//
// The root package holds no code; it documents the map of the module.
//
// # Library packages
//
// These import only the standard library (board adds bun) and have no HTTP
// dependency:
//
//   - [github.com/predictions-md/predictions/odds]: parse and format odds in
//     every notation, odds and risk ratios, implied probabilities.
//   - [github.com/predictions-md/predictions/pool]: combine forecasts.
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
//   - [github.com/predictions-md/predictions/httpapi]: the HTTP API, the
//     published descriptions (openapi.json, llms.txt, the manifest) and the
//     board routes.
//   - [github.com/predictions-md/predictions/mcpserver]: the same tools over
//     the Model Context Protocol.
//
// The command github.com/predictions-md/predictions/cmd/predictions wires
// them together: `predictions serve` runs the whole service.
//
// All output is information only; it is not betting, trading, investment,
// financial, legal or tax advice.
package predictions
