package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

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

// UnmarshalJSON accepts a JSON number or a JSON string.
// The text is read by [Prob.Read], whose errors the tools report with the
// field's name.
func (p *Prob) UnmarshalJSON(b []byte) error {
	s, quoted, err := scalarText(b)
	*p = Prob{text: s, isString: quoted}
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

// plainString reports whether s, the inside of a JSON string, needs no
// unescaping: valid UTF-8 without backslashes, quotes or control characters.
func plainString(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '\\' || c == '"' {
			return false
		}
	}
	return utf8.Valid(s)
}

// scalarText reads a JSON string or any other JSON scalar as text: the
// string's contents (quoted is true), or the literal as written (a number
// keeps its digits, so 0.10 is not rewritten as 0.1).
func scalarText(b []byte) (text string, quoted bool, err error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		// A plain string (no escapes, valid UTF-8) is its own text; other
		// strings go through the decoder, which unescapes them.
		if len(b) >= 2 && b[len(b)-1] == '"' && plainString(b[1:len(b)-1]) {
			return string(b[1 : len(b)-1]), true, nil
		}
		err := json.Unmarshal(b, &text)
		return text, true, err
	}
	return string(b), false, nil
}
