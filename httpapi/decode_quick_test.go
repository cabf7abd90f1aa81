package httpapi

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// quickJSONCases: the fast check must be certain on clean input and never
// accept what the token scan refuses.
var quickJSONCases = []struct {
	in         string
	objectOnly bool
	quick      bool
}{
	{`{"a":1,"b":[1,2,{"a":2,"b":"x"}],"c":{"a":null,"d":true}}`, true, true},
	{` {"a":"x\"y","b":"\\"} `, true, true},
	{`{"a":1,"a":2}`, true, false},
	{`{"a":{"b":1,"b":2}}`, true, false},
	{`[{"a":1},{"a":1}]`, false, true},    // the same key in two objects
	{`{"a\u0062":1,"ab":2}`, true, false}, // escaped key: the token scan compares
	{`[1,2]`, true, false},
	{`[1,2]`, false, true},
	{`{"a":1} x`, true, false},
	{`{"a":1`, true, false},
	{``, true, false},
	{`{"a":-1.5e3,"b":false}`, true, true},
	{`{"k":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}`, true, true},
	// Grammar: quickJSON reads JSON itself, strictly.
	{`{"a":01}`, true, false},
	{`{"a":1.}`, true, false},
	{`{"a":.5}`, true, false},
	{`{"a":-}`, true, false},
	{`{"a":1e}`, true, false},
	{`{"a":0.5E+10,"b":-0,"c":[0e0]}`, true, true},
	{`{"a":tru}`, true, false},
	{`{"a":nulll}`, true, false},
	{`{"a" 1}`, true, false},
	{`{"a":1,}`, true, false},
	{`{"a":1 "b":2}`, true, false},
	{`[1,]`, false, false},
	{`[,1]`, false, false},
	{`{,}`, true, false},
	{`{"a":"\x"}`, true, false},
	{"{\"a\":\"tab\there\"}", true, false}, // a raw control character
	{`{"a":"\t\n\"\\\/"}`, true, true},
	{`{"a\n":1,"a\n":2}`, true, false}, // escaped keys go to the token scan
	{`{} {}`, true, false},
	{`"x"`, false, true},
	{`  `, false, false},
	// What encoding/json accepts and the token scan refuses.
	{"{\"a\":\"\xff\"}", true, false}, // invalid UTF-8 in a value
	{"{\"\xc3\":1}", true, false},     // invalid UTF-8 in a key
	{`{"a":"\ud800"}`, true, false},   // a lone surrogate escape
	{`{"a":"\u00e9"}`, true, false},   // any \u escape goes to the token scan
	{`{"k":` + strings.Repeat("[", 33) + strings.Repeat("]", 33) + `}`, true, false}, // past maxJSONDepth
}

func TestQuickJSON(t *testing.T) {
	for _, tc := range quickJSONCases {
		quick := quickJSON([]byte(tc.in), tc.objectOnly)
		full := scanTokens([]byte(tc.in), "", tc.objectOnly)
		if quick != tc.quick || quick && full != nil {
			t.Errorf("quickJSON(%s, %v) = %v, want %v; token scan: %v", tc.in, tc.objectOnly, quick, tc.quick, full)
		}
	}
}

// FuzzQuickJSON checks that the fast check never accepts what the token
// scan refuses.
func FuzzQuickJSON(f *testing.F) {
	for _, tc := range quickJSONCases {
		f.Add(tc.in, tc.objectOnly)
	}
	f.Fuzz(func(t *testing.T, in string, objectOnly bool) {
		if quickJSON([]byte(in), objectOnly) {
			if err := scanTokens([]byte(in), "", objectOnly); err != nil {
				t.Errorf("quickJSON accepts %q, the token scan refuses: %v", in, err)
			}
		}
	})
}

func TestReadAll(t *testing.T) {
	body := strings.Repeat("0123456789", 1000) // 10,000 bytes
	errRead := errors.New("connection reset")
	tests := []struct {
		name    string
		r       func() io.Reader
		size    int64
		want    string
		wantErr error
	}{
		{"announced exactly", func() io.Reader { return strings.NewReader(body) }, int64(len(body)), body, nil},
		{"unknown length", func() io.Reader { return strings.NewReader(body) }, -1, body, nil},
		{"announced too short", func() io.Reader { return strings.NewReader(body) }, 10, body, nil},
		{"announced too long", func() io.Reader { return strings.NewReader(body) }, 60000, body, nil},
		{"announced over the limit", func() io.Reader { return strings.NewReader(body) }, MaxBodyBytes + 1, body, nil},
		{"empty", func() io.Reader { return strings.NewReader("") }, 0, "", nil},
		{"one byte at a time", func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) }, int64(len(body)), body, nil},
		{"data with EOF", func() io.Reader { return iotest.DataErrReader(strings.NewReader(body)) }, -1, body, nil},
		{"error midway", func() io.Reader {
			return io.MultiReader(strings.NewReader(body[:100]), iotest.ErrReader(errRead))
		}, int64(len(body)), body[:100], errRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(tt.r(), tt.size)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("readAll error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("readAll mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
