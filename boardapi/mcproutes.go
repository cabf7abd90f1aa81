package boardapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/tools"
)

// MCPRoutes returns the board routes that the MCP adapter offers as tools
// (those of the route table with a tool name), nil without a board. Each
// is described from its one definition in the route table and called
// through the router of the server that mounted the API (httpapi.New with
// Options.Board): the same authentication (the MCP request's
// Authorization header, in id or key mode), validation, agent rate limits
// and answers as over HTTP. The routes may be taken before the server is
// built, but are called only through it. cmd/predictions passes them to
// mcpserver.Options.Routes.
func (s *API) MCPRoutes() []tools.Route {
	if s.opt.Store == nil {
		return nil
	}
	var out []tools.Route
	for _, br := range boardTable() {
		if !br.mcp {
			continue
		}
		out = append(out, tools.Route{
			Name:        br.name,
			Title:       br.summary,
			Description: s.toolDescription(br),
			InputSchema: toolInput(br),
			ReadOnly:    br.method == http.MethodGet,
			Call: func(ctx context.Context, args json.RawMessage, header http.Header) (int, []byte) {
				return s.callRoute(ctx, br, args, header)
			},
		})
	}
	return out
}

// toolDescription is the route's description for an MCP client, with how
// the tool authenticates.
func (s *API) toolDescription(br *boardRoute) string {
	d := br.summary + ". " + br.description
	switch br.auth {
	case authAgent:
		d += " Over MCP, " + br.authText(s.opt.Auth) + " is a header of the MCP connection: set it where your client configures this server " +
			`(for example "headers": {"Authorization": "Bearer forecaster-7"} in .mcp.json).`
	case authModerator:
		d += " Over MCP, the moderator token is the Authorization header of the MCP connection."
	}
	if br.takesKey() {
		d += " To retry safely, send an Idempotency-Key header with the MCP request that calls the tool (a fresh key per write, the same one on a retry): " +
			"the same call again within 24 h of a success writes nothing and returns the first result, as does the same write retried over HTTP with the key; the key with other arguments is an error; a refused call keeps no key."
	}
	return d
}

// toolInput is the tool's input schema: {id}, the query parameters and
// the body's fields in one object. The route's schemas are shared, not
// copied, and never modified.
func toolInput(br *boardRoute) *jsonschema.Schema {
	in := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	add := func(name string, s *jsonschema.Schema) {
		in.Properties[name] = s
		in.PropertyOrder = append(in.PropertyOrder, name)
	}
	if br.idParam != "" {
		add("id", &jsonschema.Schema{Type: "string", Description: br.idParam})
		in.Required = append(in.Required, "id")
	}
	for _, p := range br.params {
		add(p.name, p.schema)
	}
	if b := br.body; b != nil {
		names := b.PropertyOrder
		for name := range b.Properties {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		slices.Sort(names[len(b.PropertyOrder):])
		for _, name := range names {
			add(name, b.Properties[name])
		}
		in.Required = append(in.Required, b.Required...)
	}
	return in
}

// callRoute runs br with the tool's arguments as the HTTP route would run
// a request: {id} from "id", the other arguments as the query of a GET or
// the JSON body of a POST. The request goes to the router, not through
// the middleware, which the MCP request itself has passed (request id,
// log line, metrics, the per-address limit); the agent's limit is taken
// by the route. The answer's links use the base URL of ctx (set by the
// MCP adapter with tools.WithBaseURL).
func (s *API) callRoute(ctx context.Context, br *boardRoute, args json.RawMessage, header http.Header) (int, []byte) {
	fields := map[string]json.RawMessage{}
	if a := bytes.TrimSpace(args); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
		if err := json.Unmarshal(a, &fields); err != nil {
			return s.callProblem(ctx, br, &httpio.Error{Field: "arguments", Err: httpio.ErrBadRequest, Problem: "is not a JSON object",
				Hint: "send the tool's arguments as one object, such as {\"id\": \"" + examplePredictionID + "\"}"})
		}
	}
	path := br.path
	if br.idParam != "" {
		var id string
		raw, ok := fields["id"]
		if !ok || json.Unmarshal(raw, &id) != nil {
			return s.callProblem(ctx, br, &httpio.Error{Field: "id", Err: httpio.ErrBadRequest, Problem: "is required, as a string",
				Hint: "send the id as the board returned it, such as \"" + examplePredictionID + "\""})
		}
		delete(fields, "id")
		path = strings.Replace(path, "{id}", url.PathEscape(id), 1)
	}
	var body io.Reader
	if br.method == http.MethodGet {
		q := url.Values{}
		for k, raw := range fields {
			var str string
			if json.Unmarshal(raw, &str) == nil {
				q.Set(k, str)
			} else {
				q.Set(k, string(bytes.TrimSpace(raw)))
			}
		}
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
	} else {
		b, err := json.Marshal(fields)
		if err != nil { // cannot happen: raw values decoded from JSON
			return s.callProblem(ctx, br, err)
		}
		body = bytes.NewReader(b)
	}
	r, err := http.NewRequestWithContext(ctx, br.method, path, body)
	if err != nil {
		return s.callProblem(ctx, br, &httpio.Error{Field: "id", Err: httpio.ErrBadRequest, Problem: "cannot be part of a path", Hint: "send the id as the board returned it"})
	}
	if body != nil {
		r.Header.Set("Content-Type", httpio.JSONType)
	}
	for _, h := range []string{"Authorization", IdempotencyHeader} { // the headers a route reads
		if v := header.Values(h); len(v) > 0 {
			r.Header[h] = v
		}
	}
	w := &bufferWriter{header: http.Header{}}
	s.router.ServeHTTP(w, r)
	return w.status, w.body.Bytes()
}

// callProblem answers a tool call that could not become a request.
func (s *API) callProblem(ctx context.Context, br *boardRoute, err error) (int, []byte) {
	r, _ := http.NewRequestWithContext(ctx, br.method, br.path, nil)
	w := &bufferWriter{header: http.Header{}}
	s.host.Handle(func(http.ResponseWriter, *http.Request) error { return err }).ServeHTTP(w, r)
	return w.status, w.body.Bytes()
}

// bufferWriter is the http.ResponseWriter of an in-process call.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
