package tools

import (
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// fromQueryReference is FromQuery as it was first written: a map of
// decoded values given to json.Marshal. FromQuery writes the JSON itself;
// the two must agree byte for byte.
func fromQueryReference(t *Tool, q url.Values) ([]byte, error) {
	obj := make(map[string]any, len(q))
	for key, vals := range q {
		if len(vals) > 1 {
			return nil, &InputError{Field: key}
		}
		v := vals[0]
		ps := t.InputSchema.Properties[key]
		var types []string
		if ps != nil {
			types = schemaTypes(ps)
		}
		switch {
		case ps == nil || slices.Equal(types, []string{"string"}):
			obj[key] = v
		case slices.Contains(types, "array") || slices.Contains(types, "object"):
			x, ok := decodeOne(v)
			if !ok {
				return nil, &InputError{Field: key}
			}
			obj[key] = x
		default:
			if x, ok := decodeOne(v); ok {
				if n, ok := x.(json.Number); ok {
					obj[key] = n
					continue
				}
			}
			obj[key] = v
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// decodeOne decodes s, which must hold exactly one JSON value, with
// valid UTF-8 and no duplicate names (as RFC 8259 and the strict decoder
// ask; encoding/json alone accepts both).
func decodeOne(s string) (any, bool) {
	if !jsontext.Value(s).IsValid() {
		return nil, false
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return x, true
}

// FuzzFromQuery checks FromQuery against fromQueryReference on queries
// for every tool.
func FuzzFromQuery(f *testing.F) {
	for _, s := range []string{
		"value=abc&n=5", "n=-0.5e+7", "n=%20%201%0A", "n=1.", "n=-", "n=0x10", "n=5]",
		"items=%5B%7B%22p%22%3A0.5%7D%5D", "items=%5B%5D%5D", "value=%3Cb%3E%26", "value=%FF%FE",
		"forecasts=%5B%7B%22p%22%3A%2240%25%22%7D%5D&pool=median", "p=0.4&prior=40%25", "a=1&a=2",
		"forecasts=%7B\"000%22%3A\"000%800", // invalid UTF-8 inside a JSON parameter
	} {
		f.Add(s)
	}
	tools := append(All(), testTool)
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		for _, tool := range tools {
			want, wantErr := fromQueryReference(tool, q)
			got, err := tool.FromQuery(q)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%s: FromQuery(%q) error = %v, reference error = %v", tool.Name, query, err, wantErr)
			}
			if err != nil {
				var ie, wie *InputError
				if !errors.As(err, &ie) || !errors.As(wantErr, &wie) {
					t.Fatalf("%s: FromQuery(%q) error = %v, want an *InputError", tool.Name, query, err)
				}
				// With several bad parameters the two may name different ones;
				// a defect inside a JSON parameter is named by its path under
				// the parameter, as in forecasts[0].p.
				root, _, _ := strings.Cut(ie.Field, "[")
				root, _, _ = strings.Cut(root, ".")
				if _, ok := q[root]; !ok {
					if _, ok := q[ie.Field]; !ok {
						t.Fatalf("%s: FromQuery(%q) names field %q, not in the query", tool.Name, query, ie.Field)
					}
				}
				continue
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Fatalf("%s: FromQuery(%q) mismatch (-reference +got):\n%s", tool.Name, query, diff)
			}
		}
	})
}
