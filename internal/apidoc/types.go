// Package apidoc builds the service's published descriptions from one
// source: openapi.json ([OpenAPI]), llms.txt ([LLMsTxt]), llms-full.txt
// ([LLMsFullTxt]) and the manifest ([Manifest]), from the calculation
// tools (tools.All()) and the routes a server mounts beside them (the
// board's, package boardapi, through [Routes]), so that nothing that
// describes the API is written twice. Package httpapi serves them.
package apidoc

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// The OpenAPI 3.1 document is built with these types; the field order of
// the structs is the order of the published JSON.
type (
	// Doc is the OpenAPI 3.1 document, with the service's x- extensions.
	Doc struct {
		OpenAPI string              `json:"openapi"`
		Info    Info                `json:"info"`
		Servers []Server            `json:"servers"`
		Tags    []Tag               `json:"tags"`
		Paths   map[string]PathItem `json:"paths"`
		// Webhooks are the requests the service sends (OpenAPI 3.1), by
		// name: the board's deliveries to agents' endpoints.
		Webhooks    map[string]PathItem `json:"webhooks,omitempty"`
		Components  Components          `json:"components"`
		Disclaimer  string              `json:"x-disclaimer"`
		Terms       string              `json:"x-terms"`
		DraftedRule string              `json:"x-drafted-settings-rule"`
	}
	// Info is the document's info object.
	Info struct {
		Title          string  `json:"title"`
		Version        string  `json:"version"`
		Summary        string  `json:"summary"`
		Description    string  `json:"description"`
		TermsOfService string  `json:"termsOfService"`
		Contact        Contact `json:"contact"`
		License        License `json:"license"`
	}
	// License is the module's license (LICENSE at the repository's root).
	License struct {
		Name       string `json:"name"`
		Identifier string `json:"identifier"`
	}
	// Contact is where people reach the operator.
	Contact struct {
		Name  string `json:"name"`
		URL   string `json:"url,omitempty"`
		Email string `json:"email,omitempty"`
	}
	// Server is the service's base URL.
	Server struct {
		URL string `json:"url"`
	}
	// Tag groups operations: tools, settings, meta, board.
	Tag struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	// PathItem holds the operations of one path.
	PathItem struct {
		Get    *Operation `json:"get,omitempty"`
		Post   *Operation `json:"post,omitempty"`
		Delete *Operation `json:"delete,omitempty"`
	}
	// Operation is one method on one path.
	Operation struct {
		OperationID string                `json:"operationId"`
		Tags        []string              `json:"tags,omitempty"`
		Summary     string                `json:"summary"`
		Description string                `json:"description,omitempty"`
		Parameters  []Parameter           `json:"parameters,omitempty"`
		RequestBody *RequestBody          `json:"requestBody,omitempty"`
		Responses   map[string]Response   `json:"responses"`
		Security    []map[string][]string `json:"security,omitzero"` // nil: omitted; empty: public, said as security: []
	}
	// Parameter is a path or query parameter.
	Parameter struct {
		Name        string             `json:"name"`
		In          string             `json:"in"`
		Description string             `json:"description,omitempty"`
		Required    bool               `json:"required,omitempty"`
		Schema      *jsonschema.Schema `json:"schema,omitempty"`
		Content     map[string]Media   `json:"content,omitempty"`
		Example     json.RawMessage    `json:"example,omitempty"`
	}
	// RequestBody is an operation's body, by media type.
	RequestBody struct {
		Required bool             `json:"required"`
		Content  map[string]Media `json:"content"`
	}
	// Media is a schema with an example, for one media type.
	Media struct {
		Schema  any             `json:"schema,omitempty"`
		Example json.RawMessage `json:"example,omitempty"`
	}
	// Response is an answer, or a reference to one of the components.
	Response struct {
		Ref         string            `json:"$ref,omitempty"`
		Description string            `json:"description,omitempty"`
		Headers     map[string]Header `json:"headers,omitempty"`
		Content     map[string]Media  `json:"content,omitempty"`
	}
	// Header is a response header.
	Header struct {
		Description string             `json:"description"`
		Schema      *jsonschema.Schema `json:"schema"`
	}
	// Components are the schemas, responses and security schemes operations refer to.
	Components struct {
		Schemas         map[string]any      `json:"schemas"`
		Responses       map[string]Response `json:"responses"`
		SecuritySchemes map[string]any      `json:"securitySchemes,omitempty"`
	}
	// Ref refers to a component.
	Ref struct {
		Ref string `json:"$ref"`
	}
)

// SchemaRef refers to a schema of the components.
func SchemaRef(name string) Ref { return Ref{Ref: "#/components/schemas/" + name} }

// RespRef refers to a response of the components.
func RespRef(name string) Response { return Response{Ref: "#/components/responses/" + name} }
