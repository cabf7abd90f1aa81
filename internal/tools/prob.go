package tools

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/predictions-md/predictions/odds"
)

// Prob is a probability as a client sends it: a number (below 1 a fraction,
// from 1 to 100 a percent) or a string ending in % (a percent). It keeps the
// text so that [Prob.Read] can say how it was read.
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

// Read returns the probability in [0, 1] and how it was read: "probability"
// for a fraction, "percent" for a percent, by the rule of
// [odds.ReadProbability]: below 1 a fraction, from 1 to 100 a percent, a
// string ending in % a percent.
func (p Prob) Read() (float64, string, error) {
	v, as, err := odds.ReadProbabilityText(p.text)
	return v, string(as), err
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
