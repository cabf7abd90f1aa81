package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

type testItem struct {
	Who string `json:"who,omitempty" jsonschema:"who made it"`
	P   Prob   `json:"p"`
}

type testIn struct {
	Value string     `json:"value" jsonschema:"a short text"`
	Mode  string     `json:"mode,omitempty"`
	Items []testItem `json:"items"`
	N     *float64   `json:"n,omitempty"`
}

type testOut struct {
	Echo   string    `json:"echo"`
	Ps     []float64 `json:"ps"`
	ReadAs []string  `json:"read_as"`
}

var testTool = define(Tool{Name: "test_tool", Title: "Test", Description: "for tests"},
	[]Limit{
		{Field: "value", MinLength: 1, MaxLength: 5},
		{Field: "mode", Enum: []string{"a", "b"}, Default: "a"},
		{Field: "items", MinItems: 1, MaxItems: 3},
		{Field: "items[].who", MaxLength: 4},
		{Field: "n", Minimum: num(0), Maximum: num(10)},
	},
	`{"value":"abc","items":[{"p":0.5}]}`,
	func(ctx context.Context, in *testIn, r *Reply) (testOut, error) {
		out := testOut{Echo: in.Value}
		ps := make([]Prob, len(in.Items))
		for i, it := range in.Items {
			ps[i] = it.P
		}
		rs, _, err := readGroup(ps, func(i int) string { return "items[" + itoa(i) + "].p" })
		if err != nil {
			return testOut{}, err
		}
		for _, r := range rs {
			out.Ps = append(out.Ps, r.P)
			out.ReadAs = append(out.ReadAs, string(r.ReadAs))
		}
		r.Summary = "echoed " + in.Value
		return out, nil
	})

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestCallValid(t *testing.T) {
	res, err := testTool.Call(context.Background(), []byte(`{"value":"abc","items":[{"p":0.25},{"p":"40%","who":"ann"},{"p":0.62}],"extra":1}`))
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	got, err := res.Envelope("https://x.test/terms")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("envelope is not JSON: %v\n%s", err, got)
	}
	want := map[string]any{
		"tool": "test_tool", "summary": "echoed abc", "echo": "abc",
		"ps": []any{0.25, 0.4, 0.62}, "read_as": []any{"probability", "percent", "probability"},
		"notes": []any{`ignored unknown field "extra"`}, "disclaimer": Disclaimer, "terms": "https://x.test/terms",
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("envelope mismatch (-want +got):\n%s", diff)
	}
}

func TestCallBadInput(t *testing.T) {
	tests := []struct {
		name, in string
		want     InputError // Err is not compared
	}{
		{"not json", `{`, InputError{Field: "body"}},
		{"not object", `[1]`, InputError{Field: "body", Problem: "is not a JSON object"}},
		{"missing", `{"items":[{"p":1}]}`, InputError{Field: "value", Problem: "is required"}},
		{"too long", `{"value":"abcdef","items":[{"p":1}]}`, InputError{Field: "value", Problem: "is 6 characters long; the limit is 5", Hint: "shorten it to 5 characters or fewer"}},
		{"empty", `{"value":"","items":[{"p":1}]}`, InputError{Field: "value", Problem: "is 0 characters long; it must be at least 1"}},
		{"wrong type", `{"value":3,"items":[{"p":1}]}`, InputError{Field: "value", Problem: "must be a string, not a number"}},
		{"enum", `{"value":"a","mode":"c","items":[{"p":1}]}`, InputError{Field: "mode", Problem: `is "c", which is not one of the allowed values`, Hint: "use one of: a, b"}},
		{"too few", `{"value":"a","items":[]}`, InputError{Field: "items", Problem: "has 0 item(s); it needs at least 1", Hint: "send from 1 to 3 items"}},
		{"too many", `{"value":"a","items":[{"p":1},{"p":1},{"p":1},{"p":1}]}`, InputError{Field: "items", Problem: "has 4 items; the limit is 3", Hint: "send from 1 to 3 items"}},
		{"nested long", `{"value":"a","items":[{"p":1},{"p":1,"who":"abcde"}]}`, InputError{Field: "items[1].who", Problem: "is 5 characters long; the limit is 4", Hint: "shorten it to 4 characters or fewer"}},
		{"nested missing", `{"value":"a","items":[{"who":"x"}]}`, InputError{Field: "items[0].p", Problem: "is required"}},
		{"prob wrong type", `{"value":"a","items":[{"p":true}]}`, InputError{Field: "items[0].p", Problem: "must be a number or string, not a boolean"}},
		{"prob above 100", `{"value":"a","items":[{"p":101}]}`, InputError{Field: "items[0].p", Problem: "is 101; it must be at most 100"}},
		{"prob 1e400", `{"value":"a","items":[{"p":1e400}]}`, InputError{Field: "items[0].p", Problem: "is 1e400; it must be at most 100"}},
		{"below minimum", `{"value":"a","items":[{"p":1}],"n":-1}`, InputError{Field: "n", Problem: "is -1; it must be at least 0", Hint: "use a number from 0 to 10"}},
		{"above maximum", `{"value":"a","items":[{"p":1}],"n":10.5}`, InputError{Field: "n", Problem: "is 10.5; it must be at most 10", Hint: "use a number from 0 to 10"}},
		{"huge number", `{"value":"a","items":[{"p":1}],"n":1e400}`, InputError{Field: "n"}},
		{"handler error", `{"value":"a","items":[{"p":"abc%"}]}`, InputError{Field: "items[0].p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testTool.Call(context.Background(), []byte(tt.in))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Call(%s) error = %v, want *InputError", tt.in, err)
			}
			if !errors.Is(err, ErrInput) {
				t.Errorf("Call(%s) error does not wrap ErrInput", tt.in)
			}
			got := InputError{Field: ie.Field}
			if tt.want.Problem != "" {
				got.Problem = ie.Problem
			}
			if tt.want.Hint != "" {
				got.Hint = ie.Hint
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Call(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if ie.Hint == "" {
				t.Errorf("Call(%s): empty hint for %v", tt.in, ie)
			}
		})
	}
}

// TestCallSeveralProblems checks that an input with several problems is
// always answered with the same one: the first field in the order the
// schema lists them, items by index, a field before the fields inside it.
// Types are checked while the input is read, so a value of the wrong type
// is reported before the limits. Each input is sent many times.
func TestCallSeveralProblems(t *testing.T) {
	tests := []struct {
		name, in  string
		tool      *Tool
		wantField string
	}{
		{"declared order, not name order", `{"value":"","mode":"c","items":[]}`, testTool, "value"},
		{"later fields", `{"value":"a","mode":"c","items":[],"n":-1}`, testTool, "mode"},
		{"items by index", `{"value":"a","items":[{"p":1,"who":"abcde"},{"p":2},{"who":"x"}]}`, testTool, "items[0].who"},
		// A value of the wrong type is found while reading, before any limit.
		{"type before limits", `{"value":"a","items":[{"p":1,"who":"abcde"},{"p":true},{"who":"x"}]}`, testTool, "items[1].p"},
		{"index 2 before 10", `{"forecasts":[{"p":0.5},{"p":0.5},{"p":0.5,"weight":-1},{"p":0.5},{"p":0.5},{"p":0.5},{"p":0.5},{"p":0.5},{"p":0.5},{"p":0.5},{"p":-1},{"p":0.5}]}`, Lookup("combine_forecasts"), "forecasts[2].weight"},
		{"implied_probabilities", `{"outcomes":[],"method":"0"}`, Lookup("implied_probabilities"), "outcomes"},
		{"combine_forecasts", `{"forecasts":[{"p":0.5,"who":"x"},{"p":"abc%","weight":-1}],"method":"x"}`, Lookup("combine_forecasts"), "forecasts[1].weight"},
		{"score_forecasts", `{"forecasts":[],"bins":1}`, Lookup("score_forecasts"), "forecasts"},
		// A time is read with its type, so a bad one comes before a limit.
		{"bad time before a skill out of range", `{"forecasts":[{"p":0.5,"skill":2000},{"p":0.5,"at":"noon"}]}`, Lookup("combine_forecasts"), "forecasts[1].at"},
		{"skill out of range", `{"forecasts":[{"p":0.5,"at":"2026-11-20T12:00:00Z"},{"p":0.5,"skill":-1001}]}`, Lookup("combine_forecasts"), "forecasts[1].skill"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[string]int{}
			for range 50 {
				_, err := tt.tool.Call(context.Background(), []byte(tt.in))
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("Call(%s) error = %v, want *InputError", tt.in, err)
				}
				seen[ie.Error()]++
				if ie.Field != tt.wantField {
					t.Errorf("Call(%s) field = %q (%v), want %q", tt.in, ie.Field, ie, tt.wantField)
				}
			}
			if len(seen) != 1 {
				t.Errorf("Call(%s) gave %d different errors over 50 calls: %v", tt.in, len(seen), seen)
			}
		})
	}
}

func TestFromQuery(t *testing.T) {
	tests := []struct {
		name  string
		query string
		want  string
		field string // of the InputError, when one is wanted
	}{
		{"strings and numbers", "value=abc&n=5&items=" + url.QueryEscape(`[{"p":"40%"}]`), `{"items":[{"p":"40%"}],"n":5,"value":"abc"}`, ""},
		{"number-looking string stays string", "value=12", `{"value":"12"}`, ""},
		{"non-number kept for the schema to refuse", "n=abc", `{"n":"abc"}`, ""},
		{"unknown kept", "zzz=1", `{"zzz":"1"}`, ""},
		{"broken json", "items=" + url.QueryEscape(`[{"p":`), "", "items"},
		{"trailing json", "items=" + url.QueryEscape(`[] []`), "", "items"},
		{"twice", "value=a&value=b", "", "value"},
		{"number with spaces", "n=" + url.QueryEscape(" 5 "), `{"n":5}`, ""},
		{"negative exponent", "n=-1.5e-3", `{"n":-1.5e-3}`, ""},
		{"leading zero is a string", "n=05", `{"n":"05"}`, ""},
		{"bare point is a string", "n=5.", `{"n":"5."}`, ""},
		{"bare exponent is a string", "n=5e", `{"n":"5e"}`, ""},
		{"plus sign is a string", "n=%2B5", `{"n":"+5"}`, ""},
		{"closing bracket after a number is a string", "n=5]", `{"n":"5]"}`, ""},
		{"html kept", "value=" + url.QueryEscape("<a&b>"), `{"value":"<a&b>"}`, ""},
		{"html kept in JSON", "items=" + url.QueryEscape(`["<"]`), `{"items":["<"]}`, ""},
		{"invalid UTF-8 replaced", "value=%FF", `{"value":"\ufffd"}`, ""},
		{"quote and newline", "value=" + url.QueryEscape("a\"b\n"), `{"value":"a\"b\n"}`, ""},
		{"escaped key", url.QueryEscape(`k"`) + "=1", `{"k\"":"1"}`, ""},
		{"json re-encoded", "items=" + url.QueryEscape(` [ {"p" : 1e2} ] `), `{"items":[{"p":1e2}]}`, ""},
		{"closing bracket after an array", "items=" + url.QueryEscape(`[]]`), "", "items"},
		{"empty", "", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := testTool.FromQuery(q)
			if tt.field != "" {
				var ie *InputError
				if !errors.As(err, &ie) || ie.Field != tt.field {
					t.Fatalf("FromQuery(%q) error = %v, want InputError on %q", tt.query, err, tt.field)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromQuery(%q): %v", tt.query, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("FromQuery(%q) mismatch (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

func TestSchemaCarriesLimits(t *testing.T) {
	s := testTool.InputSchema
	if got := *s.Properties["value"].MaxLength; got != 5 {
		t.Errorf("value maxLength = %d, want 5", got)
	}
	if got := *s.Properties["items"].Items.Properties["who"].MaxLength; got != 4 {
		t.Errorf("items[].who maxLength = %d, want 4", got)
	}
	if diff := cmp.Diff([]string{"value", "items"}, s.Required); diff != "" {
		t.Errorf("required mismatch (-want +got):\n%s", diff)
	}
	out := testTool.OutputSchema
	for _, f := range []string{"tool", "summary", "echo", "notes", "disclaimer", "terms"} {
		if out.Properties[f] == nil {
			t.Errorf("output schema lacks %q", f)
		}
	}
}

func TestReadScalar(t *testing.T) {
	for _, tc := range []struct {
		in, kinds string
		text      string
		kind      jsontext.Kind
		err       bool
	}{
		{`"62%"`, `"0`, "62%", '"', false},
		{` "a\"b" `, `"0`, `a"b`, '"', false},
		{`"\u00e9t\u00e9"`, `"0`, "été", '"', false},
		{`"été"`, `"0`, "été", '"', false},
		{"\"\xff\"", `"0`, "", 0, true}, // invalid UTF-8: refused by the decoder
		{`""`, `"0`, "", '"', false},
		{`"`, `"0`, "", 0, true},
		{`0.10`, `"0`, "0.10", '0', false},
		{`1e-3`, `"0`, "1e-3", '0', false},
		{`true`, `"0tf`, "true", 't', false},
		{`false`, `"0tf`, "false", 'f', false},
		{`"yes"`, `"0tf`, "yes", '"', false},
		{`"ye\u0073"`, `"0tf`, "yes", '"', false},
		{`"\ud83d\ude00"`, `"0`, "\U0001f600", '"', false},
		{`"\ud83d"`, `"0`, "", 0, true}, // a lone surrogate: refused by the decoder
		{`-0.5e+2`, `"0`, "-0.5e+2", '0', false},
		{`true`, `"0`, "", 0, true}, // a kindError
		{`[1]`, `"0`, "", 0, true},
	} {
		text, kind, err := readScalar(jsontext.NewDecoder(strings.NewReader(tc.in)), tc.kinds)
		if text != tc.text || kind != tc.kind || (err != nil) != tc.err {
			t.Errorf("readScalar(%s, %q) = %q, %q, %v; want %q, %q, error %v", tc.in, tc.kinds, text, kind, err, tc.text, tc.kind, tc.err)
		}
	}
}

func TestAppendEnvelope(t *testing.T) {
	res, err := testTool.Call(context.Background(), []byte(`{"value":"<é>","items":[{"p":"40%"}],"extra":1}`))
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	want, err := res.Envelope("https://x.test/terms")
	if err != nil {
		t.Fatalf("Envelope: %v", err)
	}
	for _, dst := range [][]byte{nil, []byte("prefix:"), make([]byte, 3, 4096)} {
		got, err := res.AppendEnvelope(dst, "https://x.test/terms")
		if err != nil {
			t.Fatalf("AppendEnvelope: %v", err)
		}
		if diff := cmp.Diff(string(dst)+string(want), string(got)); diff != "" {
			t.Errorf("AppendEnvelope(%q) mismatch (-want +got):\n%s", dst, diff)
		}
	}
	bad := &Result{Tool: "x", Output: []int{1}}
	dst := []byte("keep")
	got, err := bad.AppendEnvelope(dst, "")
	if err == nil || string(got) != "keep" {
		t.Errorf("AppendEnvelope of a non-object = %q, %v; want %q and an error", got, err, "keep")
	}
}
