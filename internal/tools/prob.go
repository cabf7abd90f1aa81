package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/predictions-md/predictions/odds"
)

// Prob is a probability as a client sends it: a number or a string ending
// in % (a percent). Decoding only keeps what was sent (the number literal
// as written, or the string); the reading waits for the whole request,
// since the bare numbers of one array are read on one scale by
// [odds.ReadGroup] (see readGroup and readLone).
type Prob struct {
	text     string
	isString bool
}

// UnmarshalJSONFrom accepts a JSON number or a JSON string; the text is
// read later, with its neighbours (see readGroup and readLone).
func (p *Prob) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	text, kind, err := readScalar(dec, `"0`)
	*p = Prob{text: text, isString: kind == '"'}
	return err
}

// MarshalJSON writes the probability as it was sent.
func (p Prob) MarshalJSON() ([]byte, error) {
	if p.isString {
		return json.Marshal(p.text)
	}
	return []byte(p.text), nil
}

// ProbOf returns the Prob a client would send as the number x.
func ProbOf(x float64) Prob { return Prob{text: strconv.FormatFloat(x, 'g', -1, 64)} }

// IsZero reports whether no value was sent.
func (p Prob) IsZero() bool { return p.text == "" && !p.isString }

// Sent is the probability as sent, for the readers of package odds.
func (p Prob) Sent() odds.Sent { return odds.Sent{Text: p.text, Quoted: p.isString} }

// readGroup reads one array's probabilities by the rule of
// [odds.ReadGroup]; name(i) is item i's field name. A mix of fractions and
// percents is an InputError naming the items, with both spellings.
func readGroup(ps []Prob, name func(int) string) ([]odds.Reading, []string, error) {
	sent := make([]odds.Sent, len(ps))
	for i, p := range ps {
		sent[i] = p.Sent()
	}
	rs, notes, err := odds.ReadGroup(sent, name)
	if err != nil {
		return nil, nil, probError(err, name(0))
	}
	return rs, notes, nil
}

// readLone reads a probability that stands alone by [odds.ReadLone].
func readLone(p Prob, name string) (odds.Reading, []string, error) {
	r, notes, err := odds.ReadLone(p.Sent(), name)
	if err != nil {
		return r, nil, probError(err, name)
	}
	return r, notes, nil
}

// probError turns a reading error into an InputError. The field is the
// one the odds.Error names (its Reason starts with it), else first.
func probError(err error, first string) error {
	var se *odds.ScaleError
	if errors.As(err, &se) {
		field := first
		if len(se.Percents) > 0 {
			field, _, _ = strings.Cut(se.Percents[0], " ")
		}
		return &InputError{Field: field, Problem: se.Error(), Hint: se.Hint(), Err: err}
	}
	e := fieldError(first, err, probHint)
	var oe *odds.Error
	if errors.As(err, &oe) {
		if f, rest, ok := strings.Cut(oe.Reason, " "); ok {
			e.Field, e.Problem = f, rest
		}
	}
	return e
}

// readScalar reads a JSON value of one of the given kinds ('"' string,
// '0' number, 't' and 'f' booleans) as text, reading it once: a string's
// contents, or the literal as written (a number keeps its digits, so 0.10
// is not rewritten as 0.1). A value of another kind is skipped and
// reported as a [*kindError], which the decoder's errors word.
func readScalar(dec *jsontext.Decoder, kinds string) (string, jsontext.Kind, error) {
	k := dec.PeekKind()
	if strings.IndexByte(kinds, byte(k)) < 0 {
		if err := dec.SkipValue(); err != nil {
			return "", 0, err
		}
		return "", 0, &kindError{got: k}
	}
	v, err := dec.ReadValue() // checked by the decoder: its syntax and UTF-8
	if err != nil {
		return "", 0, err
	}
	switch k {
	case 't':
		return "true", k, nil
	case 'f':
		return "false", k, nil
	case '0':
		return string(v), k, nil
	}
	if b := v[1 : len(v)-1]; bytes.IndexByte(b, '\\') < 0 {
		return commonText(b), k, nil
	}
	b, err := jsontext.AppendUnquote(nil, v)
	return string(b), k, err
}

// commonText is string(b), without a copy for the words that outcomes
// and odds are usually sent as.
func commonText(b []byte) string {
	switch string(b) { // compared without a copy
	case "yes":
		return "yes"
	case "no":
		return "no"
	case "true":
		return "true"
	case "false":
		return "false"
	case "1":
		return "1"
	case "0":
		return "0"
	case "evens":
		return "evens"
	}
	return string(b)
}
