package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"github.com/predictions-md/predictions/internal/tools"
)

// FuzzFormInput checks the form reader on any text: it never panics, and
// it either names the field at fault or builds JSON that the tool answers
// with a result or an input error, never a fault.
func FuzzFormInput(f *testing.F) {
	for i, t := range tools.All() {
		for k, vs := range exampleValues(t) {
			f.Add(uint8(i), k, vs[0])
		}
	}
	f.Add(uint8(2), "forecasts", "a, b, c, d\n\t,\n,,")
	f.Add(uint8(4), "forecasts", "x\t0.5\tyes\n0.2, no")
	f.Add(uint8(3), "evidence", "1e999")
	f.Fuzz(func(t *testing.T, which uint8, key, value string) {
		all := tools.All()
		tl := all[int(which)%len(all)]
		raw, _, err := formInput(tl, url.Values{key: {value}})
		var ie *tools.InputError
		if err != nil {
			if !errors.As(err, &ie) {
				t.Fatalf("formInput(%s, %q=%q): %v is not an input error", tl.Name, key, value, err)
			}
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("formInput(%s, %q=%q) = %s: not JSON", tl.Name, key, value, raw)
		}
		if _, err := tl.Call(context.Background(), raw); err != nil && !errors.As(err, &ie) {
			t.Fatalf("%s(%s): %v is not an input error", tl.Name, raw, err)
		}
	})
}

// FuzzDecodeOrdered checks that any JSON a tool could answer lays out
// without a panic, and that invalid JSON is an error.
func FuzzDecodeOrdered(f *testing.F) {
	f.Add(`{"a":1,"b":[{"c":"x","d":{"e":null}},{"c":2}],"f":[1,"two",true]}`)
	f.Add(`[[1,2],[3]]`)
	f.Add(`{"a":`)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := decodeOrdered([]byte(s))
		if err != nil {
			return
		}
		_ = sectionsOf("", v)
	})
}
