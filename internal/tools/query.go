package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/go-json-experiment/json/jsontext"
)

// FromQuery builds the tool's JSON input from query parameters, as GET
// requests send them: strings as they are, numbers as numbers, arrays and
// objects as URL-encoded JSON. A parameter given twice, a name that is not
// valid UTF-8, or an array that is not valid JSON, is an [*InputError].
// Unknown parameters are kept, so that [Tool.Call] names them in its
// notes.
//
// The object's keys are written in sorted order, and string values are
// escaped as [json.Marshal] escapes them; a JSON parameter is copied as
// sent, without its white space.
func (t *Tool) FromQuery(q url.Values) ([]byte, error) {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := make([]byte, 0, 64)
	b = append(b, '{')
	for i, key := range keys {
		if !utf8.ValidString(key) {
			// Two such names could read as one once made valid JSON.
			return nil, &InputError{Field: strings.ToValidUTF8(key, "\uFFFD"), Problem: "is a parameter name that is not valid UTF-8",
				Hint: "send parameter names as UTF-8, percent-encoded, as in %C3%A9 for é"}
		}
		vals := q[key]
		if len(vals) > 1 {
			return nil, &InputError{Field: key, Problem: "is given more than once",
				Hint: "send each parameter once; send arrays as one URL-encoded JSON value" + exampleFor(t.Example, key)}
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, key)
		b = append(b, ':')
		v := vals[0]
		kind, known := t.queryKinds[key]
		if !known {
			kind = queryString // unknown parameters are strings
		}
		switch kind {
		case queryString:
			b = appendString(b, v)
		case queryJSON:
			// Checked as strictly as the decoder reads a body, so that a
			// defect is named within this parameter; copied compacted.
			if err := checkQueryJSON(v, key, t.Example); err != nil {
				return nil, err
			}
			val := jsontext.Value(v)
			if err := val.Compact(); err != nil { // cannot fail: checked above
				return nil, err
			}
			b = append(b, val...)
		default: // numbers, integers, and number-or-string (probabilities)
			if n, ok := jsonNumber(v); ok {
				b = append(b, n...)
			} else {
				b = appendString(b, v) // the schema check names the wrong type
			}
		}
	}
	return append(b, '}'), nil
}

// checkQueryJSON checks that v is one JSON value as strictly as [Decode]
// reads a body: a duplicate name or invalid UTF-8 is named by its path
// under key; anything else that is not JSON is named as key.
func checkQueryJSON(v, key string, example []byte) error {
	dec := jsontext.NewDecoder(strings.NewReader(v))
	_, err := dec.ReadValue()
	if err == nil {
		if _, end := dec.ReadToken(); end != io.EOF {
			err = errTrailing
		}
	}
	if err == nil {
		return nil
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		if e := decodeError(err, []byte(v), nil, nil); e.Problem == "is given more than once" || strings.Contains(e.Problem, "UTF-8") {
			e.Field = fieldUnder(key, se.JSONPointer)
			return e
		}
	}
	return &InputError{Field: key, Problem: "is not valid JSON",
		Hint: "send it as URL-encoded JSON" + exampleFor(example, key), Err: err}
}

// errTrailing is the cause of the error for a query value with more after
// its JSON value.
var errTrailing = errors.New("more than one JSON value")

// A queryKind tells how FromQuery reads a query value.
type queryKind int

const (
	queryString queryKind = iota // as a string
	queryJSON                    // as URL-encoded JSON (arrays and objects)
	queryNumber                  // as a number if it is one, else as a string
)

// queryKinds tells, for each property of the input schema s, how
// FromQuery reads its query value.
func queryKinds(s *jsonschema.Schema) map[string]queryKind {
	kinds := make(map[string]queryKind, len(s.Properties))
	for name, ps := range s.Properties {
		types := schemaTypes(ps)
		switch {
		case slices.Equal(types, []string{"string"}):
			kinds[name] = queryString
		case slices.Contains(types, "array") || slices.Contains(types, "object"):
			kinds[name] = queryJSON
		default:
			kinds[name] = queryNumber
		}
	}
	return kinds
}

func schemaTypes(ps *jsonschema.Schema) []string {
	if ps.Type != "" {
		return []string{ps.Type}
	}
	if len(ps.AnyOf) > 0 {
		var ts []string
		for _, a := range ps.AnyOf {
			ts = append(ts, schemaTypes(a)...)
		}
		return ts
	}
	return slices.DeleteFunc(slices.Clone(ps.Types), func(s string) bool { return s == "null" })
}

// jsonNumber returns s without its surrounding JSON white space, and
// reports whether that is exactly one JSON number.
func jsonNumber(s string) (string, bool) {
	s = strings.Trim(s, " \t\r\n")
	v := jsontext.Value(s)
	return s, v.Kind() == '0' && v.IsValid()
}

// appendString appends s as a JSON string, escaped as [json.Marshal]
// escapes it (invalid UTF-8 replaced) but with HTML characters kept, as
// the JSON values copied from the query keep them.
func appendString(b []byte, s string) []byte {
	if !plainASCII(s) {
		w := bytes.NewBuffer(b)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(s) // a string always encodes
		b = w.Bytes()
		return b[:len(b)-1] // the encoder's newline
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
