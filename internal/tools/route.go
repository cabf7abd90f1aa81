package tools

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Route is a route of the HTTP API offered as an MCP tool: the agent
// board's routes, whose one definition (httpapi's route table) makes
// both. The HTTP adapter builds them and the MCP adapter serves them, so
// that an agent on either door calls the same code under the same rules.
type Route struct {
	// Name is the MCP tool's name, such as "post_forecast".
	Name string
	// Title is a short name for people.
	Title string
	// Description says what the route does, its rules and how it
	// authenticates.
	Description string
	// InputSchema is the tool's arguments: the route's {id}, query
	// parameters and body fields in one object.
	InputSchema *jsonschema.Schema
	// ReadOnly is true for a route that only reads (a GET).
	ReadOnly bool
	// Call runs the route with the tool's arguments (a JSON object) and
	// the headers of the MCP request (nil when it has none; the route
	// reads Authorization and Idempotency-Key), and returns the HTTP
	// status and the JSON body the route answers: an envelope for a 2xx,
	// else a [Problem].
	Call func(ctx context.Context, args json.RawMessage, header http.Header) (status int, body []byte)
}
