package odds

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Sent is a probability as a client sent it, before it is read: the text
// of a JSON number literal as written, or the contents of a JSON string.
// Reading it waits for the whole request, because the rule in
// [ReadGroup] reads the bare numbers of one array on one scale.
type Sent struct {
	// Text is the number literal ("0.62", "62", "1e-3") or the string's
	// contents ("62%").
	Text string
	// Quoted is true when the value was a JSON string.
	Quoted bool
}

// Reading is a probability as read by [ReadGroup], [ReadLone] or
// [ReadFraction].
type Reading struct {
	// P is the probability in [0, 1]: the float64 nearest the exact value
	// of the text (so "99.9%" is the double nearest 0.999).
	P float64
	// ReadAs is [Probability] (a fraction) or [Percent].
	ReadAs Notation

	// The exact probability: the number as written, times 10^shift
	// (-2 for a percent). The zero value means only P is known.
	exact decimal
	shift int
}

// Odds returns the odds P/(1-P) computed from the exact value, rounded
// once, so that a prior of 0.999999999999 keeps its digits (+Inf for 1).
func (r Reading) Odds() float64 {
	d, shift := r.exact, r.shift
	if d.isZero() {
		return r.P / (1 - r.P)
	}
	switch d.cmpPow10(-shift) {
	case 0:
		return math.Inf(1)
	case 1:
		return math.NaN() // above 1: no reader returns it
	}
	// p = m 10^low < 1, so low < 0 and the odds are m / (10^-low - m).
	low := d.low() + shift
	if m, ok := d.uint64(); ok && -low < len(pow10) {
		return ratFloat(m, uint64(pow10[-low])-m)
	}
	p := d.rat()
	p.Mul(p, new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil)))
	o, _ := p.Quo(p, new(big.Rat).Sub(ratOne, p)).Float64()
	return o
}

// scale is what a bare number says about the scale of its neighbours.
type scale int

const (
	neutral  scale = iota // 0 or 1: either scale
	fraction              // strictly between 0 and 1
	percent               // above 1, or a string with %
)

// item is one parsed input.
type item struct {
	d      decimal // the number as written (before any /100)
	pct    bool    // a string with %
	says   scale
	text   string
	quoted bool
}

const readingHint = `send fractions such as 0.62, or percents as strings such as "62%"`

// parseSent reads the number of s, item i; name(i) is the field's name,
// asked for an error only.
func parseSent(s Sent, i int, name func(int) string) (item, error) {
	in := strings.TrimSpace(s.Text)
	it := item{text: in, quoted: s.Quoted}
	bad := func(err error, reason, hint string) error {
		return &Error{Input: in, Err: err, Reason: name(i) + " " + reason, Hint: hint}
	}
	if len(in) > MaxLen {
		return it, bad(ErrSyntax, "is longer than "+strconv.Itoa(MaxLen)+" bytes", readingHint)
	}
	num := in
	if s.Quoted && strings.HasSuffix(in, "%") {
		it.pct = true
		num = strings.TrimSpace(strings.TrimSuffix(in, "%"))
	}
	d, f := unsigned(num)
	if f != nil {
		hint := f.hint
		if hint == "" {
			hint = readingHint
		}
		return it, bad(f.err, f.reason, hint)
	}
	it.d = d
	if !d.isZero() && d.cmpPow10(-300) < 0 {
		// Below 1e-300 a probability's odds and logarithms reach subnormal
		// doubles, which lose digits (Go issue 56600): refused, not flushed.
		return it, bad(ErrRange, "is above 0 but below 1e-300, too small to compute with", "send 0 for impossible, or at least 1e-300")
	}
	switch {
	case it.pct:
		if d.cmpPow10(2) > 0 {
			return it, bad(ErrRange, "is above 100%", `send a percent from "0%" to "100%"`)
		}
		it.says = percent
	case d.cmpPow10(2) > 0:
		return it, bad(ErrRange, "is above 100, and a probability is 0 to 1 or 0% to 100%", readingHint)
	case d.isZero() || d.cmpPow10(0) == 0:
		it.says = neutral
	case d.cmpPow10(0) < 0:
		it.says = fraction
	default:
		it.says = percent
	}
	return it, nil
}

// reading turns an item into a Reading on the given scale.
func (it item) reading(asPercent bool) Reading {
	if it.pct || asPercent {
		return Reading{P: it.d.float(-2), ReadAs: Percent, exact: it.d, shift: -2}
	}
	return Reading{P: it.d.float(0), ReadAs: Probability, exact: it.d}
}

// ScaleError is a group of probabilities whose bare numbers say both
// scales: some lie strictly between 0 and 1 (fractions) and some above 1
// (percents). It names the items of each kind and spells them both ways.
type ScaleError struct {
	// Fractions and Percents name the items, as the name function of
	// ReadGroup gave them, with their text.
	Fractions, Percents []string
	fracText, pctText   []string // the items spelled on the other scale
}

// Error lists the items and how to write them on one scale.
func (e *ScaleError) Error() string {
	return "probabilities mix fractions and percents: " + strings.Join(e.Fractions, ", ") +
		" read as fractions but " + strings.Join(e.Percents, ", ") + " as percents"
}

// Hint shows the percents as fractions and the fractions as percents.
func (e *ScaleError) Hint() string {
	return "write all as fractions (" + strings.Join(e.fracText, ", ") + ") or all as percent strings (" +
		strings.Join(e.pctText, ", ") + ")"
}

// Unwrap is ErrRange, so errors.Is(err, ErrRange) holds.
func (e *ScaleError) Unwrap() error { return ErrRange }

// ReadGroup reads the probabilities of one array of forecasts on one
// scale, the rule of every tool that takes such an array:
//   - a string ending in % is a percent, always;
//   - a bare number strictly between 0 and 1 says the array is in
//     fractions, and one above 1 (up to 100) says percents;
//   - 0 and 1 take the scale the others say, and fractions when nothing
//     else says (so [0, 1, 0.7] is certain no, certain yes and 70%);
//   - bare numbers saying both scales are a [*ScaleError] naming them.
//
// A quoted number without % ("0.62") is read as the bare number. name(i)
// names item i in errors and notes ("forecasts[2].p"). The notes say
// which bare numbers were read as percents, whenever that happened.
// Other errors are [*Error] values naming the item in Reason, wrapping
// ErrSyntax (not a number) or ErrRange (negative, above 100 or 100%).
func ReadGroup(sent []Sent, name func(int) string) ([]Reading, []string, error) {
	// The first pass parses each number into its Reading and counts what
	// the bare numbers say; the second puts them on one scale. A percent
	// string has its shift (-2) from the first pass.
	out := make([]Reading, len(sent))
	var fractions, percents int
	for i, s := range sent {
		it, err := parseSent(s, i, name)
		if err != nil {
			return nil, nil, err
		}
		out[i].exact = it.d
		switch {
		case it.pct:
			out[i].shift = -2
		case it.says == fraction:
			fractions++
		case it.says == percent:
			percents++
		}
	}
	if fractions > 0 && percents > 0 {
		return nil, nil, scaleError(sent, name)
	}
	asPercent := percents > 0
	var bare []string
	for i := range out {
		r := &out[i]
		if r.shift == 0 && !asPercent {
			r.P, r.ReadAs = r.exact.float(0), Probability
			continue
		}
		if r.shift == 0 {
			bare = append(bare, name(i)+" = "+strings.TrimSpace(sent[i].Text))
		}
		r.P, r.ReadAs, r.shift = r.exact.float(-2), Percent, -2
	}
	var notes []string
	if len(bare) > 0 {
		notes = append(notes, "read as percents, because some bare numbers are above 1: "+strings.Join(bare, ", ")+
			`; to be explicit, send fractions such as 0.62 or strings such as "62%"`)
	}
	return out, notes, nil
}

// scaleError is the [*ScaleError] of a group whose bare numbers say both
// scales (every number of it parses).
func scaleError(sent []Sent, name func(int) string) *ScaleError {
	e := &ScaleError{}
	for i, s := range sent {
		it, _ := parseSent(s, i, name)
		if it.pct {
			continue
		}
		shift := 0 // of the fraction
		if it.says == percent {
			e.Percents = append(e.Percents, name(i)+" = "+it.text)
			shift = -2
		} else if it.says == fraction {
			e.Fractions = append(e.Fractions, name(i)+" = "+it.text)
		}
		e.fracText = append(e.fracText, it.d.textAt(shift))
		e.pctText = append(e.pctText, strconv.Quote(it.d.textAt(shift+2)+"%"))
	}
	return e
}

// ReadLone reads a probability that stands alone (a prior): a bare number
// below 1 is a fraction, above 1 (to 100) a percent, with a note; a
// string ending in % is a percent; a bare 1 is an [*Error] wrapping
// [ErrCertain] whose hint offers "1%", 0.01 and 0.999, since it could be
// either. name names the field in errors and notes.
func ReadLone(s Sent, name string) (Reading, []string, error) {
	it, err := parseSent(s, 0, func(int) string { return name })
	if err != nil {
		return Reading{}, nil, err
	}
	if !it.pct && it.d.cmpPow10(0) == 0 {
		return Reading{}, nil, &Error{Input: it.text, Err: ErrCertain,
			Reason: name + " is 1, which could mean 1% or certainty",
			Hint:   `send "1%" or 0.01 for one percent, or 0.999 for near-certainty`}
	}
	r := it.reading(!it.pct && it.says == percent)
	if !it.pct && it.says == percent {
		return r, []string{name + " = " + it.text + ` was read as a percent (` + it.text + `%), because it is above 1; send ` +
			it.d.textAt(-2) + ` or "` + it.text + `%" to be explicit`}, nil
	}
	return r, nil, nil
}

// ReadFraction reads a probability by the agent board's rule: a bare
// number is a fraction in [0, 1] (75 is an [*Error] wrapping [ErrRange]
// whose hint offers 0.75 or "75%"), and a string ending in % is a percent.
func ReadFraction(s Sent, name string) (Reading, error) {
	it, err := parseSent(s, 0, func(int) string { return name })
	if err != nil {
		return Reading{}, err
	}
	if !it.pct && it.d.cmpPow10(0) > 0 {
		q := it.d.textAt(-2)
		return Reading{}, &Error{Input: it.text, Err: ErrRange,
			Reason: name + " is " + it.text + ", outside 0 to 1",
			Hint:   name + " is a fraction, not a percent: " + q + " means " + it.text + "%; send " + q + ` or "` + it.text + `%" for ` + it.text + "%"}
	}
	return it.reading(false), nil
}
