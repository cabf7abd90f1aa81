package tools

import (
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// fromQueryReference is FromQuery as it was first written: a map of
// decoded values given to json.Marshal. FromQuery writes the JSON itself;
// the two must mean the same JSON, and agree byte for byte where no
// parameter is JSON (a JSON parameter is copied as sent, so its object
// members keep their order and its strings their escapes, where the
// reference sorts and re-escapes them).
func fromQueryReference(t *Tool, q url.Values) ([]byte, error) {
	obj := make(map[string]any, len(q))
	for key, vals := range q {
		if !utf8.ValidString(key) {
			return nil, &InputError{Field: key}
		}
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
				named := false
				for k := range q {
					named = named || k == root || k == ie.Field || strings.ToValidUTF8(k, "\uFFFD") == ie.Field
				}
				if !named {
					t.Fatalf("%s: FromQuery(%q) names field %q, not in the query", tool.Name, query, ie.Field)
				}
				continue
			}
			gotValue, ok := decodeOne(string(got))
			if !ok {
				t.Fatalf("%s: FromQuery(%q) = %s, not one valid JSON value", tool.Name, query, got)
			}
			wantValue, _ := decodeOne(string(want))
			if diff := cmp.Diff(wantValue, gotValue); diff != "" {
				t.Fatalf("%s: FromQuery(%q) mismatch (-reference +got):\n%s", tool.Name, query, diff)
			}
			if !hasJSONParameter(tool, q) {
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Fatalf("%s: FromQuery(%q) bytes mismatch (-reference +got):\n%s", tool.Name, query, diff)
				}
			}
		}
	})
}

// hasJSONParameter reports whether q has a parameter that tool reads as
// URL-encoded JSON.
func hasJSONParameter(tool *Tool, q url.Values) bool {
	for key := range q {
		if tool.queryKinds[key] == queryJSON {
			return true
		}
	}
	return false
}
