package odds

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Formats is a value in every output notation, as numbers and as display
// text. It is what the convert_odds tool returns.
//
// The display texts are exact when the value is exact and its decimal
// expansion ends within 8 places ("0.4", "1.91", "+150"); otherwise they
// are rounded, keeping at least three significant digits of the distance
// to the ends of the scale, so 0.99999 is not shown as 1 ("3.33",
// "+233.33", "99.999%"). Fractional odds and odds for are exact fractions
// in lowest terms when the value is exact and they fit in 21 characters;
// otherwise they are the nearest fraction with a denominator up to 100
// (the nearest N/1 for odds of 100 or more, the nearest 1/N for odds below
// 1/200), and the *Approximate field is set when that fraction differs
// from the value by more than one part in 10^12. Odds beyond a 21-character
// fraction are written as whole numbers to 3 significant digits ("1/1000…0",
// never "1e+300/1"), marked approximate. A rounded text never reaches the
// end of its scale: when more than 15 places would be needed it is the
// shortest text of the float64 (1 - 1e-15 is "0.999999999999999", not "1").
type Formats struct {
	// Probability is P, in (0, 1).
	Probability     float64 `json:"probability"`
	ProbabilityText string  `json:"probability_text"` // "0.4"
	// Percent is 100 P.
	Percent     float64 `json:"percent"`
	PercentText string  `json:"percent_text"` // "40%"
	// Decimal is the decimal odds 1/P (stake included).
	Decimal     float64 `json:"decimal"`
	DecimalText string  `json:"decimal_text"` // "2.5"
	// Fractional is the fractional odds against, (1-P)/P, as a fraction.
	Fractional            string `json:"fractional"` // "3/2"
	FractionalApproximate bool   `json:"fractional_approximate"`
	// American is the American (moneyline) odds: +100 (1-P)/P when
	// P <= 0.5 (P = 0.5 is +100), -100 P/(1-P) when P > 0.5.
	American     float64 `json:"american"`
	AmericanText string  `json:"american_text"` // "+150"
	// OddsFor is the odds for, P:(1-P), as a ratio of whole numbers.
	OddsFor            string `json:"odds_for"` // "2:3"
	OddsForApproximate bool   `json:"odds_for_approximate"`
	// LogOdds is the natural logarithm of P/(1-P).
	LogOdds     float64 `json:"log_odds"`
	LogOddsText string  `json:"log_odds_text"` // "-0.4055"
	// Exact reports whether the value is known exactly (it was parsed
	// from text), so the numbers are the correctly rounded float64 of the
	// exact values.
	Exact bool `json:"exact"`
}

// displayPlaces is the most decimal places an exact display text shows.
const displayPlaces = 8

// maxFractionText is the longest exact fraction shown before approximating.
const maxFractionText = 21

// approxDenominator is the largest denominator of an approximate fraction.
const approxDenominator = 100

// Formats returns the value in every output notation. For a Value with
// P = 0 or 1 (returned with ErrCertain) only Probability and Percent are
// filled (and Decimal = 1 for P = 1); the other fields are zero or empty.
// No field is ever NaN or infinite.
func (v Value) Formats() Formats {
	if !(v.P > 0 && v.P < 1) {
		if math.IsNaN(v.P) {
			return Formats{}
		}
		p := min(max(v.P, 0), 1)
		f := Formats{Probability: p, ProbabilityText: floatText(p), Percent: 100 * p,
			PercentText: floatText(100*p) + "%", Exact: v.isExact()}
		if p == 1 {
			f.Decimal, f.DecimalText = 1, "1"
		}
		return f
	}
	if v.den != 0 {
		if f, ok := v.formatsSmall(); ok {
			return f
		}
		v = v.bigValue()
	}
	q := v.numbers()
	f := Formats{
		Probability:     q.p,
		ProbabilityText: display(q.rp, q.p, min(q.p, 1-q.p), 4),
		Percent:         q.pct,
		PercentText:     display(q.rpct, q.pct, min(q.pct, 100-q.pct), 2) + "%",
		Decimal:         q.dec,
		DecimalText:     display(q.rdec, q.dec, q.dec-1, 2),
		American:        q.amer,
		AmericanText:    signed(display(q.ramer, q.amer, 0, 2)),
		LogOdds:         q.logit,
		LogOddsText:     display(nil, q.logit, math.Abs(q.logit), 4),
		Exact:           v.exact != nil,
	}
	f.Fractional, f.FractionalApproximate = fractionText(q.ragainst, q.against, "/")
	f.OddsFor, f.OddsForApproximate = fractionText(q.rfor, q.forOdds, ":")
	return f
}

// display writes a number for people: exact if r terminates within
// displayPlaces places, else f rounded to base places, or more when delta
// (the distance to the end of the scale) needs them for 3 significant
// digits.
func display(r *big.Rat, f, delta float64, base int) string {
	if r != nil {
		if s, ok := terminating(r, displayPlaces); ok && len(s) <= 20 {
			return s
		}
	}
	if math.Abs(f) >= 1e15 {
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
	places := base
	if delta > 0 && delta < 1 {
		places = max(places, int(math.Ceil(-math.Log10(delta)))+2)
	}
	if places > 15 { // the shortest text of f: more digits, never the end
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', places, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// fractionText writes odds x (exact r, or float f) as a fraction a<sep>b:
// exact when r is known and short, else approximated.
func fractionText(r *big.Rat, f float64, sep string) (string, bool) {
	if r != nil {
		if s := r.Num().String() + sep + r.Denom().String(); len(s) <= maxFractionText {
			return s, false
		}
	}
	x := r
	if x == nil {
		x = new(big.Rat).SetFloat64(f) // f is finite and positive here
	}
	maxDen := int64(approxDenominator)
	if f >= approxDenominator { // long odds: the nearest whole number, N/1
		maxDen = 1
	}
	a := limitDenominator(x, maxDen)
	if a.Sign() == 0 { // odds below 1/200: write 1/N
		n := new(big.Int).Quo(new(big.Int).Add(x.Denom(), new(big.Int).Rsh(x.Num(), 1)), x.Num())
		a.SetFrac(big.NewInt(1), n)
	}
	s := a.Num().String() + sep + a.Denom().String()
	af, _ := a.Float64()
	approx := math.Abs(af-f) > 1e-12*f
	if len(s) > maxFractionText {
		s, approx = string(appendHugeRatio(nil, af, sep[0])), true
	}
	return s, approx
}

// appendHugeRatio writes odds af beyond a 21-character fraction as a
// ratio of whole numbers to 3 significant digits, "123000…000/1" or
// "1/123000…000" (no exponent: "1e+300/1" read as a fraction is not a
// ratio of whole numbers); the caller marks it approximate.
func appendHugeRatio(b []byte, af float64, sep byte) []byte {
	whole := func(b []byte, x float64) []byte {
		e := strconv.FormatFloat(x, 'e', 2, 64) // d.dde±x
		mant, exp, _ := strings.Cut(e, "e")
		n, _ := strconv.Atoi(exp)
		digits := strings.Replace(mant, ".", "", 1)
		if n < 2 {
			return strconv.AppendFloat(b, math.Round(x), 'f', 0, 64)
		}
		b = append(b, digits...)
		for range n - 2 {
			b = append(b, '0')
		}
		return b
	}
	if af >= 1 {
		return append(whole(b, af), sep, '1')
	}
	return whole(append(b, '1', sep), 1/af)
}

// limitDenominator returns the fraction closest to x >= 0 whose denominator
// is at most maxDen, by the continued-fraction method (the algorithm of
// Python's fractions.Fraction.limit_denominator).
func limitDenominator(x *big.Rat, maxDen int64) *big.Rat {
	md := big.NewInt(maxDen)
	if x.Denom().Cmp(md) <= 0 {
		return new(big.Rat).Set(x)
	}
	p0, q0, p1, q1 := big.NewInt(0), big.NewInt(1), big.NewInt(1), big.NewInt(0)
	n, d := new(big.Int).Set(x.Num()), new(big.Int).Set(x.Denom())
	a, q2, t := new(big.Int), new(big.Int), new(big.Int)
	for {
		a.Quo(n, d)
		q2.Add(q0, t.Mul(a, q1))
		if q2.Cmp(md) > 0 {
			break
		}
		// p0, q0, p1, q1 = p1, q1, p0 + a*p1, q2
		np1 := new(big.Int).Add(p0, t.Mul(a, p1))
		p0, q0, p1, q1 = p1, q1, np1, new(big.Int).Set(q2)
		// n, d = d, n - a*d
		nd := new(big.Int).Sub(n, t.Mul(a, d))
		n, d = d, nd
		if d.Sign() == 0 {
			break
		}
	}
	// k = (maxDen - q0) / q1; bound1 = (p0 + k p1)/(q0 + k q1); bound2 = p1/q1
	k := new(big.Int).Quo(new(big.Int).Sub(md, q0), q1)
	b1 := new(big.Rat).SetFrac(new(big.Int).Add(p0, new(big.Int).Mul(k, p1)), new(big.Int).Add(q0, new(big.Int).Mul(k, q1)))
	b2 := new(big.Rat).SetFrac(p1, q1)
	d1 := new(big.Rat).Sub(b1, x)
	d2 := new(big.Rat).Sub(b2, x)
	if d2.Abs(d2).Cmp(d1.Abs(d1)) <= 0 {
		return b2
	}
	return b1
}
