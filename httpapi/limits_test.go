package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/tools"
)

// limitCase is one input at or just past one limit of a tool's schema.
type limitCase struct {
	name  string
	input map[string]any
	field string // the field the limit is on, as the Problem names it
	ok    bool   // at the boundary (true) or past it (false)
}

// limitCases derives, from the tool's input schema (where the limits of
// the specification live) and its example, one input at and one just past
// every limit on a top-level field or on a field of the first array item.
func limitCases(t *testing.T, tl *tools.Tool) []limitCase {
	t.Helper()
	base := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal(tl.Example, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	var cases []limitCase
	add := func(name, field string, ok bool, set func(m map[string]any)) {
		m := base()
		set(m)
		cases = append(cases, limitCase{name: name, input: m, field: field, ok: ok})
	}
	for _, name := range sortedKeys(tl.InputSchema.Properties) {
		fs := tl.InputSchema.Properties[name]
		name := name
		scalarLimits(name, fs, func(label string, ok bool, v func(old any) any) {
			add(name+" "+label, name, ok, func(m map[string]any) { m[name] = v(m[name]) })
		})
		if fs.MinItems != nil || fs.MaxItems != nil {
			items := func(n int) func(m map[string]any) {
				return func(m map[string]any) {
					src, _ := m[name].([]any)
					out := make([]any, n)
					for i := range out {
						out[i] = src[i%len(src)]
					}
					m[name] = out
				}
			}
			if fs.MinItems != nil {
				add(fmt.Sprintf("%s %d items", name, *fs.MinItems), name, true, items(*fs.MinItems))
				add(fmt.Sprintf("%s %d items", name, *fs.MinItems-1), name, false, items(*fs.MinItems-1))
			}
			if fs.MaxItems != nil {
				add(fmt.Sprintf("%s %d items", name, *fs.MaxItems), name, true, items(*fs.MaxItems))
				add(fmt.Sprintf("%s %d items", name, *fs.MaxItems+1), name, false, items(*fs.MaxItems+1))
			}
		}
		if fs.Items != nil {
			for _, sub := range sortedKeys(fs.Items.Properties) {
				sub := sub
				field := name + "[0]." + sub
				scalarLimits(field, fs.Items.Properties[sub], func(label string, ok bool, v func(old any) any) {
					add(field+" "+label, field, ok, func(m map[string]any) {
						arr, _ := m[name].([]any)
						if len(arr) == 0 {
							return
						}
						item, _ := arr[0].(map[string]any)
						item[sub] = v(item[sub])
					})
				})
			}
		}
	}
	return cases
}

// scalarLimits reports the at/past values for a string's length and a
// number's range.
func scalarLimits(field string, fs *jsonschema.Schema, add func(label string, ok bool, v func(old any) any)) {
	pad := func(n int) func(old any) any {
		return func(old any) any {
			s, _ := old.(string)
			if len([]rune(s)) > n || s == "" {
				s = strings.Repeat("a", min(n, 1))
			}
			return s + strings.Repeat(" ", n-len([]rune(s)))
		}
	}
	if fs.MaxLength != nil {
		add(fmt.Sprintf("%d characters", *fs.MaxLength), true, pad(*fs.MaxLength))
		add(fmt.Sprintf("%d characters", *fs.MaxLength+1), false, pad(*fs.MaxLength+1))
	}
	step := 0.01
	if fs.Type == "integer" || contains(fs.Types, "integer") {
		step = 1
	}
	num := func(x float64) func(any) any { return func(any) any { return x } }
	if fs.Minimum != nil {
		add(fmt.Sprintf("= %g", *fs.Minimum), true, num(*fs.Minimum))
		add(fmt.Sprintf("= %g", *fs.Minimum-step), false, num(*fs.Minimum-step))
	}
	if fs.Maximum != nil {
		add(fmt.Sprintf("= %g", *fs.Maximum), true, num(*fs.Maximum))
		add(fmt.Sprintf("= %g", *fs.Maximum+step), false, num(*fs.Maximum+step))
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// TestLimits sends every limit of every tool at and just past its boundary,
// as POST and as GET: at the boundary the tool answers 200; past it the
// answer is a 400 Problem naming the field, and openapi.json refuses the
// request too (the limit is published, not only enforced).
func TestLimits(t *testing.T) {
	e := apitest.NewEnv(t, httpapi.Options{})
	n := 0
	for _, tl := range tools.All() {
		for _, lc := range limitCases(t, tl) {
			body, err := json.Marshal(lc.input)
			if err != nil {
				t.Fatal(err)
			}
			n++
			path := tools.PathPrefix + "/" + tl.Name
			for _, method := range []string{http.MethodPost, http.MethodGet} {
				t.Run(tl.Name+"/"+lc.name+"/"+method, func(t *testing.T) {
					rv := apitest.MustFail
					if lc.ok {
						rv = apitest.MustPass
					}
					var resp *http.Response
					var got []byte
					if method == http.MethodPost {
						resp, got = e.Do(t, method, path, body, nil, rv)
					} else {
						resp, got = e.Do(t, method, path+"?"+apitest.QueryOf(t, body), nil, nil, rv)
					}
					if lc.ok {
						if resp.StatusCode != http.StatusOK {
							t.Errorf("at the limit: status %d, want 200: %s", resp.StatusCode, apitest.Trim(got))
						}
						return
					}
					if resp.StatusCode != http.StatusBadRequest {
						t.Fatalf("past the limit: status %d, want 400: %s", resp.StatusCode, apitest.Trim(got))
					}
					p := apitest.ProblemOf(t, got)
					if !strings.HasPrefix(p.Error, lc.field+": ") {
						t.Errorf("error %q does not start with the field %q", p.Error, lc.field)
					}
					if p.Hint == "" {
						t.Errorf("no hint: %s", got)
					}
				})
			}
		}
	}
	if n == 0 {
		t.Fatal("no limits found in the tools' schemas")
	}
}
