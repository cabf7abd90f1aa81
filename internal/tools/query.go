package tools

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"
)

// FromQuery builds the tool's JSON input from query parameters, as GET
// requests send them: strings as they are, numbers as numbers, arrays and
// objects as URL-encoded JSON. A parameter given twice, or an array that is
// not valid JSON, is an [*InputError]. Unknown parameters are kept, so that
// [Tool.Call] names them in its notes.
func (t *Tool) FromQuery(q url.Values) ([]byte, error) {
	obj := make(map[string]any, len(q))
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		vals := q[key]
		if len(vals) > 1 {
			return nil, &InputError{Field: key, Problem: "is given more than once",
				Hint: "send each parameter once; send arrays as one URL-encoded JSON value" + exampleFor(t, key)}
		}
		v := vals[0]
		ps := t.InputSchema.Properties[key]
		types := schemaTypes(ps)
		switch {
		case ps == nil || slices.Equal(types, []string{"string"}):
			obj[key] = v
		case slices.Contains(types, "array") || slices.Contains(types, "object"):
			var x any
			d := json.NewDecoder(bytes.NewReader([]byte(v)))
			d.UseNumber()
			if err := d.Decode(&x); err != nil || d.More() {
				return nil, &InputError{Field: key, Problem: "is not valid JSON",
					Hint: "send it as URL-encoded JSON" + exampleFor(t, key), Err: err}
			}
			obj[key] = x
		default: // numbers, integers, and number-or-string (probabilities)
			if n, ok := jsonNumber(v); ok {
				obj[key] = n
			} else {
				obj[key] = v // the schema check names the wrong type
			}
		}
	}
	return json.Marshal(obj)
}

func schemaTypes(ps *jsonschema.Schema) []string {
	if ps == nil {
		return nil
	}
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

// jsonNumber reports whether s is exactly one JSON number.
func jsonNumber(s string) (json.Number, bool) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil || d.More() {
		return "", false
	}
	n, ok := x.(json.Number)
	return n, ok
}
