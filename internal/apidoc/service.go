package apidoc

import (
	"bytes"

	"github.com/predictions-md/predictions/internal/tools"
)

// Where the published documents are served.
const (
	// ManifestPath is where the manifest is published.
	ManifestPath = "/.well-known/" + tools.Name + ".json"
	// LLMsFullPath is where the full text for agents is published; llms.txt
	// links its sections.
	LLMsFullPath = "/llms-full.txt"
	// MetricsPath is where the Prometheus metrics are served.
	MetricsPath = "/metrics"
)

// jsonType is the media type of the JSON answers.
const jsonType = "application/json"

// Service is what the documents say of a server beyond the calculation
// tools, which they take from tools.All().
type Service struct {
	// Contact is an address (URL or mailto:) where people reach the operator.
	Contact string
	// MCP is true when /mcp is served.
	MCP bool
	// Metrics is true when the metrics are served at [MetricsPath].
	Metrics bool
	// RateLimits describes the rate limits; "" when they are off.
	RateLimits string
	// Board is the board's routes; nil without a board.
	Board Routes
}

// Routes is a set of routes that adds its part to each document: the
// board's (boardapi.API).
type Routes interface {
	// OpenAPI adds the routes' operations, schemas and responses to doc.
	OpenAPI(doc *Doc)
	// Manifest lists the routes for the manifest at base.
	Manifest(base string) []ManifestRoute
	// LLMsLinks writes the routes' list of links for llms.txt, and
	// LLMsFull their sections of llms-full.txt, each headed by the name
	// that the route's Problems link to.
	LLMsLinks(b *bytes.Buffer, base string)
	LLMsFull(b *bytes.Buffer, base string)
}

// Health is the answer of /healthz.
type Health struct {
	Status     string `json:"status" jsonschema:"ok, or unavailable when the board's database does not accept writes"`
	Database   string `json:"database,omitempty" jsonschema:"ok or unavailable; absent without a board"`
	Version    string `json:"version" jsonschema:"the service's version"`
	Time       string `json:"time" jsonschema:"the server's clock, RFC 3339 UTC"`
	Disclaimer string `json:"disclaimer"`
	Terms      string `json:"terms" jsonschema:"address of the terms of service"`
}
