package odds

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
)

// The readers of probabilities (reading.go) work on the digits of a
// decimal (decimal.go). This file holds what each number must give, in
// exact rationals (math/big) and with a number grammar of its own:
// TestReadingMatchesRationals and FuzzReadingMatchesRationals compare the
// class of each input (its scale, or the check it fails), its float64 on
// either scale, its odds and its exact texts, bit for bit and byte for
// byte. How a group of them is read (one scale, notes, ScaleError) is the
// rule of reading.go, which TestReadGroup and FuzzReadGroup hold.

// refNumber reads an unsigned decimal number (digits with at most one
// point, then an optional exponent of at most ±maxExponent) into a
// big.Rat, or says which sentinel its failure wraps.
func refNumber(s string) (*big.Rat, error) {
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
	exp, j, ok := readExponent(s, i)
	switch {
	case len(ds) == 0 || !ok || j != len(s):
		return nil, ErrSyntax
	case exp > maxExponent || exp < -maxExponent:
		return nil, ErrRange
	}
	r, _ := new(big.Rat).SetString(string(ds))
	scale := exp - frac
	pow := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(scale))), nil))
	if scale >= 0 {
		return r.Mul(r, pow), nil
	}
	return r.Quo(r, pow), nil
}

// A class is what the rule makes of one input: the scale it says, or the
// check it fails.
type class string

// refClass is the class of s and its exact number, from the rule in
// exact rationals.
func refClass(s Sent) (class, *big.Rat) {
	in := strings.TrimSpace(s.Text)
	if len(in) > MaxLen {
		return "too long", nil
	}
	num, pct := in, false
	if s.Quoted && strings.HasSuffix(in, "%") {
		num, pct = strings.TrimSpace(strings.TrimSuffix(in, "%")), true
	}
	rest, sign := cutSign(num)
	r, err := refNumber(rest)
	switch {
	case errors.Is(err, ErrSyntax):
		return "not a number", nil
	case err != nil:
		return "exponent", nil
	case sign < 0 && r.Sign() != 0:
		return "negative", nil
	case r.Sign() > 0 && r.Cmp(big.NewRat(1, 1).Quo(big.NewRat(1, 1), pow10Rat(300))) < 0:
		return "below 1e-300", nil
	case pct && r.Cmp(ratHundred) > 0:
		return "above 100%", nil
	case pct:
		return "percent string", r
	case r.Cmp(ratHundred) > 0:
		return "above 100", nil
	case r.Sign() == 0 || r.Cmp(ratOne) == 0:
		return "neutral", r
	case r.Cmp(ratOne) < 0:
		return "fraction", r
	}
	return "percent", r
}

func pow10Rat(k int64) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(k), nil))
}

// classOf is the class parseSent gave s, read from its result.
func classOf(it item, err error) class {
	if err == nil {
		switch {
		case it.pct:
			return "percent string"
		case it.says == neutral:
			return "neutral"
		case it.says == fraction:
			return "fraction"
		}
		return "percent"
	}
	var e *Error
	errors.As(err, &e)
	if strings.Contains(e.Reason, "longer than") {
		return "too long"
	}
	for _, c := range []class{"negative", "below 1e-300", "above 100%", "above 100", "exponent"} {
		if strings.Contains(e.Reason, string(c)) {
			return c
		}
	}
	return "not a number"
}

// refText is r as a terminating decimal, or as the shortest float64 text
// when it does not terminate within MaxLen places.
func refText(r *big.Rat) string {
	if s, ok := terminating(r, MaxLen); ok {
		return s
	}
	f, _ := r.Float64()
	return floatText(f)
}

// checkItemMatches fails t unless parseSent and what it returns give, for
// s, what the rule gives in exact rationals.
func checkItemMatches(t *testing.T, s Sent) {
	t.Helper()
	it, err := parseSent(s, 0, func(int) string { return "p" })
	want, r := refClass(s)
	if got := classOf(it, err); got != want {
		t.Fatalf("parseSent(%+v) is %q (%v), want %q", s, got, err, want)
	}
	if r == nil {
		return
	}
	hundredth := new(big.Rat).Quo(r, ratHundred)
	scales := []struct {
		asPercent bool
		exact     *big.Rat
	}{{false, r}, {true, hundredth}} // a neutral 0 or 1 is read on either
	switch want {
	case "fraction":
		scales = scales[:1]
	case "percent", "percent string":
		scales = scales[1:]
	}
	for _, sc := range scales {
		got := it.reading(sc.asPercent)
		p, _ := sc.exact.Float64()
		odds := math.Inf(1)
		if one := new(big.Rat).Sub(ratOne, sc.exact); one.Sign() != 0 {
			odds, _ = new(big.Rat).Quo(sc.exact, one).Float64()
		}
		if math.Float64bits(got.P) != math.Float64bits(p) || math.Float64bits(got.Odds()) != math.Float64bits(odds) {
			t.Fatalf("%+v read with asPercent %v: P %v, odds %v; want %v, %v", s, sc.asPercent, got.P, got.Odds(), p, odds)
		}
	}
	for _, tc := range []struct {
		shift int
		exact *big.Rat
	}{{0, r}, {-2, hundredth}, {2, new(big.Rat).Mul(r, ratHundred)}} {
		if got, want := it.d.textAt(tc.shift), refText(tc.exact); got != want {
			t.Fatalf("%+v: textAt(%d) = %q, want %q", s, tc.shift, got, want)
		}
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
	for _, x := range readingTexts {
		for _, s := range []Sent{{Text: x}, {Text: x, Quoted: true}, {Text: x + "%", Quoted: true}, {Text: " " + x + " % ", Quoted: true}, {Text: x + "%"}} {
			checkItemMatches(t, s)
		}
		checkNumberMatches(t, x)
	}
}

// checkNumberMatches fails t unless parseNumber reads s as refNumber does.
func checkNumberMatches(t *testing.T, s string) {
	t.Helper()
	d, f := parseNumber(s)
	r, err := refNumber(s)
	if (f == nil) != (err == nil) || f != nil && f.err != err {
		t.Fatalf("parseNumber(%q) failure = %+v, reference %v", s, f, err)
	}
	if f != nil {
		return
	}
	if d.rat().Cmp(r) != 0 {
		t.Fatalf("parseNumber(%q) = %v, reference %v", s, d.rat(), r)
	}
	for _, k := range []int64{-300, -2, 0, 2} {
		pow := pow10Rat(abs64(k))
		if k < 0 {
			pow.Inv(pow)
		}
		if got, want := d.cmpPow10(int(k)), r.Cmp(pow); got != want {
			t.Fatalf("parseNumber(%q).cmpPow10(%d) = %d, reference %d", s, k, got, want)
		}
	}
	if q, ok := d.rat64(); ok && big.NewRat(q.n, q.d).Cmp(r) != 0 {
		t.Fatalf("parseNumber(%q).rat64() = %d/%d, reference %v", s, q.n, q.d, r)
	}
}

func abs64(k int64) int64 {
	if k < 0 {
		return -k
	}
	return k
}

// FuzzReadingMatchesRationals checks, for any text sent as a number and
// as a string, that the readers give what the rule gives in exact
// rationals (see checkItemMatches), and that parseNumber reads it as the
// reference grammar does.
func FuzzReadingMatchesRationals(f *testing.F) {
	for _, s := range []string{"0.62", "35%", "1", "99.9%", "0", "1e-300", "62", "1e-3", "100.0%", "0.999999999999",
		"1.000000000000000000000000001", "00.5e1", " 7 %", "+0.5", "−0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNumberMatches(t, s)
		checkItemMatches(t, Sent{Text: s})
		checkItemMatches(t, Sent{Text: s, Quoted: true})
	})
}
