package tools

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// strict is how every input is decoded: the defaults of JSON v2 (names
// matched case-sensitively, duplicate names and invalid UTF-8 refused),
// with unknown names reported so that they can be named in notes. The
// types that take more than one kind of JSON value ([Prob], [OddsText],
// [Outcome]) check the kind as they read the value, once.
var strict = json.RejectUnknownMembers(true)

// lenient is strict with unknown names ignored: the second decode of an
// input whose unknown names have been noted.
var lenient = json.RejectUnknownMembers(false)

// kindError is a value of a JSON kind its Go type does not take; the
// error names the kinds the schema allows.
type kindError struct{ got jsontext.Kind }

func (e *kindError) Error() string { return "wrong kind of JSON value: " + kindName(e.got) }

// Decode reads raw, which must hold exactly one JSON object, into v (a
// pointer) strictly: names are matched case-sensitively, and a duplicate
// name, invalid UTF-8, a value of the wrong type or anything after the
// object is an [*InputError] naming the field. Names that s (the schema
// of v) does not describe are not an error: they are returned as notes,
// "ignored unknown field \"x\"", and their values are not read.
//
// HTTP bodies, GET query values and MCP arguments of the tools and the
// bodies of the board's routes all go through Decode.
func Decode(raw []byte, v any, s *jsonschema.Schema) (notes []string, err error) {
	return decode(raw, v, s, nil)
}

// decode is Decode; hints name a value from example (a JSON object)
// where it has one for the field.
func decode(raw []byte, v any, s *jsonschema.Schema, example []byte) (notes []string, err error) {
	err = json.Unmarshal(raw, v, strict)
	if isMap(v) {
		// Maps take any name: name the ones the schema does not describe.
		if err == nil {
			notes = unknownNames(raw, s)
		}
	} else if err != nil && errors.Is(err, json.ErrUnknownName) {
		// Rare: an input with names the schema does not describe is read
		// a second time to name them all, then decoded without them.
		notes = unknownNames(raw, s)
		reflect.ValueOf(v).Elem().SetZero()
		err = json.Unmarshal(raw, v, lenient)
	}
	if err == nil && firstByte(raw) != '{' {
		// null decodes into any struct or map, leaving it as it was.
		return nil, &InputError{Field: "body", Problem: "is not a JSON object", Hint: objectHint}
	}
	if err != nil {
		return nil, decodeError(err, raw, s, example)
	}
	return notes, nil
}

const objectHint = `send one JSON object, such as {"value":"+150"}`

func firstByte(raw []byte) byte {
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// badName returns the name that holds byte off of raw, with invalid
// UTF-8 replaced, when the string there is an object's member name.
func badName(raw []byte, off int64) (string, bool) {
	if off < 0 || off >= int64(len(raw)) {
		return "", false
	}
	start := int(off)
	for start > 0 && !(raw[start-1] == '"' && (start < 2 || raw[start-2] != '\\')) {
		start--
	}
	end := int(off)
	for end < len(raw) && raw[end] != '"' {
		if raw[end] == '\\' {
			end++
		}
		end++
	}
	if start == 0 || end >= len(raw) {
		return "", false
	}
	rest := strings.TrimLeft(string(raw[end+1:]), " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	return strings.ToValidUTF8(string(raw[start:end]), "\ufffd"), true
}

func isMap(v any) bool {
	t := reflect.TypeOf(v)
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Map
}

// unknownNames names the members of the JSON object raw, at any depth,
// that the schema s does not describe, in the order they appear.
func unknownNames(raw []byte, s *jsonschema.Schema) []string {
	var notes []string
	dec := jsontext.NewDecoder(strings.NewReader(string(raw)))
	var walk func(s *jsonschema.Schema, path string) error
	walk = func(s *jsonschema.Schema, path string) error {
		switch dec.PeekKind() {
		case '{':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return err
				}
				name := tok.String()
				p := joinField(path, name)
				var ps *jsonschema.Schema
				if s != nil && s.Properties != nil {
					ps = s.Properties[name]
					if ps == nil {
						notes = append(notes, fmt.Sprintf("ignored unknown field %q", p))
						if err := dec.SkipValue(); err != nil {
							return err
						}
						continue
					}
				}
				if err := walk(ps, p); err != nil {
					return err
				}
			}
			_, err := dec.ReadToken()
			return err
		case '[':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			var items *jsonschema.Schema
			if s != nil {
				items = s.Items
			}
			for i := 0; dec.PeekKind() != ']'; i++ {
				if err := walk(items, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			_, err := dec.ReadToken()
			return err
		}
		return dec.SkipValue()
	}
	_ = walk(s, "") // raw has been decoded once: it is valid JSON
	return notes
}

// hasMember reports whether the JSON object raw has a member at the field
// path (as "forecasts[2].p"): the error path tells "is required" from a
// value that breaks a limit.
func hasMember(raw []byte, path string) bool {
	var ptr jsontext.Pointer
	for part := range strings.SplitSeq(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		ptr = ptr.AppendToken(name)
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			ptr = ptr.AppendToken(idx)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	// Without escapes, a member's name appears as it is: most absent
	// fields are found absent without reading the input.
	if last := ptr.LastToken(); !bytes.ContainsRune(raw, '\\') && !bytes.Contains(raw, []byte(strconv.Quote(last))) {
		return false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	for {
		if dec.StackPointer() == ptr {
			return true
		}
		if _, err := dec.ReadToken(); err != nil {
			return false
		}
	}
}

// fieldOf turns a JSON pointer (/forecasts/2/p) into a field path
// (forecasts[2].p); the root is "body".
func fieldOf(ptr jsontext.Pointer) string { return fieldUnder("", ptr) }

// fieldUnder is fieldOf for a value that is the field prefix.
func fieldUnder(prefix string, ptr jsontext.Pointer) string {
	var b strings.Builder
	b.WriteString(prefix)
	for tok := range ptr.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if tok == "" {
			tok = `""`
		}
		b.WriteString(tok)
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

// topField is the top-level field of a JSON pointer, or "body".
func topField(ptr jsontext.Pointer) string {
	for tok := range ptr.Tokens() {
		if tok == "" {
			return `""`
		}
		return tok
	}
	return "body"
}

// decodeError words a failure of Decode as an [*InputError].
func decodeError(err error, raw []byte, s *jsonschema.Schema, example []byte) *InputError {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		field := fieldOf(se.JSONPointer)
		msg := se.Err.Error()
		switch {
		case errors.Is(err, jsontext.ErrDuplicateName):
			return &InputError{Field: field, Problem: "is given more than once", Hint: "send each key once in an object", Err: err}
		case strings.Contains(msg, "UTF-8") || strings.Contains(msg, "surrogate"):
			if name, ok := badName(raw, se.ByteOffset); ok {
				field = joinField(strings.TrimPrefix(field, "body"), name)
			}
			return &InputError{Field: field, Problem: fmt.Sprintf("is not valid UTF-8 or has a lone UTF-16 surrogate (at byte %d)", se.ByteOffset),
				Hint: "send text as UTF-8; a \\u escape of a UTF-16 surrogate must be followed by its other half, as in \\ud83d\\ude00", Err: err}
		case strings.Contains(msg, "max depth"):
			return &InputError{Field: topField(se.JSONPointer), Problem: "nests objects and arrays too deep",
				Hint: "send the documented fields only; no input needs more than three levels of nesting", Err: err}
		case strings.Contains(msg, "after top-level value"):
			return &InputError{Field: "body", Problem: fmt.Sprintf("has data after the JSON object (at byte %d)", se.ByteOffset),
				Hint: "send exactly one JSON object and nothing after it", Err: err}
		case se.ByteOffset == 0 && len(strings.TrimSpace(string(raw))) == 0:
			return &InputError{Field: "body", Problem: "is empty", Hint: objectHint, Err: err}
		}
		return &InputError{Field: "body", Problem: fmt.Sprintf("is not valid JSON: %s (at byte %d)", msg, se.ByteOffset),
			Hint: objectHint + "; check quotes, commas and brackets", Err: err}
	}
	var me *json.SemanticError
	if errors.As(err, &me) {
		field := fieldOf(me.JSONPointer)
		if field == "body" {
			return &InputError{Field: "body", Problem: "is not a JSON object", Hint: objectHint, Err: err}
		}
		fs := schemaAtField(s, field)
		var ke *kindError
		switch {
		case errors.As(err, &ke):
			return typeError(field, fs, ke.got, example, err)
		case me.GoType == timeType && me.JSONKind == '"':
			return timeError(field, stringAt(raw, me.ByteOffset), err)
		case me.JSONKind == '0' && me.Err != nil && strings.Contains(me.Err.Error(), "out of range"):
			return &InputError{Field: field, Problem: fmt.Sprintf("is %s, which is out of range", numberAt(raw, me.ByteOffset)),
				Hint: "send an ordinary number such as 0.62 or 62", Err: err}
		case me.JSONKind != 0:
			return typeError(field, fs, me.JSONKind, example, err)
		}
		return &InputError{Field: field, Problem: "could not be read: " + me.Error(), Hint: describe(fs), Err: err}
	}
	return &InputError{Field: "body", Problem: "could not be read: " + err.Error(), Hint: objectHint, Err: err}
}

// numberAt is the JSON number that starts at byte off of raw.
func numberAt(raw []byte, off int64) string {
	v, ok := valueAt(raw, off, '0')
	if !ok {
		return "a number"
	}
	return string(v)
}

// stringAt is the JSON string that starts at byte off of raw, as JSON
// text, its first 40 characters only.
func stringAt(raw []byte, off int64) string {
	v, ok := valueAt(raw, off, '"')
	if !ok {
		return "a string"
	}
	b, _ := jsontext.AppendUnquote(nil, v) // valid: the decoder read it
	s := string(b)
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return strconv.Quote(s)
}

// valueAt is the JSON value of the kind that starts at byte off of raw.
func valueAt(raw []byte, off int64, kind jsontext.Kind) (jsontext.Value, bool) {
	if off < 0 || off >= int64(len(raw)) {
		return nil, false
	}
	v, err := jsontext.NewDecoder(bytes.NewReader(raw[off:])).ReadValue()
	if err != nil || v.Kind() != kind {
		return nil, false
	}
	return v, true
}

// timeType is the Go type of the inputs that are times: a JSON string
// the decoder reads as RFC 3339.
var timeType = reflect.TypeFor[time.Time]()

// kindName is the JSON type of a kind, as JSON Schema names it.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// schemaTypesOf lists the JSON types a schema allows, "null" left out.
func schemaTypesOf(s *jsonschema.Schema) []string {
	if s == nil {
		return nil
	}
	types := schemaTypes(s)
	return slices.Compact(types)
}
