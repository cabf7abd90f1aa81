package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// Service facts published by every adapter.
const (
	// Name is the service name: the skill file is /Name.md and the MCP prompt is Name.
	Name = "predictions"
	// Version is the version of the service description (openapi.json info.version and the manifest).
	Version = "1.0"
	// PathPrefix is where the tools live over HTTP: PathPrefix + "/" + tool name.
	PathPrefix = "/api/v1"
	// Disclaimer is carried by every JSON response.
	Disclaimer = "For information only. Not betting, trading, investment, financial, legal or tax advice. " +
		"This service takes no bets, offers no odds, runs no market and moves no money."
	// DraftedSettingsRule is the standing rule about settings an agent drafts.
	DraftedSettingsRule = "Settings drafted by an agent count only after the person says yes: " +
		"show them to the person first and follow them only once the person agrees."
)

// A Tool is the one definition of a calculation tool.
type Tool struct {
	// Name is the tool's name, in snake_case: convert_odds.
	Name string
	// Title is a short human title: "Convert odds".
	Title string
	// Summary is one line for listings (llms.txt, the skill file).
	Summary string
	// Description tells an agent what the tool does and how to fill its
	// input; the adapters publish it unchanged.
	Description string
	// InputSchema is the JSON Schema (2020-12) of the input object,
	// limits included. Adapters must not modify it.
	InputSchema *jsonschema.Schema
	// OutputSchema is the JSON Schema of the Result object the tool returns.
	OutputSchema *jsonschema.Schema
	// Example is an example input object, valid against InputSchema.
	Example json.RawMessage

	validate *validator.Schema
	quick    *quickSchema // nil: every call goes to validate
	// queryKinds tells how FromQuery reads each property.
	queryKinds map[string]queryKind
	run        func(ctx context.Context, raw []byte, notes []string) (*Result, error)
}

// Result is the outcome of a successful call.
type Result struct {
	// Tool is the name of the tool that made it.
	Tool string
	// Summary is one sentence a person can read.
	Summary string
	// Output holds the tool's own fields; it must marshal to a JSON object.
	Output any
	// Notes lists anything clamped, ignored, clipped or guessed.
	Notes []string
}

// Reply collects what a tool handler says besides its output.
type Reply struct {
	// Summary is one sentence a person can read.
	Summary string
	// Notes lists anything clamped, ignored, clipped or guessed.
	Notes []string
}

// Note appends a note.
func (r *Reply) Note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// Call validates raw (a JSON object) against the tool's input schema,
// decodes it and runs the tool. It returns an [*InputError] for bad input;
// any other error is a fault of the service.
func (t *Tool) Call(ctx context.Context, raw []byte) (*Result, error) {
	return t.call(ctx, raw, true)
}

// call is Call; with direct false it never takes the path that reads the
// bytes directly, so that tests can compare the two paths.
func (t *Tool) call(ctx context.Context, raw []byte, direct bool) (*Result, error) {
	// Most inputs are plain, valid and have no unknown fields: they are
	// checked straight from the bytes and decoded once, into the tool's
	// input. The others are decoded for the validator first.
	if direct && t.quick != nil && t.quick.validRaw(raw) {
		return t.run(ctx, raw, nil)
	}
	inst, err := validator.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &InputError{Field: "body", Problem: "is not valid JSON: " + err.Error(),
			Hint: "send one JSON object, for example " + string(t.Example), Err: ErrInput}
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return nil, &InputError{Field: "body", Problem: "is not a JSON object",
			Hint: "send one JSON object, for example " + string(t.Example), Err: ErrInput}
	}
	// The quick check accepts most valid inputs at a fraction of the full
	// validator's cost; the full validator decides (and words the error)
	// whenever the quick check is not certain.
	if t.quick == nil || !t.quick.valid(obj) {
		if err := t.validate.Validate(obj); err != nil {
			return nil, inputErrorFrom(t, err)
		}
	}
	var notes []string
	if hasUnknown(t.InputSchema, obj) {
		notes = unknownFields(t.InputSchema, obj, "")
	}
	return t.run(ctx, raw, notes)
}

// define builds a Tool from its metadata, limits and typed handler; the
// input schema is inferred from In and the limits applied to it.
// It panics on a bad definition: definitions are fixed at compile time and
// checked by the package tests.
func define[In, Out any](t Tool, limits []Limit, example string, run func(ctx context.Context, in *In, r *Reply) (Out, error)) *Tool {
	in, err := schemaFor[In](limits)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: %v", t.Name, err))
	}
	return defineSchema(t, in, example, run)
}

// defineSchema builds a Tool whose input schema is given rather than
// inferred (build_settings, whose fields come from the settings catalog).
func defineSchema[In, Out any](t Tool, in *jsonschema.Schema, example string, run func(ctx context.Context, in *In, r *Reply) (Out, error)) *Tool {
	t.InputSchema = in
	out, err := outputSchemaFor[Out]()
	if err != nil {
		panic(fmt.Sprintf("tools: %s: output: %v", t.Name, err))
	}
	t.OutputSchema = out
	t.validate, err = compile(t.Name, in)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: compile schema: %v", t.Name, err))
	}
	t.quick = compileQuick(in)
	t.queryKinds = queryKinds(in)
	t.Example = json.RawMessage(example)
	name := t.Name
	t.run = func(ctx context.Context, raw []byte, notes []string) (*Result, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, decodeError(err, raw)
		}
		r := &Reply{Notes: notes}
		out, err := run(ctx, &in, r)
		if err != nil {
			return nil, err
		}
		return &Result{Tool: name, Summary: r.Summary, Output: out, Notes: r.Notes}, nil
	}
	if err := t.validate.Validate(mustInstance(example)); err != nil {
		panic(fmt.Sprintf("tools: %s: example does not match the schema: %v", t.Name, err))
	}
	return &t
}

func mustInstance(s string) any {
	v, err := validator.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		panic(err)
	}
	return v
}

var (
	allOnce sync.Once
	all     []*Tool
)

// All returns the seven calculation tools in the order the specification
// lists them. The slice and the tools are shared: do not modify them.
func All() []*Tool {
	allOnce.Do(func() { all = registry() })
	return all
}

// Lookup returns the tool with the given name, or nil.
func Lookup(name string) *Tool {
	for _, t := range All() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Names returns the tool names in order.
func Names() []string {
	var names []string
	for _, t := range All() {
		names = append(names, t.Name)
	}
	return names
}

// Envelope serialises the result as the specification's Result object:
// tool, summary, the output's fields, notes, disclaimer and terms (the
// address of the terms of service).
func (r *Result) Envelope(terms string) ([]byte, error) {
	return r.AppendEnvelope(make([]byte, 0, envelopeSize), terms)
}

// AppendEnvelope appends the envelope that [Result.Envelope] returns to
// dst and returns the extended slice, so that a caller can reuse a
// buffer. On error, dst is returned unchanged.
func (r *Result) AppendEnvelope(dst []byte, terms string) ([]byte, error) {
	notes := r.Notes
	if notes == nil {
		notes = []string{}
	}
	b := bytes.NewBuffer(dst)
	b.WriteString(`{"tool":`)
	writeJSON(b, r.Tool)
	b.WriteString(`,"summary":`)
	writeJSON(b, r.Summary)
	// The output is encoded in place (as json.Marshal would: HTML escaped)
	// and its braces are dropped, so that its fields follow the summary
	// without a copy of their own.
	p := b.Len()
	if err := json.NewEncoder(b).Encode(r.Output); err != nil {
		return dst, err
	}
	buf := b.Bytes()
	out := bytes.TrimSpace(buf[p:]) // the encoder writes no leading space
	if len(out) < 2 || buf[p] != '{' || out[len(out)-1] != '}' {
		return dst, fmt.Errorf("tools: %s output is not a JSON object", r.Tool)
	}
	if inner := bytes.TrimSpace(out[1 : len(out)-1]); len(inner) > 0 {
		buf[p] = ','
		b.Truncate(p + 1 + copy(buf[p+1:], inner))
	} else {
		b.Truncate(p)
	}
	b.WriteString(`,"notes":`)
	writeJSON(b, notes)
	b.WriteString(`,"disclaimer":`)
	writeJSON(b, Disclaimer)
	b.WriteString(`,"terms":`)
	writeJSON(b, terms)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// envelopeSize is the buffer an envelope starts with: enough for most
// results, which are about 1 KB.
const envelopeSize = 2048

func writeJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case string:
		if plainASCII(x) {
			b.WriteByte('"')
			b.WriteString(x)
			b.WriteByte('"')
			return
		}
	case []string:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)       // strings and string slices always encode
	b.Truncate(b.Len() - 1) // Encode adds a newline
}

// plainASCII reports whether s needs no escaping in JSON: printable ASCII
// without quotes or backslashes. Anything else goes through the encoder.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// unknownFields names the fields of inst that the schema does not describe,
// recursing into objects and arrays of objects, as notes.
func unknownFields(s *jsonschema.Schema, inst any, path string) []string {
	var notes []string
	switch v := inst.(type) {
	case map[string]any:
		if s == nil || s.Properties == nil {
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := joinField(path, k)
			ps, ok := s.Properties[k]
			if !ok {
				notes = append(notes, fmt.Sprintf("ignored unknown field %q", p))
				continue
			}
			notes = append(notes, unknownFields(ps, v[k], p)...)
		}
	case []any:
		if s == nil || s.Items == nil {
			return nil
		}
		for i, e := range v {
			notes = append(notes, unknownFields(s.Items, e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return notes
}

// hasUnknown reports whether unknownFields would find anything, without
// allocating.
func hasUnknown(s *jsonschema.Schema, inst any) bool {
	switch v := inst.(type) {
	case map[string]any:
		if s == nil || s.Properties == nil {
			return false
		}
		for k, e := range v {
			ps, ok := s.Properties[k]
			if !ok || hasUnknown(ps, e) {
				return true
			}
		}
	case []any:
		if s == nil || s.Items == nil {
			return false
		}
		for _, e := range v {
			if hasUnknown(s.Items, e) {
				return true
			}
		}
	}
	return false
}

func joinField(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// typeOf is reflect.TypeFor, kept short for schema tables.
func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

type baseURLKey struct{}

// WithBaseURL returns a context that tells the tools the service's base
// URL (scheme and host, no trailing slash), which build_settings writes
// into its link and install command. Adapters set it per request.
func WithBaseURL(ctx context.Context, baseURL string) context.Context {
	return context.WithValue(ctx, baseURLKey{}, baseURL)
}

// BaseURL returns the base URL set by [WithBaseURL], or "".
func BaseURL(ctx context.Context) string {
	s, _ := ctx.Value(baseURLKey{}).(string)
	return s
}

// DocsURL is the address of the published docs for a tool (or another
// section of llms.txt, such as a board route) at baseURL: the llms.txt
// section whose heading is the name. With an empty name it is llms.txt
// itself. Both adapters put it in the docs field of a Problem.
func DocsURL(baseURL, name string) string {
	u := baseURL + "/llms.txt"
	if name != "" {
		u += "#" + name
	}
	return u
}
