package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCaseVariantNames checks that names are matched case-sensitively: a
// name that differs from a field only in case is an unknown field, noted,
// and never read into the field.
func TestCaseVariantNames(t *testing.T) {
	for _, tc := range []struct {
		tool, in  string
		wantInput string
		wantNote  string
	}{
		{"convert_odds", `{"value":"+150","VALUE":"banana"}`, "+150", `ignored unknown field "VALUE"`},
		{"convert_odds", `{"VALUE":"banana","value":"+150"}`, "+150", `ignored unknown field "VALUE"`},
		{"convert_odds", `{"value":"+150","Value":"2.5"}`, "+150", `ignored unknown field "Value"`},
	} {
		res, err := Lookup(tc.tool).Call(context.Background(), []byte(tc.in))
		if err != nil {
			t.Fatalf("Call(%s): %v", tc.in, err)
		}
		if got := res.Output.(*convertOutput).Input; got != tc.wantInput {
			t.Errorf("Call(%s) read value %q, want %q", tc.in, got, tc.wantInput)
		}
		if !strings.Contains(strings.Join(res.Notes, "\n"), tc.wantNote) {
			t.Errorf("Call(%s) notes = %q, want %q", tc.in, res.Notes, tc.wantNote)
		}
	}
	// Only the case-variant name is unknown: no other field is.
	notes, err := Lookup("convert_odds").Check([]byte(`{"value":"+150","VALUE":"banana","from":"auto"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`ignored unknown field "VALUE"`}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestToolDecode: Tool.Decode refuses what the decoder refuses, with the
// error Check gives, and takes what only the limits refuse.
func TestToolDecode(t *testing.T) {
	tool := Lookup("convert_odds")
	for _, tc := range []struct {
		in        string
		wantNotes []string
		wantErr   string // "" for none
	}{
		{`{"value":"+150","compare_to":""}`, nil, ""}, // a limit: Check refuses it
		{`{"compare_to":"2"}`, nil, ""},               // a required field: Check refuses it
		{`{"value":"+150","extra":1}`, []string{`ignored unknown field "extra"`}, ""},
		{`{"value":true}`, nil, "value: must be a string or number, not a boolean"},
		{`[1]`, nil, "body: "},
	} {
		notes, err := tool.Decode([]byte(tc.in))
		if diff := cmp.Diff(tc.wantNotes, notes); diff != "" {
			t.Errorf("Decode(%s) notes (-want +got):\n%s", tc.in, diff)
		}
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("Decode(%s) = %v, want no error", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
			t.Errorf("Decode(%s) = %v, want an error starting %q", tc.in, err, tc.wantErr)
		}
		if _, checkErr := tool.Check([]byte(tc.in)); tc.wantErr != "" && (checkErr == nil || checkErr.Error() != err.Error()) {
			t.Errorf("Decode(%s) = %v, Check = %v: want the same error", tc.in, err, checkErr)
		}
	}
}

func TestDecodeStrict(t *testing.T) {
	for _, tc := range []struct{ in, field, problem string }{
		{`{"value":"+150","value":"2"}`, "value", "is given more than once"},
		{"{\"value\":\"\xff\"}", "value", "is not valid UTF-8 or has a lone UTF-16 surrogate (at byte 10)"},
		{`{"value":"\udc00"}`, "value", "is not valid UTF-8 or has a lone UTF-16 surrogate (at byte 10)"},
		{"{\"\xff\":1,\"value\":\"+150\"}", "\ufffd", "is not valid UTF-8 or has a lone UTF-16 surrogate (at byte 2)"},
		{`null`, "body", "is not a JSON object"},
		{`[]`, "body", "is not a JSON object"},
		{``, "body", "is empty"},
		{`{"value":"+150"} {}`, "body", "has data after the JSON object (at byte 17)"},
		{`{"value":true}`, "value", "must be a string or number, not a boolean"},
		{`{"value":null}`, "value", "must be a string or number, not null"},
		{`{"value":"+150","compare_to":""}`, "compare_to", "is 0 characters long; it must be at least 1"},
		{`{"compare_to":"2"}`, "value", "is required"},
	} {
		_, err := Lookup("convert_odds").Check([]byte(tc.in))
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, ErrInput) {
			t.Errorf("Check(%q) = %v, want an *InputError", tc.in, err)
			continue
		}
		if ie.Field != tc.field || ie.Problem != tc.problem || ie.Hint == "" {
			t.Errorf("Check(%q) = %q %q (hint %q), want %q %q", tc.in, ie.Field, ie.Problem, ie.Hint, tc.field, tc.problem)
		}
	}
}

// FuzzCall holds every tool's Call to its contract: it never panics; a
// failure is an *InputError naming a field (or the body) with a hint, or
// else an error of the service only for input the tool accepted; and an
// input the decoder and validator accept decodes to the same call when it
// is sent again re-encoded (a round trip through encoding/json); and the
// answer has the bytes encoding/json wrote (see checkEnvelope).
func FuzzCall(f *testing.F) {
	for _, t := range All() {
		f.Add(t.Name, string(t.Example))
	}
	f.Add("convert_odds", `{"value":"+150","VALUE":"banana"}`)
	f.Add("combine_forecasts", `{"forecasts":[{"p":0.5,"p":0.6}]}`)
	f.Add("score_forecasts", `{"forecasts":[{"p":"60%","outcome":true}],"bins":2}`)
	f.Fuzz(func(t *testing.T, name, in string) {
		tool := Lookup(name)
		if tool == nil {
			return
		}
		_, checkErr := tool.Check([]byte(in))
		if _, decodeErr := tool.Decode([]byte(in)); decodeErr != nil && (checkErr == nil || checkErr.Error() != decodeErr.Error()) {
			t.Fatalf("Decode(%q) = %v, Check = %v: what the decoder refuses, Check refuses alike", in, decodeErr, checkErr)
		}
		res, err := tool.Call(context.Background(), []byte(in))
		if checkErr != nil {
			var ie *InputError
			if !errors.As(checkErr, &ie) || ie.Field == "" || ie.Problem == "" || ie.Hint == "" {
				t.Fatalf("Check(%q) = %#v, want an *InputError with field, problem and hint", in, checkErr)
			}
			if err == nil || err.Error() != checkErr.Error() {
				t.Fatalf("Call(%q) = %v, Check = %v: they must agree", in, err, checkErr)
			}
			return
		}
		// Accepted: the same input, re-encoded, is accepted alike.
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return // a number encoding/json cannot hold; nothing to compare
		}
		again, _ := json.Marshal(v)
		if _, err := tool.Check(again); err != nil {
			t.Fatalf("Check(%q) accepts, Check(%s) refuses: %v", in, again, err)
		}
		if err == nil && res.Tool != name {
			t.Fatalf("Call(%q).Tool = %q", in, res.Tool)
		}
		if err == nil {
			checkEnvelope(t, res, "https://x.test/terms") // the answer's bytes are encoding/json's
		}
	})
}

// TestOutcomeKinds: an outcome is checked as the kind of JSON value it
// was sent as, so that a refused string is quoted as a string and gets the
// words' hint, and a refused number the numbers'.
func TestOutcomeKinds(t *testing.T) {
	const wordsHint = `send how the question resolved: "yes" or "no" (also "1", "0", "true", "false", 1, 0, true, false); case and surrounding spaces are ignored`
	for _, tc := range []struct {
		outcome string
		want    *InputError // nil: accepted
	}{
		{`"yes"`, nil}, {`" No "`, nil}, {`"TRUE"`, nil}, {`"1"`, nil}, {`"0"`, nil},
		{`1`, nil}, {`0`, nil}, {`true`, nil}, {`false`, nil},
		{`"2"`, &InputError{Field: "forecasts[0].outcome", Problem: `is "2", which is not of the accepted form`, Hint: wordsHint}},
		{`"-1"`, &InputError{Field: "forecasts[0].outcome", Problem: `is "-1", which is not of the accepted form`, Hint: wordsHint}},
		{`"1e0"`, &InputError{Field: "forecasts[0].outcome", Problem: `is "1e0", which is not of the accepted form`, Hint: wordsHint}},
		{`2`, &InputError{Field: "forecasts[0].outcome", Problem: `is 2, which is not one of the allowed values`, Hint: "use one of: 0, 1"}},
		{`-1`, &InputError{Field: "forecasts[0].outcome", Problem: `is -1, which is not one of the allowed values`, Hint: "use one of: 0, 1"}},
		{`""`, &InputError{Field: "forecasts[0].outcome", Problem: `is required`}},
	} {
		in := `{"forecasts":[{"p":0.5,"outcome":` + tc.outcome + `}]}`
		_, err := Lookup("score_forecasts").Check([]byte(in))
		if tc.want == nil {
			if err != nil {
				t.Errorf("Check(%s) = %v, want it accepted", in, err)
			}
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("Check(%s) = %v, want an *InputError", in, err)
			continue
		}
		got := InputError{Field: ie.Field, Problem: ie.Problem, Hint: ie.Hint}
		if tc.want.Hint == "" {
			got.Hint = ""
		}
		if diff := cmp.Diff(*tc.want, got); diff != "" {
			t.Errorf("Check(%s) (-want +got):\n%s", in, diff)
		}
	}
}
