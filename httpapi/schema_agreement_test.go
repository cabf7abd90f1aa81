package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/predictions-md/predictions/internal/tools"
)

// TestSchemaAgreesWithValidator sends every golden request (each tool's
// published example) and every malformed-request case of a tool to both
// the published input schema, checked by jsonschema-go's validator, and
// the tools' own decoder and validator: both must accept, or both refuse.
// Defects of the JSON text itself (duplicate names, invalid UTF-8, a
// number no float64 holds) are the decoder's alone: a schema describes
// values, not text, so those rows are left out.
func TestSchemaAgreesWithValidator(t *testing.T) {
	type input struct {
		name string
		tool *tools.Tool
		body []byte
	}
	var inputs []input
	for _, tl := range tools.All() {
		inputs = append(inputs, input{"golden " + tl.Name, tl, tl.Example})
	}
	for _, m := range toolRows(t) {
		name, ok := strings.CutPrefix(strings.SplitN(m.target, "?", 2)[0], tools.PathPrefix+"/")
		tl := tools.Lookup(name)
		if !ok || tl == nil || m.status != http.StatusBadRequest {
			continue
		}
		body := []byte(m.body)
		if m.method == http.MethodGet {
			_, query, _ := strings.Cut(m.target, "?")
			q, err := url.ParseQuery(query)
			if err != nil {
				continue
			}
			if body, err = tl.FromQuery(q); err != nil {
				continue
			}
		} else if m.method != http.MethodPost {
			continue
		}
		inputs = append(inputs, input{m.name, tl, body})
	}
	checked := 0
	for _, in := range inputs {
		if !jsontext.Value(in.body).IsValid() {
			continue // not valid JSON text for RFC 8259's strict reading (RFC 7493)
		}
		_, err := in.tool.Check(in.body)
		if err != nil && strings.Contains(err.Error(), "out of range") {
			continue
		}
		var v any
		if json.Unmarshal(in.body, &v) != nil {
			continue
		}
		resolved, rerr := in.tool.InputSchema.Resolve(nil)
		if rerr != nil {
			t.Fatalf("%s: schema does not resolve: %v", in.tool.Name, rerr)
		}
		schemaErr := resolved.Validate(v)
		if (err == nil) != (schemaErr == nil) {
			t.Errorf("%s: %.200s\n  validator: %v\n  published schema: %v", in.name, in.body, err, schemaErr)
		}
		checked++
	}
	if checked < 200 {
		t.Errorf("only %d inputs compared, want at least 200", checked)
	}
	t.Logf("%d inputs compared", checked)
}
