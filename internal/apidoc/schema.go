package apidoc

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// ManifestRoute is one route of the board in the manifest.
type ManifestRoute struct {
	Name            string                        `json:"name"`
	Summary         string                        `json:"summary"`
	Description     string                        `json:"description"`
	Method          string                        `json:"method"`
	URL             string                        `json:"url"`
	Authorization   string                        `json:"authorization"`
	QueryParameters map[string]*jsonschema.Schema `json:"query_parameters,omitempty"`
	InputSchema     *jsonschema.Schema            `json:"input_schema,omitempty"`
	ContentType     string                        `json:"content_type,omitempty"` // a body that is not JSON
	ExampleBody     json.RawMessage               `json:"example_body,omitempty"`
	Statuses        []int                         `json:"statuses"`
	Docs            string                        `json:"docs"`
}

// OpenSchema allows additional properties everywhere: input objects may
// carry unknown fields and response objects may grow.
func OpenSchema(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		OpenSchema(p)
	}
	OpenSchema(s.Items)
}
