package odds

import (
	"errors"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The readers of probabilities (reading.go) work on the digits of a
// decimal (decimal.go). This file holds the reference they must match
// exactly: the same rule computed in exact rationals (math/big), with a
// number grammar of its own. FuzzReadingMatchesRationals and
// TestReadingMatchesRationals compare the two.

// refNumber reads an unsigned decimal number into a big.Rat: the grammar
// parseNumber implements, written independently.
func refNumber(s string) (*big.Rat, *failure) {
	bad := func() *failure {
		if strings.Contains(s, ",") {
			return &failure{err: ErrSyntax, reason: "has a comma",
				hint: "write decimals with a point and no thousands separator, such as 1.91 or 1000"}
		}
		if s == "" {
			return &failure{err: ErrSyntax, reason: "has no number"}
		}
		return &failure{err: ErrSyntax, reason: "is not a number"}
	}
	var ds []byte // the mantissa's digits
	frac, point, i := 0, false, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			ds = append(ds, c)
			if point {
				frac++
			}
		} else if c == '.' && !point {
			point = true
		} else {
			break
		}
	}
	if len(ds) == 0 {
		return nil, bad()
	}
	exp, j, ok := readExponent(s, i)
	if !ok {
		return nil, bad()
	}
	if exp > maxExponent || exp < -maxExponent {
		if j != len(s) {
			return nil, bad()
		}
		return nil, &failure{err: ErrRange, reason: "has an exponent beyond ±" + strconv.Itoa(maxExponent),
			hint: "write the number with a smaller exponent, such as 1e-6"}
	}
	if j != len(s) {
		return nil, bad()
	}
	r, _ := new(big.Rat).SetString(string(ds))
	scale := exp - frac
	pow := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(scale))), nil))
	if scale >= 0 {
		return r.Mul(r, pow), nil
	}
	return r.Quo(r, pow), nil
}

func refUnsigned(s string) (*big.Rat, *failure) {
	rest, sign := cutSign(s)
	r, f := refNumber(rest)
	if f != nil {
		return nil, f
	}
	if sign < 0 && r.Sign() != 0 {
		return nil, &failure{err: ErrRange, reason: "is negative"}
	}
	return r, nil
}

var refMinReadable = new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(300), nil))

// refItem is one parsed input of the reference.
type refItem struct {
	r      *big.Rat
	pct    bool
	says   scale
	text   string
	quoted bool
}

// refReading is what the reference reads: P, ReadAs and the exact value.
type refReading struct {
	P      float64
	ReadAs Notation
	exact  *big.Rat
}

func (r refReading) Odds() float64 {
	if r.exact == nil {
		return r.P / (1 - r.P)
	}
	one := new(big.Rat).Sub(ratOne, r.exact)
	if one.Sign() == 0 {
		return math.Inf(1)
	}
	o, _ := new(big.Rat).Quo(r.exact, one).Float64()
	return o
}

func refParseSent(s Sent, name string) (refItem, error) {
	in := strings.TrimSpace(s.Text)
	it := refItem{text: in, quoted: s.Quoted}
	bad := func(err error, reason, hint string) error {
		return &Error{Input: in, Err: err, Reason: name + " " + reason, Hint: hint}
	}
	if len(in) > MaxLen {
		return it, bad(ErrSyntax, "is longer than "+strconv.Itoa(MaxLen)+" bytes", readingHint)
	}
	num := in
	if s.Quoted && strings.HasSuffix(in, "%") {
		it.pct = true
		num = strings.TrimSpace(strings.TrimSuffix(in, "%"))
	}
	r, f := refUnsigned(num)
	if f != nil {
		hint := f.hint
		if hint == "" {
			hint = readingHint
		}
		return it, bad(f.err, f.reason, hint)
	}
	it.r = r
	if r.Sign() > 0 && r.Cmp(refMinReadable) < 0 {
		return it, bad(ErrRange, "is above 0 but below 1e-300, too small to compute with", "send 0 for impossible, or at least 1e-300")
	}
	switch {
	case it.pct:
		if r.Cmp(ratHundred) > 0 {
			return it, bad(ErrRange, "is above 100%", `send a percent from "0%" to "100%"`)
		}
		it.says = percent
	case r.Cmp(ratHundred) > 0:
		return it, bad(ErrRange, "is above 100, and a probability is 0 to 1 or 0% to 100%", readingHint)
	case r.Sign() == 0 || r.Cmp(ratOne) == 0:
		it.says = neutral
	case r.Cmp(ratOne) < 0:
		it.says = fraction
	default:
		it.says = percent
	}
	return it, nil
}

func (it refItem) reading(asPercent bool) refReading {
	r := it.r
	as := Probability
	if it.pct || asPercent {
		r = new(big.Rat).Quo(r, ratHundred)
		as = Percent
	}
	p, _ := r.Float64()
	return refReading{P: p, ReadAs: as, exact: r}
}

func refRatText(r *big.Rat) string {
	if s, ok := terminating(r, MaxLen); ok {
		return s
	}
	f, _ := r.Float64()
	return floatText(f)
}

func refReadGroup(sent []Sent, name func(int) string) ([]refReading, []string, error) {
	items := make([]refItem, len(sent))
	var fr, pc []int
	for i, s := range sent {
		it, err := refParseSent(s, name(i))
		if err != nil {
			return nil, nil, err
		}
		items[i] = it
		if !it.pct {
			switch it.says {
			case fraction:
				fr = append(fr, i)
			case percent:
				pc = append(pc, i)
			}
		}
	}
	if len(fr) > 0 && len(pc) > 0 {
		e := &ScaleError{}
		for i, it := range items {
			if it.pct {
				continue
			}
			q := it.r
			if it.says == percent {
				e.Percents = append(e.Percents, name(i)+" = "+it.text)
				q = new(big.Rat).Quo(it.r, ratHundred)
			} else if it.says == fraction {
				e.Fractions = append(e.Fractions, name(i)+" = "+it.text)
			}
			e.fracText = append(e.fracText, refRatText(q))
			e.pctText = append(e.pctText, strconv.Quote(refRatText(new(big.Rat).Mul(q, ratHundred))+"%"))
		}
		return nil, nil, e
	}
	asPercent := len(pc) > 0
	out := make([]refReading, len(items))
	var bare []string
	for i, it := range items {
		out[i] = it.reading(asPercent)
		if asPercent && !it.pct {
			bare = append(bare, name(i)+" = "+it.text)
		}
	}
	var notes []string
	if len(bare) > 0 {
		notes = append(notes, "read as percents, because some bare numbers are above 1: "+strings.Join(bare, ", ")+
			`; to be explicit, send fractions such as 0.62 or strings such as "62%"`)
	}
	return out, notes, nil
}

func refReadLone(s Sent, name string) (refReading, []string, error) {
	it, err := refParseSent(s, name)
	if err != nil {
		return refReading{}, nil, err
	}
	if !it.pct && it.r.Cmp(ratOne) == 0 {
		return refReading{}, nil, &Error{Input: it.text, Err: ErrCertain,
			Reason: name + " is 1, which could mean 1% or certainty",
			Hint:   `send "1%" or 0.01 for one percent, or 0.999 for near-certainty`}
	}
	r := it.reading(!it.pct && it.says == percent)
	if !it.pct && it.says == percent {
		return r, []string{name + " = " + it.text + ` was read as a percent (` + it.text + `%), because it is above 1; send ` +
			refRatText(r.exact) + ` or "` + it.text + `%" to be explicit`}, nil
	}
	return r, nil, nil
}

func refReadFraction(s Sent, name string) (refReading, error) {
	it, err := refParseSent(s, name)
	if err != nil {
		return refReading{}, err
	}
	if !it.pct && it.r.Cmp(ratOne) > 0 {
		q := new(big.Rat).Quo(it.r, ratHundred)
		return refReading{}, &Error{Input: it.text, Err: ErrRange,
			Reason: name + " is " + it.text + ", outside 0 to 1",
			Hint:   name + " is a fraction, not a percent: " + refRatText(q) + " means " + it.text + "%; send " + refRatText(q) + ` or "` + it.text + `%" for ` + it.text + "%"}
	}
	return it.reading(false), nil
}

// readingView is what a caller sees of a Reading.
type readingView struct {
	P, Odds float64
	ReadAs  Notation
}

// errorView is what a caller sees of a reading error.
type errorView struct {
	Text, Hint string
	Sentinels  [3]bool
	Detail     any
}

func viewError(err error) *errorView {
	if err == nil {
		return nil
	}
	v := &errorView{Text: err.Error()}
	for i, s := range []error{ErrSyntax, ErrRange, ErrCertain} {
		v.Sentinels[i] = errors.Is(err, s)
	}
	var se *ScaleError
	var oe *Error
	switch {
	case errors.As(err, &se):
		v.Hint = se.Hint()
		v.Detail = [2][]string{se.Fractions, se.Percents}
	case errors.As(err, &oe):
		v.Detail = *oe
	}
	return v
}

func viewReadings[R interface {
	Odds() float64
}](rs []R, p func(R) (float64, Notation)) []readingView {
	var out []readingView
	for _, r := range rs {
		x, as := p(r)
		out = append(out, readingView{P: x, Odds: r.Odds(), ReadAs: as})
	}
	return out
}

// sameReadings reports whether a and b are equal, floats bit for bit.
func sameReadings(a, b []readingView) bool {
	return slices.EqualFunc(a, b, func(x, y readingView) bool {
		return x.ReadAs == y.ReadAs && math.Float64bits(x.P) == math.Float64bits(y.P) && math.Float64bits(x.Odds) == math.Float64bits(y.Odds)
	})
}

// checkOne fails t with a diff unless the reader's results equal the
// reference's; cmp.Diff runs only on a mismatch.
func checkOne(t *testing.T, what string, in any, want, got []readingView, wantNotes, gotNotes []string, wantErr, gotErr error) {
	t.Helper()
	w, g := viewError(wantErr), viewError(gotErr)
	if sameReadings(want, got) && slices.Equal(wantNotes, gotNotes) && reflect.DeepEqual(w, g) {
		return
	}
	t.Fatalf("%s(%+v) mismatch (-reference +got):\n%s", what, in,
		cmp.Diff([]any{want, wantNotes, w}, []any{got, gotNotes, g}, bitsEqual))
}

// checkReadingMatches fails t unless the readers give what the reference
// gives for the group in, alone and by the board's rule, bit for bit.
func checkReadingMatches(t *testing.T, in []Sent) {
	t.Helper()
	name := func(i int) string { return "forecasts[" + strconv.Itoa(i) + "].p" }
	got, gotNotes, gotErr := ReadGroup(in, name)
	want, wantNotes, wantErr := refReadGroup(in, name)
	g := viewReadings(got, func(r Reading) (float64, Notation) { return r.P, r.ReadAs })
	w := viewReadings(want, func(r refReading) (float64, Notation) { return r.P, r.ReadAs })
	checkOne(t, "ReadGroup", in, w, g, wantNotes, gotNotes, wantErr, gotErr)
	for _, s := range in {
		r, notes, err := ReadLone(s, "prior")
		wr, wnotes, werr := refReadLone(s, "prior")
		g := viewReadings([]Reading{r}, func(r Reading) (float64, Notation) { return r.P, r.ReadAs })
		w := viewReadings([]refReading{wr}, func(r refReading) (float64, Notation) { return r.P, r.ReadAs })
		if err != nil || werr != nil {
			g, w = nil, nil // an error's reading is not used
		}
		checkOne(t, "ReadLone", s, w, g, wnotes, notes, werr, err)
		fr, err := ReadFraction(s, "confidence")
		wfr, werr := refReadFraction(s, "confidence")
		g = viewReadings([]Reading{fr}, func(r Reading) (float64, Notation) { return r.P, r.ReadAs })
		w = viewReadings([]refReading{wfr}, func(r refReading) (float64, Notation) { return r.P, r.ReadAs })
		if err != nil || werr != nil {
			g, w = nil, nil
		}
		checkOne(t, "ReadFraction", s, w, g, nil, nil, werr, err)
	}
}

// readingTexts are numbers of every shape the rule reads or refuses.
var readingTexts = append([]string{
	"0", "1", "0.5", "100", "50", "62", "99.9", "99.99", "0.999", "0.001", "0.1", "0.3", "0.7", "33.333", "66.7",
	"100.0", "100.00001", "1.0", "1.00", "0.0", "0e5", "0.000", "-0", "+0.5", "+ 0.5", "- 0", "−0", "−5", "-5",
	"1e-300", "9.99e-301", "1e-301", "1.0e-300", "0.1e-299", "10e-301", "1e2", "1E2", "1e+2", "1e-0", ".5", "5.", "00.5",
	"1e-3", "1e-330", "1e330", "1e-331", "1e0000000000000000000001", "123456789012345678901234567890e-30",
	"0.123456789012345678901234567890123456789", "99.999999999999999999999", "0.99999999999999999999999",
	"1.0000000000000000001", "1.000000000000000000000000001", "0.999999999999", "0.9999999999999999999",
	"0.30000000000000004", "0.1000000000000000055511151231257827", "2.2250738585072014e-308", "1e-299", "1e-200",
	"1e-98", "1e-99", "1e-100", "1e-101", "0." + strings.Repeat("0", 97) + "1", "0." + strings.Repeat("0", 98) + "1",
	"12.5", "3", "2.5", "75", "1000000000000000000000e-20", "9223372036854775807e-18", "18446744073709551615e-19",
	"18446744073709551616e-20", "5e-1", "50e-2", "0.5e1", "0.05e2",
	"abc", "", " ", "1,5", "0x10", "NaN", "Inf", "1e", "1e+", "..5", "1.2.3", "5%%", "1/2", "1_000", "e5", ".",
}, strings.Repeat("9", 99), "0."+strings.Repeat("9", 98), strings.Repeat("1", 101))

func TestReadingMatchesRationals(t *testing.T) {
	var sents []Sent
	for _, x := range readingTexts {
		sents = append(sents, Sent{Text: x}, Sent{Text: x, Quoted: true}, Sent{Text: x + "%", Quoted: true},
			Sent{Text: " " + x + " % ", Quoted: true}, Sent{Text: x + "%"})
	}
	for _, s := range sents {
		checkReadingMatches(t, []Sent{s})
	}
	for i, a := range sents {
		for _, b := range sents[i%97 : i%97+5] {
			checkReadingMatches(t, []Sent{a, b, {Text: "0"}, {Text: "1"}})
		}
	}
	// The number grammar alone, beyond what the readers accept.
	for _, x := range readingTexts {
		checkNumberMatches(t, x)
	}
}

// checkNumberMatches fails t unless parseNumber reads s as refNumber does.
func checkNumberMatches(t *testing.T, s string) {
	t.Helper()
	d, f := parseNumber(s)
	r, rf := refNumber(s)
	if (f == nil) != (rf == nil) || f != nil && *f != *rf {
		t.Fatalf("parseNumber(%q) failure = %+v, reference %+v", s, f, rf)
	}
	if f != nil {
		return
	}
	if d.rat().Cmp(r) != 0 {
		t.Fatalf("parseNumber(%q) = %v, reference %v", s, d.rat(), r)
	}
	for _, k := range []int{-300, -2, 0, 2} {
		pow := new(big.Rat).SetFrac(big.NewInt(1), big.NewInt(1))
		ten := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil))
		if k >= 0 {
			pow.Mul(pow, ten)
		} else {
			pow.Quo(pow, ten)
		}
		if got, want := d.cmpPow10(k), r.Cmp(pow); got != want {
			t.Fatalf("parseNumber(%q).cmpPow10(%d) = %d, reference %d", s, k, got, want)
		}
	}
	if q, ok := d.rat64(); ok && big.NewRat(q.n, q.d).Cmp(r) != 0 {
		t.Fatalf("parseNumber(%q).rat64() = %d/%d, reference %v", s, q.n, q.d, r)
	}
}

// FuzzReadingMatchesRationals checks, for any three texts, that the
// readers give exactly what the reference in exact rationals gives
// (see checkReadingMatches), and that parseNumber reads each as the
// reference grammar does.
func FuzzReadingMatchesRationals(f *testing.F) {
	f.Add("0.62", "35%", "1")
	f.Add("99.9%", "0", "1e-300")
	f.Add("62", "1e-3", "100.0%")
	f.Add("0.999999999999", "1.000000000000000000000000001", "00.5e1")
	f.Add(" 7 %", "+0.5", "−0")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, s := range []string{a, b, c} {
			checkNumberMatches(t, s)
		}
		in := []Sent{{Text: a}, {Text: b, Quoted: true}, {Text: c, Quoted: strings.HasSuffix(c, "%")}}
		checkReadingMatches(t, in)
	})
}
