package tools

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/google/jsonschema-go/jsonschema"
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
	Example stdjson.RawMessage

	// queryKinds tells how FromQuery reads each property.
	queryKinds map[string]queryKind
	run        func(ctx context.Context, raw []byte) (*Result, error)
	check      func(raw []byte) ([]string, error)
	decode     func(raw []byte) ([]string, error)
}

// Result is the outcome of a successful call.
type Result struct {
	// Tool is the name of the tool that made it. Empty (an answer of the
	// board rather than of a tool) leaves the tool field out.
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

// Call decodes raw (a JSON object) into the tool's input with [Decode],
// checks it against the limits of the tool's input schema and runs the
// tool. It returns an [*InputError] for bad input; any other error is a
// fault of the service.
func (t *Tool) Call(ctx context.Context, raw []byte) (*Result, error) {
	return t.run(ctx, raw)
}

// Check decodes raw and checks it against the tool's limits as Call does,
// without running the tool: nil means the input schema's limits hold. It
// returns the notes naming unknown fields.
func (t *Tool) Check(raw []byte) (notes []string, err error) {
	return t.check(raw)
}

// Decode decodes raw into the tool's input with [Decode] as Call does,
// without checking its limits or running the tool: the part of a call
// that is the JSON library's. It returns the notes naming unknown fields.
func (t *Tool) Decode(raw []byte) (notes []string, err error) {
	return t.decode(raw)
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
	t.queryKinds = queryKinds(in)
	t.Example = stdjson.RawMessage(example)
	check := validatorFor(reflect.TypeFor[In](), in)
	name := t.Name
	read := func(raw []byte, in *In) ([]string, error) {
		notes, err := decode(raw, in, t.InputSchema, t.Example)
		if err != nil {
			return nil, err
		}
		if err := validate(check, unsafe.Pointer(in), raw, t.Example); err != nil {
			return nil, err
		}
		return notes, nil
	}
	t.check = func(raw []byte) ([]string, error) {
		var in In
		return read(raw, &in)
	}
	t.decode = func(raw []byte) ([]string, error) {
		var in In
		return decode(raw, &in, t.InputSchema, t.Example)
	}
	t.run = func(ctx context.Context, raw []byte) (*Result, error) {
		var in In
		notes, err := read(raw, &in)
		if err != nil {
			return nil, err
		}
		r := &Reply{Notes: notes}
		out, err := run(ctx, &in, r)
		if err != nil {
			return nil, err
		}
		return &Result{Tool: name, Summary: r.Summary, Output: &out, Notes: r.Notes}, nil
	}
	if _, err := t.run(context.Background(), []byte(example)); err != nil {
		panic(fmt.Sprintf("tools: %s: example fails: %v", t.Name, err))
	}
	return &t
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
//
// The envelope is written with JSON v2 (github.com/go-json-experiment/json,
// the library that reads every input): the output is appended after the
// summary as an object (see marshalAppend), whose braces then give way to
// the envelope's comma and the notes.
func (r *Result) AppendEnvelope(dst []byte, terms string) ([]byte, error) {
	start := len(dst)
	b := dst
	if r.Tool != "" {
		b = appendText(append(b, `{"tool":`...), r.Tool)
		b = append(b, `,"summary":`...)
	} else {
		b = append(b, `{"summary":`...)
	}
	b = appendText(b, r.Summary)
	at := len(b)
	b, err := marshalAppend(b, r.Output, outputOptions)
	if err != nil {
		return dst[:start], err
	}
	if len(b)-at < 2 || b[at] != '{' || b[len(b)-1] != '}' {
		return dst[:start], fmt.Errorf("tools: %s output is not a JSON object", r.Tool)
	}
	if len(b)-at == 2 { // {}: no fields
		b = b[:at]
	} else {
		b[at] = ','
		b = b[:len(b)-1]
	}
	b = append(b, `,"notes":[`...)
	for i, n := range r.Notes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendText(b, n)
	}
	b = appendText(append(b, `],"disclaimer":`...), Disclaimer)
	b = appendText(append(b, `,"terms":`...), terms)
	return append(b, '}'), nil
}

// outputOptions write a tool's output as every answer has been written
// (by encoding/json, whose bytes the clients and the golden files know):
// <, > and & escaped, and U+2028 and U+2029; nil slices and maps as null;
// map keys sorted; omitempty leaving out false, 0, nil and empty values;
// the escapes in what a MarshalJSON method returns kept as it wrote them;
// invalid UTF-8, which no input carries (the decoder refuses it), written
// as U+FFFD rather than refused.
var outputOptions = json.JoinOptions(
	jsontext.EscapeForHTML(true),
	jsontext.EscapeForJS(true),
	json.FormatNilSliceAsNull(true),
	json.FormatNilMapAsNull(true),
	json.Deterministic(true),
	jsonv1.OmitEmptyWithLegacySemantics(true),
	jsontext.AllowInvalidUTF8(true),
	jsontext.PreserveRawStrings(true),
)

// plainOptions are outputOptions without HTML escaping: the envelope's
// own strings (summary, notes, disclaimer, terms) and every other JSON
// body the service writes ([AppendJSON]), as encoding/json wrote them with
// SetEscapeHTML(false).
var plainOptions = json.JoinOptions(outputOptions, jsontext.EscapeForHTML(false))

// AppendJSON appends v to dst as the service writes the JSON bodies that
// are not a tool's answer (problems, health, published documents), with
// the library that writes the answers. On error, the bytes after len(dst)
// are not to be used.
func AppendJSON(dst []byte, v any) ([]byte, error) { return marshalAppend(dst, v, plainOptions) }

// envelopeSize is the buffer an envelope starts with: enough for most
// results, which are about 1 KB.
const envelopeSize = 2048

// appendText appends s as a JSON string of the envelope.
func appendText(b []byte, s string) []byte {
	if plainASCII(s) {
		return append(append(append(b, '"'), s...), '"')
	}
	if !strings.ContainsAny(s, "\u2028\u2029") {
		if q, err := jsontext.AppendQuote(b, s); err == nil {
			return q
		}
	}
	b, _ = marshalAppend(b, s, plainOptions) // a string always encodes
	return b
}

// marshalAppend appends v to b, written by json.MarshalWrite into a
// pooled buffer and copied once, so that b grows at most once, to the
// size of the whole answer, however large the output (check_forecast_md
// answers reach hundreds of KB). On error, b is returned unchanged.
func marshalAppend(b []byte, v any, opts json.Options) ([]byte, error) {
	w := scratch.Get().(*bytes.Buffer)
	w.Reset()
	err := json.MarshalWrite(w, v, opts)
	if err == nil {
		b = append(b, w.Bytes()...)
	}
	if w.Cap() <= maxScratch {
		scratch.Put(w)
	}
	return b, err
}

// scratch holds the buffers marshalAppend writes into.
var scratch = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxScratch is the largest buffer scratch keeps: room for the answer of
// a 60,000-character forecast file; larger ones are rare and dropped.
const maxScratch = 256 << 10

// plainASCII reports whether s needs no escaping in JSON: printable ASCII
// without quotes or backslashes.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
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
	if name == "" {
		return baseURL + "/llms.txt"
	}
	return baseURL + "/llms-full.txt#" + name
}
