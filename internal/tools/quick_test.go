package tools

import (
	"bytes"
	"encoding/json"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// TestQuickCompiles: every tool's input schema has a quick check, so that
// valid calls skip the full validator.
func TestQuickCompiles(t *testing.T) {
	for _, tool := range append(All(), testTool) {
		if tool.quick == nil {
			t.Errorf("%s: the input schema uses a keyword the quick check does not know", tool.Name)
		}
	}
}

// quickCases are inputs on the edges of the schemas: the quick check must
// never accept one the full validator refuses.
var quickCases = []struct {
	tool, input string
	quick       bool // whether the quick check is certain (the full validator accepts)
}{
	{"test_tool", `{"value":"abc","items":[{"p":0.5}]}`, true},
	{"test_tool", `{"value":"abcdef","items":[{"p":0.5}]}`, false},                    // maxLength
	{"test_tool", `{"value":"","items":[{"p":0.5}]}`, false},                          // minLength
	{"test_tool", `{"value":"äöü","items":[{"p":0.5}]}`, true},                        // characters, not bytes
	{"test_tool", `{"value":"abc","items":[]}`, false},                                // minItems
	{"test_tool", `{"value":"abc","items":[{"p":1},{"p":2},{"p":3},{"p":4}]}`, false}, // maxItems
	{"test_tool", `{"value":"abc"}`, false},                                           // required
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"mode":"c"}`, false},            // enum
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"mode":"b"}`, true},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"n":10}`, true},    // maximum, exact text
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"n":10.0}`, false}, // equal, other text: the validator decides
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"n":10.000000000000000001}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"n":-1e-400}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"n":0}`, true},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"n":1e400}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"n":"3"}`, false}, // type
	{"test_tool", `{"value":3,"items":[{"p":0.5}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":true}]}`, false}, // anyOf: no branch
	{"test_tool", `{"value":"abc","items":[{"p":"62%","who":"abcde"}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":"62%","who":"abcd"}],"extra":[1,{"x":null}]}`, true},
	{"score_forecasts", `{"forecasts":[{"p":0.7,"outcome":1},{"p":"40%","outcome":"no"},{"p":0.2,"outcome":false}]}`, true},
	{"score_forecasts", `{"forecasts":[{"p":0.7,"outcome":1.0}]}`, false}, // integer 1.0: the validator decides
	{"score_forecasts", `{"forecasts":[{"p":0.7,"outcome":2}]}`, false},
	{"score_forecasts", `{"forecasts":[{"p":0.7,"outcome":"maybe"}]}`, false},
	{"score_forecasts", `{"forecasts":[{"p":0.7,"outcome":"yes"}],"bins":null}`, true}, // optional: null allowed
	{"check_forecast_md", `{"text":"x","today":"not a date"}`, true},                   // format is an annotation
	{"convert_odds", `{"value":"+150","compare_to":"2.5"}`, true},
	{"combine_forecasts", `{"forecasts":[{"p":0.6},{"p":"55%","weight":2}],"extremize":1.2}`, true},
}

func TestQuickAgreesWithValidator(t *testing.T) {
	for _, tc := range quickCases {
		tool := Lookup(tc.tool)
		if tc.tool == testTool.Name {
			tool = testTool
		}
		inst, err := validator.UnmarshalJSON(bytes.NewReader([]byte(tc.input)))
		if err != nil {
			t.Fatalf("%s: %v", tc.input, err)
		}
		full := tool.validate.Validate(inst) == nil
		quick := tool.quick.valid(inst)
		if quick != tc.quick || quick && !full {
			t.Errorf("%s %s: quick %v (want %v), full validator %v", tc.tool, tc.input, quick, tc.quick, full)
		}
	}
}

// FuzzQuick checks on arbitrary JSON that the quick check never accepts
// what the full validator refuses.
func FuzzQuick(f *testing.F) {
	for i, tc := range quickCases {
		f.Add(i, tc.input)
	}
	f.Fuzz(func(t *testing.T, n int, input string) {
		tools := append(All(), testTool)
		tool := tools[(n%len(tools)+len(tools))%len(tools)]
		if !json.Valid([]byte(input)) {
			return
		}
		inst, err := validator.UnmarshalJSON(bytes.NewReader([]byte(input)))
		if err != nil {
			return
		}
		if tool.quick.valid(inst) {
			if err := tool.validate.Validate(inst); err != nil {
				t.Errorf("%s: quick check accepts %s, full validator refuses: %v", tool.Name, input, err)
			}
		}
	})
}
