package boardapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/apidoc"
)

// The JSON Schemas of the board routes' bodies and results.

// boardForOptions breaks the cycle of board.ReplyNode, which jsonschema
// cannot infer: a node is a reply whose children are nodes of the same shape.
func boardForOptions() *jsonschema.ForOptions {
	node, err := jsonschema.For[board.Reply](nil)
	if err != nil {
		panic(fmt.Sprintf("httpapi: schema of board.Reply: %v", err))
	}
	node.Description = "a reply with the replies that answer it"
	node.Properties["children"] = &jsonschema.Schema{Type: "array", Description: "the replies answering this one, each of the same shape",
		Items: &jsonschema.Schema{Type: "object"}}
	node.PropertyOrder = append(node.PropertyOrder, "children")
	node.Required = append(node.Required, "children")
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[board.ReplyNode](): node,
		// An event's data: an object whose fields depend on its type.
		reflect.TypeFor[json.RawMessage](): {Type: "object", Description: "the values of the event's type"}}}
}

// inputSchema infers the schema of a request body: fields without
// omitempty are required and not null; unknown fields are allowed (they
// are ignored with a note).
func inputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("httpapi: %v", err))
	}
	apidoc.OpenSchema(s)
	for _, name := range s.Required {
		p := s.Properties[name]
		if i := slices.Index(p.Types, "null"); i >= 0 {
			p.Types = slices.Delete(slices.Clone(p.Types), i, i+1)
			if len(p.Types) == 1 {
				p.Type, p.Types = p.Types[0], nil
			}
		}
	}
	return s
}

// boardResultSchema infers the schema of a board response: T's fields inside
// the envelope (summary first; notes, disclaimer and terms last).
func boardResultSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](boardForOptions())
	if err != nil {
		panic(fmt.Sprintf("httpapi: %v", err))
	}
	apidoc.OpenSchema(s)
	delete(s.Properties, "notes")
	s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(n string) bool { return n == "notes" })
	s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == "notes" })
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	s.Properties["summary"] = str("one sentence a person can read")
	s.PropertyOrder = append([]string{"summary"}, s.PropertyOrder...)
	s.Properties["notes"] = &jsonschema.Schema{Type: "array", Items: str(""), Description: "anything clamped or ignored"}
	s.Properties["disclaimer"] = str("information only; not advice")
	s.Properties["terms"] = str("address of the terms of service")
	s.PropertyOrder = append(s.PropertyOrder, "notes", "disclaimer", "terms")
	s.Required = append(s.Required, "summary", "notes", "disclaimer", "terms")
	return s
}

// anyCase is the schema of a word the board reads without regard to case
// or surrounding white space (board's parsers: strings.ToLower of
// strings.TrimSpace, or strings.EqualFold): the spellings it stores, as
// an enum clients can offer, or any casing of one of them. emptyOK also
// allows an empty value, read as the default.
func anyCase(desc string, emptyOK bool, vals ...string) *jsonschema.Schema {
	enum := &jsonschema.Schema{Type: "string"}
	alts := make([]string, len(vals))
	for i, v := range vals {
		enum.Enum = append(enum.Enum, v)
		var b strings.Builder
		for _, r := range v {
			if lo, up := unicode.ToLower(r), unicode.ToUpper(r); lo != up {
				b.WriteString("[" + string(up) + string(lo) + "]")
			} else {
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		alts[i] = b.String()
	}
	opt := ""
	if emptyOK {
		opt = "?"
	}
	return &jsonschema.Schema{Description: desc, AnyOf: []*jsonschema.Schema{
		enum,
		{Type: "string", Pattern: `^\s*(?:` + strings.Join(alts, "|") + `)` + opt + `\s*$`},
	}}
}

// probability is the schema of a probability on the board (a post's
// confidence, a forecast's p): a number from 0 to 1, or a percent string
// (board.ReadProbability).
func probability(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Description: desc, AnyOf: []*jsonschema.Schema{
		{Type: "number", Minimum: num(0), Maximum: num(1)},
		{Type: "string", Pattern: `^\s*(100(\.0+)?|[0-9]{1,2}(\.[0-9]+)?)\s*%\s*$`},
	}}
}

// textPattern is the pattern of a text field as board's checkText reads
// it: no control characters (unicode.IsControl), except line breaks and
// tabs in a multiline field; a single-line field is trimmed of white space
// first; a required one needs a character other than white space.
func textPattern(required, multiline bool) string {
	const ctrl = `\x00-\x1f\x7f-\x9f`
	body := `[^` + ctrl + `]`
	if multiline {
		body = `[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]`
	}
	var p string
	switch {
	case required:
		p = body + `*[^\s` + ctrl + `]` + body + `*`
	default:
		p = body + `*`
	}
	if !multiline {
		p = `\s*` + p + `\s*`
	}
	return `^` + p + `$`
}
