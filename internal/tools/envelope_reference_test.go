package tools

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// The answers are written with JSON v2 (AppendEnvelope) and must keep the
// bytes encoding/json wrote, which clients and golden files know. This
// file holds that reference, the envelope as encoding/json wrote it, and
// the tests that compare the two.

func referenceEnvelope(r *Result, terms string) ([]byte, error) {
	notes := r.Notes
	if notes == nil {
		notes = []string{}
	}
	out, err := stdjson.Marshal(r.Output) // HTML-escaped, as json.Marshal writes
	if err != nil {
		return nil, err
	}
	inner := out[1 : len(out)-1]
	var b bytes.Buffer
	write := func(v any) {
		enc := stdjson.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		b.Truncate(b.Len() - 1) // Encode adds a newline
	}
	if r.Tool != "" {
		b.WriteString(`{"tool":`)
		write(r.Tool)
		b.WriteString(`,"summary":`)
	} else {
		b.WriteString(`{"summary":`)
	}
	write(r.Summary)
	if len(inner) > 0 {
		b.WriteByte(',')
		b.Write(inner)
	}
	b.WriteString(`,"notes":`)
	write(notes)
	b.WriteString(`,"disclaimer":`)
	write(Disclaimer)
	b.WriteString(`,"terms":`)
	write(terms)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// checkEnvelope fails t unless AppendEnvelope writes what encoding/json wrote.
func checkEnvelope(t *testing.T, r *Result, terms string) {
	t.Helper()
	want, err := referenceEnvelope(r, terms)
	if err != nil {
		t.Fatalf("reference envelope of %+v: %v", r, err)
	}
	got, err := r.AppendEnvelope(nil, terms)
	if err != nil {
		t.Fatalf("AppendEnvelope(%+v): %v", r, err)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("AppendEnvelope differs from encoding/json (-want +got):\n%s", cmp.Diff(string(want), string(got)))
	}
}

// envelopeKinds is an output with the kinds of field the answers carry.
type envelopeKinds struct {
	Text      string             `json:"text"`
	Empty     string             `json:"empty,omitempty"`
	Number    float64            `json:"number"`
	Zero      float64            `json:"zero,omitempty"`
	Count     int                `json:"count,omitempty"`
	Flag      bool               `json:"flag,omitempty"`
	Pointer   *float64           `json:"pointer"`
	NilPtr    *float64           `json:"nil_ptr,omitempty"`
	List      []string           `json:"list"`
	NilList   []string           `json:"nil_list"`
	Map       map[string]float64 `json:"map"`
	NilMap    map[string]int     `json:"nil_map"`
	Items     []envelopeItem     `json:"items"`
	Raw       stdjson.RawMessage `json:"raw,omitempty"`
	Unchanged string             `json:"-"`
	envelopeItem
}

type envelopeItem struct {
	Who string  `json:"who,omitempty"`
	P   float64 `json:"p"`
}

func kindsOf(s string, f float64) envelopeKinds {
	return envelopeKinds{
		Text: s, Number: f, Pointer: &f, List: []string{s, ""}, Map: map[string]float64{s: f, "b": 1, "a": -0.5},
		Items: []envelopeItem{{Who: s, P: f}, {}}, Raw: stdjson.RawMessage(`{"x":"<&>"}`), envelopeItem: envelopeItem{Who: s},
	}
}

var envelopeTexts = []string{"", "plain", "<b>a & b</b>", "é\u2028\u2029", "quote \" and \\ backslash", "\x00\x01\b\f\n\r\t\x1f\x7f",
	"😀 \ufeff \ufffd", "a\u2028", "</script>", "line\nbreak"}

var envelopeFloats = []float64{0, math.Copysign(0, -1), 1, 0.1, 1e-7, 1e-6, 1e20, 1e21, 123456789012345678, 5e-324, math.MaxFloat64, -2.5, 0.30000000000000004, 1.0 / 3}

func TestEnvelopeMatchesEncodingJSON(t *testing.T) {
	for _, tool := range append(All(), testTool) {
		res, err := tool.Call(WithBaseURL(context.Background(), "https://x.test"), tool.Example)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		checkEnvelope(t, res, "https://x.test/terms")
	}
	for i, s := range envelopeTexts {
		for _, f := range envelopeFloats {
			checkEnvelope(t, &Result{Tool: s, Summary: s, Output: kindsOf(s, f), Notes: []string{s, "n"}}, s)
		}
		checkEnvelope(t, &Result{Summary: s, Output: struct{}{}, Notes: envelopeTexts[i:]}, "")
		checkEnvelope(t, &Result{Summary: s, Output: map[string]any{"b": s, "a": []any{1.5, nil, s}}}, "t")
	}
}

// FuzzEnvelopeMatchesEncodingJSON checks that, for any strings and
// numbers, AppendEnvelope writes what encoding/json wrote. Strings of
// invalid UTF-8 are left out: no answer carries one (the decoder, the
// board and the mail parser refuse or repair them before), and JSON v2
// writes each bad byte as U+FFFD itself where encoding/json wrote its
// escape, \ufffd: the same JSON string, in other bytes.
func FuzzEnvelopeMatchesEncodingJSON(f *testing.F) {
	for i, s := range envelopeTexts {
		f.Add(s, envelopeTexts[(i+1)%len(envelopeTexts)], envelopeFloats[i%len(envelopeFloats)])
	}
	f.Fuzz(func(t *testing.T, a, b string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return // refused by both
		}
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		checkEnvelope(t, &Result{Tool: a, Summary: b, Output: kindsOf(a, x), Notes: []string{b, a}}, b)
	})
}
