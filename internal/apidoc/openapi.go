package apidoc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/internal/tools"
)

// problemSchema describes [Problem].
func problemSchema() *jsonschema.Schema {
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	return &jsonschema.Schema{
		Type:        "object",
		Description: "the body of every error response",
		Properties: map[string]*jsonschema.Schema{
			"error":      str("the field and what is wrong with it: \"value: is required\""),
			"hint":       str("how to fix it, with an example value where one helps"),
			"docs":       str("link to the documentation of the tool"),
			"disclaimer": str("information only; not advice"),
			"terms":      str("address of the terms of service"),
		},
		PropertyOrder: []string{"error", "hint", "docs", "disclaimer", "terms"},
		Required:      []string{"error", "disclaimer", "terms"},
	}
}

// OpenAPI builds the OpenAPI 3.1 description of the service at base.
func OpenAPI(ctx context.Context, base string, svc *Service) *Doc {
	terms := base + "/terms"
	anyObject := &jsonschema.Schema{Type: "object"}
	text := func(mt, d string) Response {
		return Response{Description: d, Content: map[string]Media{mt: {Schema: &jsonschema.Schema{Type: "string"}}}}
	}
	jsonResp := func(d string, schema any, example json.RawMessage) Response {
		return Response{Description: d, Content: map[string]Media{jsonType: {Schema: schema, Example: example}}}
	}
	withDefault := func(m map[string]Response) map[string]Response {
		m["default"] = RespRef("Problem")
		return m
	}
	doc := &Doc{
		OpenAPI: "3.1.0",
		Info: Info{
			Title:          tools.Name,
			Version:        tools.Version,
			Summary:        "Forecast arithmetic for teams of agents and people: odds, pooling, Bayes updates, scoring, forecast files and settings.",
			Description:    serviceDescription + "\n\n" + tools.DraftedSettingsRule + "\n\n" + tools.Disclaimer,
			TermsOfService: terms,
			Contact:        contactFor(svc.Contact),
			License:        License{Name: "BSD-3-Clause", Identifier: "BSD-3-Clause"},
		},
		Servers: []Server{{URL: base}},
		Tags: []Tag{
			{Name: "tools", Description: "stateless calculation tools: GET with query parameters or POST with a JSON body"},
			{Name: "settings", Description: "the settings catalog and the skill file"},
			{Name: "meta", Description: "published descriptions, terms and health"},
		},
		Paths: map[string]PathItem{},
		Components: Components{
			Schemas: map[string]any{"Problem": problemSchema()},
			Responses: map[string]Response{
				"Problem":    jsonResp("an error, as a Problem", SchemaRef("Problem"), nil),
				"BadRequest": jsonResp("bad input: the Problem names the field, what is wrong and how to fix it", SchemaRef("Problem"), nil),
				"TooLarge":   jsonResp("the body is over 64 KB (65536 bytes)", SchemaRef("Problem"), nil),
				"QueryTooLong": jsonResp("the query string is over 64 KB; send the input as a POST body",
					SchemaRef("Problem"), nil),
				"MediaType": jsonResp("the Content-Type is present and not application/json", SchemaRef("Problem"), nil),
			},
		},
		Disclaimer:  tools.Disclaimer,
		Terms:       terms,
		DraftedRule: tools.DraftedSettingsRule,
	}

	for _, t := range tools.All() {
		in, res := t.Name+"_input", t.Name+"_result"
		doc.Components.Schemas[in] = t.InputSchema
		doc.Components.Schemas[res] = t.OutputSchema
		var example json.RawMessage
		if r, err := t.Call(tools.WithBaseURL(ctx, base), t.Example); err == nil {
			if b, err := r.Envelope(terms); err == nil {
				example = b
			}
		}
		ok := jsonResp("the Result", SchemaRef(res), example)
		desc := t.Description + "\n\nGET example: `" + tools.PathPrefix + "/" + t.Name + "?" + exampleQuery(t) + "`"
		doc.Paths[tools.PathPrefix+"/"+t.Name] = PathItem{
			Get: &Operation{
				OperationID: t.Name + "_get", Tags: []string{"tools"}, Summary: t.Title + " (query parameters)",
				Description: desc, Parameters: queryParams(t),
				Responses: withDefault(map[string]Response{"200": ok, "400": RespRef("BadRequest"), "414": RespRef("QueryTooLong")}),
			},
			Post: &Operation{
				OperationID: t.Name, Tags: []string{"tools"}, Summary: t.Title, Description: t.Description,
				RequestBody: &RequestBody{Required: true, Content: map[string]Media{jsonType: {Schema: SchemaRef(in), Example: t.Example}}},
				Responses: withDefault(map[string]Response{"200": ok, "400": RespRef("BadRequest"),
					"413": RespRef("TooLarge"), "415": RespRef("MediaType")}),
			},
		}
	}

	var catalogExample json.RawMessage
	if b, err := tools.SettingsCatalog().Envelope(terms); err == nil {
		catalogExample = b
	}
	doc.Components.Schemas["settings_result"] = tools.SettingsCatalogSchema()
	doc.Paths[tools.PathPrefix+"/settings"] = PathItem{Get: &Operation{
		OperationID: "settings", Tags: []string{"settings"}, Summary: "Settings catalog",
		Description: "Every setting of the skill file with its group, kind, unit, range, options and default, and the presets.",
		Responses:   withDefault(map[string]Response{"200": jsonResp("the catalog, as a Result", SchemaRef("settings_result"), catalogExample)}),
	}}
	skill := text("text/markdown", "the skill file with the given settings written in")
	skill.Headers = map[string]Header{"X-Settings-Notes": {
		Description: "notes on clamped or ignored settings, separated by \"; \"",
		Schema:      &jsonschema.Schema{Type: "string"},
	}}
	doc.Paths["/"+tools.Name+".md"] = PathItem{Get: &Operation{
		OperationID: "skill_file", Tags: []string{"settings"}, Summary: "Skill file",
		Description: "The agents' skill file (Agent Skills layout) with the query's settings written in. " +
			"Out-of-range numbers are clamped and invalid choices ignored, with notes in X-Settings-Notes. " + tools.DraftedSettingsRule,
		Parameters: skillParams(),
		Responses:  withDefault(map[string]Response{"200": skill, "400": RespRef("BadRequest"), "414": RespRef("QueryTooLong")}),
	}}
	meta := func(path, id, summary string, ok Response) {
		doc.Paths[path] = PathItem{Get: &Operation{OperationID: id, Tags: []string{"meta"}, Summary: summary,
			Description: summary + ". Takes no parameters and needs no authorization.",
			Responses:   withDefault(map[string]Response{"200": ok})}}
	}
	meta("/openapi.json", "openapi", "This OpenAPI 3.1 description", jsonResp("the description", anyObject, nil))
	meta("/llms.txt", "llms_txt", "Text for agents (llmstxt.org layout): lists of links to the sections of llms-full.txt", text("text/plain", "llms.txt"))
	meta(LLMsFullPath, "llms_full_txt", "Full text for agents: every tool and board route with its fields, statuses, limits and examples",
		text("text/plain", "llms-full.txt"))
	meta(ManifestPath, "manifest", "Manifest: tools, addresses, input schemas, examples, rules, disclaimer, terms, contact",
		jsonResp("the manifest", described[ManifestDoc](), nil))
	meta("/terms", "terms", "Terms of service", text("text/html", "the terms of service"))
	meta("/", "landing", "Landing page", text("text/html", "the landing page"))
	meta("/healthz", "healthz", "Health check", jsonResp("the server is running", described[Health](), nil))
	if svc.Metrics {
		meta(MetricsPath, "metrics", "Metrics for Prometheus: requests by route and status, latency, rate limiting, database pools",
			text("text/plain", "the metrics in the Prometheus text format"))
	}
	if svc.MCP {
		doc.Paths["/mcp"] = mcpPath(svc.Board != nil)
	}
	if svc.Board != nil {
		svc.Board.OpenAPI(doc)
	}
	if svc.RateLimits != "" { // every operation may meet the per-address limit
		doc.Components.Responses["TooManyRequests"] = Response{Description: "over a rate limit: " + svc.RateLimits,
			Headers: map[string]Header{"Retry-After": {Description: "seconds until a request is allowed again", Schema: &jsonschema.Schema{Type: "integer"}}},
			Content: map[string]Media{jsonType: {Schema: SchemaRef("Problem")}}}
		for _, item := range doc.Paths {
			for _, op := range []*Operation{item.Get, item.Post, item.Delete} {
				if op == nil {
					continue
				}
				if r, ok := op.Responses["429"]; ok && r.Ref != "" {
					// The operation's own 429 (a cap of its own) keeps its
					// text, which also names the rate limits.
					continue
				}
				op.Responses["429"] = RespRef("TooManyRequests")
			}
		}
	}
	markPublic(doc)
	return doc
}

// queryParams describes the tool's input as query parameters: scalars as
// they are, arrays and objects as URL-encoded JSON (a content parameter).
func queryParams(t *tools.Tool) []Parameter {
	var ex map[string]json.RawMessage
	_ = json.Unmarshal(t.Example, &ex)
	var ps []Parameter
	for _, name := range PropertyNames(t.InputSchema) {
		fs := t.InputSchema.Properties[name]
		p := Parameter{Name: name, In: "query", Description: fs.Description, Required: slices.Contains(t.InputSchema.Required, name)}
		if isStructured(fs) {
			p.Content = map[string]Media{jsonType: {Schema: fs, Example: ex[name]}}
		} else {
			p.Schema = withoutNull(fs)
			p.Example = ex[name]
		}
		ps = append(ps, p)
	}
	return ps
}

// withoutNull is a field's schema as a query parameter: a body's null
// means "as if omitted", which a query says by leaving the parameter out;
// the text null is not read as JSON null (?bins=null is a 400).
func withoutNull(fs *jsonschema.Schema) *jsonschema.Schema {
	if !slices.Contains(fs.Types, "null") {
		return fs
	}
	c := *fs
	c.Types = slices.DeleteFunc(slices.Clone(fs.Types), func(t string) bool { return t == "null" })
	if len(c.Types) == 1 {
		c.Type, c.Types = c.Types[0], nil
	}
	return &c
}

// skillParams describes the settings query parameters of the skill file:
// those of build_settings except format.
func skillParams() []Parameter {
	t := tools.Lookup("build_settings")
	if t == nil {
		return nil
	}
	var ps []Parameter
	for _, p := range queryParams(t) {
		if p.Name != "format" {
			p.Required = false
			// Invalid values are ignored with a note, not refused.
			p.Schema, p.Content, p.Example = &jsonschema.Schema{Type: "string", Description: p.Description}, nil, nil
			ps = append(ps, p)
		}
	}
	return ps
}

// isStructured reports whether a field takes an array or an object.
func isStructured(s *jsonschema.Schema) bool {
	ts := append([]string{s.Type}, s.Types...)
	return slices.Contains(ts, "array") || slices.Contains(ts, "object")
}

// exampleQuery writes the tool's example input as a query string.
func exampleQuery(t *tools.Tool) string {
	var ex map[string]json.RawMessage
	if json.Unmarshal(t.Example, &ex) != nil {
		return ""
	}
	q := url.Values{}
	for k, v := range ex {
		var str string
		if json.Unmarshal(v, &str) == nil {
			q.Set(k, str)
		} else {
			q.Set(k, string(v))
		}
	}
	return q.Encode()
}

func contactFor(c string) Contact {
	if e, ok := strings.CutPrefix(c, "mailto:"); ok {
		return Contact{Name: tools.Name, Email: e}
	}
	return Contact{Name: tools.Name, URL: c}
}

// described is the schema of T's fields for a published answer, with
// embedded JSON Schemas (the manifest's input schemas) as open objects.
func described[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[jsonschema.Schema](): {Type: "object", Description: "a JSON Schema"},
		reflect.TypeFor[json.RawMessage]():   {Description: "any JSON value"},
	}})
	if err != nil {
		panic(fmt.Sprintf("apidoc: schema of %T: %v", *new(T), err))
	}
	OpenSchema(s)
	return s
}

// markPublic gives every operation that requires no credentials an explicit
// empty security list (security: []), so that a reader and a linter know it
// is public rather than forgotten.
// mcpPath describes /mcp: the MCP streamable HTTP transport, stateless
// (no Mcp-Session-Id) and answering in JSON, never with an event stream;
// GET and DELETE are 405 (MCP 2025-11-25, Transports). Its messages are
// JSON-RPC 2.0, described by the MCP specification's own schema, not here.
func mcpPath(board bool) PathItem {
	what := "the calculation tools"
	if board {
		what += " and the board routes whose section of llms-full.txt names an MCP tool"
	}
	rpc := &jsonschema.Schema{Type: "object", Description: "a JSON-RPC 2.0 message of the Model Context Protocol: a request, a notification or a response"}
	rpcResp := func(d string) Response {
		return Response{Description: d, Content: map[string]Media{jsonType: {Schema: rpc}}}
	}
	plain := func(d string) Response {
		return Response{Description: d, Content: map[string]Media{"text/plain": {Schema: &jsonschema.Schema{Type: "string"}}}}
	}
	return PathItem{Post: &Operation{
		OperationID: "mcp", Tags: []string{"meta"}, Summary: "MCP endpoint (streamable HTTP, stateless)",
		Description: "The Model Context Protocol over the streamable HTTP transport: " + what + " as MCP tools, the skill file and the settings catalog " +
			"as resources, and the predictions prompt. Stateless: every POST stands alone (no initialize needed, no Mcp-Session-Id) and is answered in JSON. " +
			"initialize negotiates protocol versions up to 2025-11-25; 2026-07-28 is served to clients that send it in MCP-Protocol-Version. " +
			"A request whose Origin is not the service's own, a loopback one or an allowed one is a 403, as is a loopback connection naming another Host.",
		Parameters: []Parameter{{Name: "MCP-Protocol-Version", In: "header", Description: "the protocol version of the session, after initialize",
			Schema: &jsonschema.Schema{Type: "string"}}},
		RequestBody: &RequestBody{Required: true, Content: map[string]Media{jsonType: {Schema: rpc,
			Example: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}}},
		Responses: map[string]Response{
			"default": RespRef("Problem"), // the server's own answers around the MCP handler: 429, 500
			"200":     rpcResp("the JSON-RPC response, a result or an error"),
			"202":     {Description: "a notification or a response was accepted; no body"},
			"400": {Description: "the transport cannot take the message: a JSON-RPC error with no id, or the SDK's reason in plain text",
				Content: map[string]Media{jsonType: {Schema: rpc}, "text/plain": {Schema: &jsonschema.Schema{Type: "string"}}}},
			"403": rpcResp("the Origin or Host is not allowed: a JSON-RPC error with no id and a hint"),
			"404": rpcResp("from protocol 2026-07-28 on, a method the server does not offer (-32601)"),
			"413": plain("the body is over 1 MB"),
			"415": plain("the Content-Type is not application/json"),
		},
	}}
}

func markPublic(doc *Doc) {
	for _, item := range doc.Paths {
		for _, op := range []*Operation{item.Get, item.Post, item.Delete} {
			if op != nil && op.Security == nil {
				op.Security = []map[string][]string{}
			}
		}
	}
}
