// Package tools holds the one definition of each calculation tool of the
// predictions service: its name, title, description, input schema with
// limits, an example input and the handler that runs it.
//
// The HTTP adapter (httpapi), the MCP adapter (mcpserver), openapi.json, the
// /.well-known manifest and llms.txt are all generated from [All], so nothing
// that describes the API is written twice.
//
// # Calling a tool
//
// [Tool.Call] takes the input as a JSON object, validates it against the
// tool's input schema (the limits of the specification live there), decodes
// it into the tool's input type and runs the domain packages. Bad input gives
// an [*InputError] that names the field, says what is wrong and how to fix it.
// Unknown fields are not an error: they are ignored and named in the notes.
//
//	t := tools.Lookup("convert_odds")
//	res, err := t.Call(ctx, []byte(`{"value":"+150"}`))
//	body, err := res.Envelope("https://example.org/terms")
//
// # Results
//
// A [Result] is serialised by [Result.Envelope] into the Result object of
// the specification: tool, summary, the tool's own fields, notes, disclaimer
// and terms. Both adapters use it, so a tool answers the same over HTTP and MCP.
package tools
