package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// rawCases are inputs for the check that reads the bytes directly: it is
// certain only for plain, strict JSON with no unknown field.
var rawCases = []struct {
	tool, input string
	raw         bool
}{
	{"test_tool", ` { "value" : "abc" , "items" : [ { "p" : 0.5 } ] } ` + "\n", true},
	{"test_tool", `{"value":"ab\u0063","items":[{"p":0.5}]}`, true},
	{"test_tool", `{"val\u0075e":"abc","items":[{"p":0.5}]}`, false}, // an escaped key: the decoder reads it
	{"test_tool", "{\"value\":\"a\xffb\",\"items\":[{\"p\":0.5}]}", false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}]}x`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}]}{}`, false},
	{"test_tool", `[{"value":"abc","items":[{"p":0.5}]}]`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5},]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}]`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"extra":1}`, false}, // unknown: Call notes it
	{"test_tool", `{"value":"abc","items":[{"p":0.5,"zz":1}]}`, false},
	{"test_tool", `{"Value":"abc","items":[{"p":0.5}]}`, false},
	{"test_tool", `{"value":"abc","value":"abd","items":[{"p":0.5}]}`, true},
	{"test_tool", `{"value":"abcdef","value":"abc","items":[{"p":0.5}]}`, false}, // each occurrence is checked
	{"test_tool", `{"value":"abc","items":[{"p":01}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":1.}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":-}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":.5}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":+5}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":5e-1}]}`, true},
	{"test_tool", `{"value":"abc","items":[{"p":5e+2}]}`, false},                    // above the maximum
	{"test_tool", `{"value":"a\nb\u00e9\ud83d\ude00","items":[{"p":0.5}]}`, true},   // 5 characters once decoded
	{"test_tool", `{"value":"a\nb\u00e9\ud83d\ude00x","items":[{"p":0.5}]}`, false}, // 6
	{"test_tool", `{"value":"\ud83d\ud83d\ude00","items":[{"p":0.5}]}`, true},       // a lone surrogate, then a pair: 2
	{"test_tool", `{"value":"\ude00\ude00\ude00\ude00\ude00\ude00","items":[{"p":0.5}]}`, false},
	{"test_tool", `{"value":"\x","items":[{"p":0.5}]}`, false},
	{"test_tool", `{"value":"\u12","items":[{"p":0.5}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":0.5}],"mode":"\u0062"}`, false}, // an escaped enum value
	{"test_tool", `{"value":"abc","items":[{"p":tru}]}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":"62%"}],"mode":"b"}`, true},
	{"test_tool", `{"value":"abc","items":[{"p":"62%"}],"mode":null}`, false},
	{"test_tool", `{"value":"abc","items":[{"p":"62%"}],"n":10}`, true},
	{"test_tool", `{"value":"abc","items":[{"p":"62%"}],"n":10.5}`, false},
	{"score_forecasts", `{"forecasts":[{"p":0.7,"outcome":true},{"p":"40%","outcome":0}],"bins":null}`, true},
	{"score_forecasts", `{"forecasts":[{"p":0.7,"outcome":nul}]}`, false},
}

// TestQuickRaw checks the direct check on its edge cases, and that it is
// certain wherever the decoded check is certain and no field is unknown.
func TestQuickRaw(t *testing.T) {
	toolNamed := func(name string) *Tool {
		if name == testTool.Name {
			return testTool
		}
		return Lookup(name)
	}
	for _, tc := range rawCases {
		if got := toolNamed(tc.tool).quick.validRaw([]byte(tc.input)); got != tc.raw {
			t.Errorf("%s %s: validRaw = %v, want %v", tc.tool, tc.input, got, tc.raw)
		}
	}
	for _, tc := range quickCases {
		tool := toolNamed(tc.tool)
		inst, err := validator.UnmarshalJSON(bytes.NewReader([]byte(tc.input)))
		if err != nil {
			t.Fatalf("%s: %v", tc.input, err)
		}
		want := tc.quick && !hasUnknown(tool.InputSchema, inst)
		if got := tool.quick.validRaw([]byte(tc.input)); got != want {
			t.Errorf("%s %s: validRaw = %v, want %v", tc.tool, tc.input, got, want)
		}
	}
	for _, tool := range All() {
		if !tool.quick.validRaw(tool.Example) {
			t.Errorf("%s: validRaw is not certain of the example %s", tool.Name, tool.Example)
		}
	}
}

// FuzzQuickRaw checks on arbitrary bytes that the direct check is certain
// only of what the decoder, the full validator and the unknown-field scan
// all accept.
func FuzzQuickRaw(f *testing.F) {
	tools := addInputSeeds(f)
	f.Fuzz(func(t *testing.T, n int, input string) {
		tool := tools[(n%len(tools)+len(tools))%len(tools)]
		if !tool.quick.validRaw([]byte(input)) {
			return
		}
		if !json.Valid([]byte(input)) {
			t.Fatalf("%s: validRaw is certain of invalid JSON %q", tool.Name, input)
		}
		inst, err := validator.UnmarshalJSON(bytes.NewReader([]byte(input)))
		if err != nil {
			t.Fatalf("%s: validRaw is certain of %q, the decoder refuses it: %v", tool.Name, input, err)
		}
		if err := tool.validate.Validate(inst); err != nil {
			t.Fatalf("%s: validRaw is certain of %q, the full validator refuses it: %v", tool.Name, input, err)
		}
		if hasUnknown(tool.InputSchema, inst) {
			t.Fatalf("%s: validRaw is certain of %q, which has an unknown field", tool.Name, input)
		}
	})
}

// FuzzCallPaths checks that Call answers the same, result or error, when
// it reads the input directly as when it decodes it for the validator.
func FuzzCallPaths(f *testing.F) {
	tools := addInputSeeds(f)
	f.Fuzz(func(t *testing.T, n int, input string) {
		tool := tools[(n%len(tools)+len(tools))%len(tools)]
		ctx := context.Background()
		direct, derr := tool.call(ctx, []byte(input), true)
		decoded, err := tool.call(ctx, []byte(input), false)
		if (derr != nil) != (err != nil) || derr != nil && derr.Error() != err.Error() {
			t.Fatalf("%s %q: error %v directly, %v decoded", tool.Name, input, derr, err)
		}
		if err != nil {
			return
		}
		got, err1 := direct.Envelope("t")
		want, err2 := decoded.Envelope("t")
		if err1 != nil || err2 != nil {
			t.Fatalf("%s %q: Envelope: %v, %v", tool.Name, input, err1, err2)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("%s %q: mismatch (-decoded +direct):\n%s", tool.Name, input, diff)
		}
	})
}

// addInputSeeds adds the inputs of rawCases, quickCases and every tool's
// example to f's corpus, and returns the tools a fuzz input picks from.
func addInputSeeds(f *testing.F) []*Tool {
	for i, tc := range rawCases {
		f.Add(i, tc.input)
	}
	for i, tc := range quickCases {
		f.Add(i, tc.input)
	}
	tools := append(All(), testTool)
	for i, tool := range tools {
		f.Add(i, string(tool.Example))
	}
	return tools
}
