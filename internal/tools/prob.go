package tools

import (
	"bytes"
	"encoding/json"
	"strconv"

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
func (p *Prob) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*p = Prob{text: s, isString: true}
		return nil
	}
	if _, err := strconv.ParseFloat(string(b), 64); err != nil {
		return &InputError{Problem: "is not a number or a percent string", Hint: `send 0.62, 62 or "62%"`}
	}
	*p = Prob{text: string(b)}
	return nil
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
