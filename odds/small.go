package odds

import (
	"bytes"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// This file is the int64 path of Parse, Formats, Format, Decimal and
// Compare: the exact probability of almost every real
// input ("+150", "3/2", "1.91", "40%") is a fraction of int64s, and
// int64 arithmetic gives the same rationals as big.Rat without its
// allocations. Every function here reports ok = false when a number could
// overflow or the text is not plainly valid, and the caller then runs the
// big.Rat code, which stays the reference: the int64 path must give
// exactly its results (see TestInt64MatchesBig and FuzzInt64MatchesBig).

// rat64 is the exact rational n/d with d > 0, in lowest terms unless said.
type rat64 struct{ n, d int64 }

// small returns the value's exact probability when it is held as int64s.
func (v Value) small() (rat64, bool) { return rat64{v.num, v.den}, v.den != 0 }

// bigValue returns v with its exact probability held as a *big.Rat, for
// the big.Rat code.
func (v Value) bigValue() Value {
	if v.den != 0 {
		v.exact = big.NewRat(v.num, v.den)
		v.num, v.den = 0, 0
	}
	return v
}

// isExact reports whether the exact probability is known.
func (v Value) isExact() bool { return v.den != 0 || v.exact != nil }

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// reduce returns n/d in lowest terms; n >= 0, d > 0.
func reduce(n, d int64) rat64 {
	if g := int64(gcd(uint64(n), uint64(d))); g > 1 {
		return rat64{n / g, d / g}
	}
	return rat64{n, d}
}

// mul returns a*b for a, b >= 0, and false on overflow.
func mul(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return int64(lo), hi == 0 && lo <= math.MaxInt64
}

// add returns a+b for a, b >= 0, and false on overflow.
func add(a, b int64) (int64, bool) {
	s := uint64(a) + uint64(b)
	return int64(s), s <= math.MaxInt64
}

// scaled returns k*r in lowest terms, for r in lowest terms and k > 0.
func scaled(k int64, r rat64) (rat64, bool) {
	g := int64(gcd(uint64(k), uint64(r.d)))
	n, ok := mul(r.n, k/g)
	return rat64{n, r.d / g}, ok
}

// ratFloat returns a/b correctly rounded to float64 (to nearest, ties to
// even), as big.Rat.Float64 does; b > 0.
func ratFloat(a, b uint64) float64 {
	if a == 0 {
		return 0
	}
	if a <= 1<<53 && b <= 1<<53 {
		return float64(a) / float64(b) // exact operands: IEEE division rounds once
	}
	// q = floor(a 2^s / b) has 55 or 56 bits; ORing the sticky bit (a
	// nonzero remainder) into its last bit, below the rounding position,
	// makes the one rounding of float64(q) correct. The scaling by 2^-s is
	// exact: a/b is between 2^-64 and 2^64.
	s := 55 - bits.Len64(a) + bits.Len64(b)
	var q, r uint64
	switch {
	case s >= 64:
		q, r = bits.Div64(a<<(s-64), 0, b)
	case s >= 0:
		q, r = bits.Div64(a>>(64-s), a<<s, b)
	default:
		d := b << -s // has bits.Len64(a)-55 <= 9 bits
		q, r = a/d, a%d
	}
	if r != 0 {
		q |= 1
	}
	return math.Ldexp(float64(q), -s)
}

// logitRat64 is the natural log of the exact odds n/m (n, m > 0): for
// odds from 1/3 to 3 (p from 1/4 to 3/4) log1p of the exact (n-m)/m
// rounded once, so that odds next to 1 keep their digits; else log of
// the rounded odds, whose logarithm is far from 0.
func logitRat64(n, m int64) float64 {
	if o := (rat64{n, m}).float(); o < 1.0/3 || o > 3 {
		return math.Log(o)
	}
	return math.Log1p(rat64{n - m, m}.float())
}

// float is r correctly rounded to float64.
func (r rat64) float() float64 {
	if r.n < 0 {
		return -ratFloat(uint64(-r.n), uint64(r.d))
	}
	return ratFloat(uint64(r.n), uint64(r.d))
}

// smallNumber reads the unsigned decimal number that parseNumber reads,
// when parseNumber succeeds and the value fits in int64s.
func smallNumber(s string) (rat64, bool) {
	d, f := parseNumber(s)
	if f != nil {
		return rat64{}, false
	}
	return d.rat64()
}

// smallUnsigned is unsigned for numbers that fit: a "+" but no "-" (except
// on 0) may come first.
func smallUnsigned(s string) (rat64, bool) {
	rest, sign := cutSign(s)
	r, ok := smallNumber(rest)
	if !ok || (sign < 0 && r.n != 0) {
		return rat64{}, false
	}
	return r, true
}

// parseSmall is Parse for inputs whose probability fits in int64s and that
// Parse reads without error; in is trimmed, not empty and at most MaxLen
// bytes, and from is an input notation.
func parseSmall(in string, from Notation) (Value, bool) {
	n := from
	auto := from == Auto
	if auto {
		n = shape(in)
		if n == "" {
			r, ok := smallNumber(in)
			if !ok {
				return Value{}, false
			}
			n = Decimal
			if r.n <= r.d {
				n = Probability
			}
		}
	}
	p, ok := readSmall(n, in)
	if !ok {
		return Value{}, false
	}
	P := p.float()
	if P < minP || P >= 1 {
		return Value{}, false
	}
	v := Value{P: P, ReadAs: n, Input: in, num: p.n, den: p.d}
	if auto && n == Decimal && p.n == 1 && p.d >= 10 && p.d <= 100 { // as isPercentLike
		v.Note = "read " + in + " as decimal odds (a probability of " + v.Formats().PercentText +
			"); if you meant " + in + "%, write " + in + "% or use notation percent"
	}
	return v, true
}

// readSmall is read for inputs that are read without error into a
// probability 0 < p < 1 that fits in int64s.
func readSmall(n Notation, in string) (rat64, bool) {
	switch n {
	case Probability:
		if strings.HasSuffix(in, "%") {
			return rat64{}, false
		}
		r, ok := smallUnsigned(in)
		return r, ok && r.n > 0 && r.n < r.d
	case Percent:
		t := strings.TrimSpace(strings.TrimSuffix(in, "%"))
		if strings.HasSuffix(t, "%") {
			return rat64{}, false
		}
		r, ok := smallUnsigned(t)
		if !ok || r.n <= 0 {
			return rat64{}, false
		}
		if h, ok := mul(100, r.d); ok && r.n >= h { // r >= 100; if 100 r.d overflows, r < 100
			return rat64{}, false
		}
		g := int64(gcd(uint64(r.n), 100)) // r.n and r.d are coprime
		d, ok := mul(r.d, 100/g)
		return rat64{r.n / g, d}, ok
	case Decimal:
		if isEvens(in) {
			return rat64{1, 2}, true
		}
		r, ok := smallUnsigned(in)
		return rat64{r.d, r.n}, ok && r.n > r.d
	case Fractional:
		return readSmallPair(in, '/', true)
	case OddsFor:
		return readSmallPair(in, ':', false)
	case American:
		if isEvens(in) {
			return rat64{1, 2}, true
		}
		rest, sign := cutSign(in)
		r, ok := smallNumber(rest)
		if !ok {
			return rat64{}, false
		}
		h, ok := mul(100, r.d) // 100 as r.d-ths
		if !ok || r.n < h {
			return rat64{}, false
		}
		sum, ok := add(r.n, h) // A + 100, in r.d-ths
		if !ok {
			return rat64{}, false
		}
		if sign < 0 {
			return reduce(r.n, sum), true // -A: p = A/(A+100)
		}
		return reduce(h, sum), true // +A: p = 100/(A+100)
	}
	return rat64{}, false
}

// readSmallPair is readPair for a/b (fractional: p = b/(a+b)) or a:b (odds
// for: p = a/(a+b)) with a and b above 0.
func readSmallPair(in string, sep byte, fractional bool) (rat64, bool) {
	if isEvens(in) {
		return rat64{1, 2}, true
	}
	as, bs := in, "1" // a bare number x is x/1 or x:1
	if i := strings.IndexByte(in, sep); i >= 0 {
		as, bs = strings.TrimSpace(in[:i]), strings.TrimSpace(in[i+1:])
		if as == "" || bs == "" || strings.IndexByte(bs, sep) >= 0 {
			return rat64{}, false
		}
	}
	a, ok := smallUnsigned(as)
	if !ok || a.n == 0 {
		return rat64{}, false
	}
	b, ok := smallUnsigned(bs)
	if !ok || b.n == 0 {
		return rat64{}, false
	}
	// In units of 1/(a.d b.d): a is x, b is y, a+b is x+y.
	x, ok1 := mul(a.n, b.d)
	y, ok2 := mul(b.n, a.d)
	sum, ok3 := add(x, y)
	if !ok1 || !ok2 || !ok3 {
		return rat64{}, false
	}
	if fractional {
		return reduce(y, sum), true
	}
	return reduce(x, sum), true
}

// smallNumbers holds the exact value in the output notations, for
// 0 < p = n/d < 1: against = (d-n)/n and forOdds = n/(d-n) are in lowest
// terms because n/d is.
type smallNumbers struct {
	p, pct, dec, against, forOdds, amer rat64
}

func (v Value) smallNumbers() (smallNumbers, bool) {
	n, d := v.num, v.den
	m := d - n
	pct, ok := scaled(100, rat64{n, d})
	if !ok {
		return smallNumbers{}, false
	}
	q := smallNumbers{p: rat64{n, d}, pct: pct, dec: rat64{d, n}, against: rat64{m, n}, forOdds: rat64{n, m}}
	switch {
	case n < m: // p < 1/2: +100 (1-p)/p
		q.amer, ok = scaled(100, q.against)
	case n == m: // p = 1/2 is +100
		q.amer = rat64{100, 1}
	default: // -100 p/(1-p)
		q.amer, ok = scaled(100, q.forOdds)
		q.amer.n = -q.amer.n
	}
	return q, ok
}

// formatsSmall is Formats for a value held as int64s; ok is false when a
// number could overflow.
func (v Value) formatsSmall() (Formats, bool) {
	q, ok := v.smallNumbers()
	if !ok {
		return Formats{}, false
	}
	p := v.P
	pct, dec, amer := q.pct.float(), q.dec.float(), q.amer.float()
	against, forOdds := q.against.float(), q.forOdds.float()
	logit := logitRat64(v.num, v.den-v.num)

	// All the texts go into one buffer, made into one string that the
	// fields share.
	var buf [256]byte
	var ends [7]int
	b := appendDisplay(buf[:0], q.p, true, p, min(p, 1-p), 4)
	ends[0] = len(b)
	b = appendDisplay(b, q.pct, true, pct, min(pct, 100-pct), 2)
	b = append(b, '%')
	ends[1] = len(b)
	b = appendDisplay(b, q.dec, true, dec, dec-1, 2)
	ends[2] = len(b)
	b = unsign(appendDisplay(append(b, '+'), q.amer, true, amer, 0, 2), ends[2])
	ends[3] = len(b)
	b = appendDisplay(b, rat64{}, false, logit, math.Abs(logit), 4)
	ends[4] = len(b)
	b, fracApprox, ok1 := appendFraction(b, q.against, against, '/')
	ends[5] = len(b)
	b, forApprox, ok2 := appendFraction(b, q.forOdds, forOdds, ':')
	ends[6] = len(b)
	if !ok1 || !ok2 {
		return Formats{}, false
	}
	s := string(b)
	return Formats{
		Probability:           p,
		ProbabilityText:       s[:ends[0]],
		Percent:               pct,
		PercentText:           s[ends[0]:ends[1]],
		Decimal:               dec,
		DecimalText:           s[ends[1]:ends[2]],
		American:              amer,
		AmericanText:          s[ends[2]:ends[3]],
		LogOdds:               logit,
		LogOddsText:           s[ends[3]:ends[4]],
		Fractional:            s[ends[4]:ends[5]],
		FractionalApproximate: fracApprox,
		OddsFor:               s[ends[5]:ends[6]],
		OddsForApproximate:    forApprox,
		Exact:                 true,
	}, true
}

// formatSmall is Format for a value held as int64s, for n not Auto; ok is
// false when a number could overflow.
func (v Value) formatSmall(n Notation) (string, bool) {
	var buf [128]byte
	b := buf[:0]
	switch n {
	case Probability:
		b = appendExact(b, rat64{v.num, v.den}, v.P)
	case Percent:
		pct, ok := scaled(100, rat64{v.num, v.den})
		if !ok {
			return "", false
		}
		b = append(appendExact(b, pct, pct.float()), '%')
	case Decimal:
		dec := rat64{v.den, v.num}
		b = appendExact(b, dec, dec.float())
	case Fractional: // an int64 pair always fits in MaxLen
		b = append(strconv.AppendInt(b, v.den-v.num, 10), '/')
		b = strconv.AppendInt(b, v.num, 10)
	case OddsFor:
		b = append(strconv.AppendInt(b, v.num, 10), ':')
		b = strconv.AppendInt(b, v.den-v.num, 10)
	case American:
		q, ok := v.smallNumbers()
		if !ok {
			return "", false
		}
		b = unsign(appendExact(append(b, '+'), q.amer, q.amer.float()), 0)
	case LogOdds:
		b = strconv.AppendFloat(b, logitRat64(v.num, v.den-v.num), 'g', -1, 64)
	default:
		return "", true
	}
	return string(b), true
}

// unsign completes signed: the text at b[start:] was written after a
// "+", which is removed when the text has a "-".
func unsign(b []byte, start int) []byte {
	if b[start+1] == '-' {
		b = append(b[:start], b[start+1:]...)
	}
	return b
}

// appendExact is exactText.
func appendExact(b []byte, r rat64, f float64) []byte {
	if t, ok := appendTerminating(b, r, MaxLen); ok && len(t)-len(b) <= MaxLen-1 {
		return t
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendDisplay is display, for r when hasR.
func appendDisplay(b []byte, r rat64, hasR bool, f, delta float64, base int) []byte {
	if hasR {
		if t, ok := appendTerminating(b, r, displayPlaces); ok && len(t)-len(b) <= 20 {
			return t
		}
	}
	if math.Abs(f) >= 1e15 {
		return strconv.AppendFloat(b, f, 'g', 6, 64)
	}
	places := base
	if delta > 0 && delta < 1 {
		places = max(places, int(math.Ceil(-math.Log10(delta)))+2)
	}
	if places > 15 { // the shortest text of f: more digits, never the end
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', places, 64)
	if bytes.IndexByte(b[start:], '.') >= 0 { // drop trailing zeros, then the point
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		if b[len(b)-1] == '.' {
			b = b[:len(b)-1]
		}
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}

// appendTerminating is terminating: r as an exact decimal if its expansion
// ends within maxPlaces places, written as big.Rat.FloatString writes it.
func appendTerminating(b []byte, r rat64, maxPlaces int) ([]byte, bool) {
	den := uint64(r.d)
	twos := bits.TrailingZeros64(den)
	if twos > maxPlaces {
		return b, false
	}
	rest := den >> twos
	fives := 0
	for rest != 1 {
		if rest%5 != 0 {
			return b, false
		}
		rest /= 5
		fives++
		if fives > maxPlaces {
			return b, false
		}
	}
	places := max(twos, fives)
	num := uint64(r.n)
	if r.n < 0 {
		b = append(b, '-')
		num = uint64(-r.n)
	}
	b = strconv.AppendUint(b, num/den, 10)
	if places == 0 {
		return b, true
	}
	b = append(b, '.')
	rem := num % den
	for range places { // long division: rem < den, so rem*10 fits 128 bits and the quotient a digit
		var d uint64
		hi, lo := bits.Mul64(rem, 10)
		d, rem = bits.Div64(hi, lo, den)
		b = append(b, byte('0'+d))
	}
	return b, true
}

// appendFraction is fractionText for exact odds r > 0 whose float64 is f;
// ok is false when a number could overflow.
func appendFraction(b []byte, r rat64, f float64, sep byte) (_ []byte, approx, ok bool) {
	start := len(b)
	b = append(strconv.AppendInt(b, r.n, 10), sep)
	b = strconv.AppendInt(b, r.d, 10)
	if len(b)-start <= maxFractionText {
		return b, false, true
	}
	b = b[:start]
	maxDen := int64(approxDenominator)
	if f >= approxDenominator { // long odds: the nearest whole number, N/1
		maxDen = 1
	}
	a, ok := limitDenominator64(r, maxDen)
	if !ok {
		return b, false, false
	}
	if a.n == 0 { // odds below 1/200: write 1/N
		a = rat64{1, int64((uint64(r.d) + uint64(r.n)>>1) / uint64(r.n))}
	}
	b = append(strconv.AppendInt(b, a.n, 10), sep)
	b = strconv.AppendInt(b, a.d, 10)
	af := a.float()
	approx = math.Abs(af-f) > 1e-12*f
	if len(b)-start > maxFractionText {
		b = appendHugeRatio(b[:start], af, sep)
		approx = true
	}
	return b, approx, true
}

// limitDenominator64 is limitDenominator for x = r >= 0 in lowest terms;
// ok is false when a number could overflow.
func limitDenominator64(x rat64, maxDen int64) (rat64, bool) {
	if x.d <= maxDen {
		return x, true
	}
	var p0, q0, p1, q1 int64 = 0, 1, 1, 0
	n, d := x.n, x.d
	for {
		a := n / d
		// q2 = q0 + a q1 > maxDen, tested without overflow (q0 <= maxDen).
		if q1 != 0 && a > (maxDen-q0)/q1 {
			break
		}
		q2 := q0 + a*q1
		ap1, ok1 := mul(a, p1)
		np1, ok2 := add(p0, ap1)
		if !ok1 || !ok2 {
			return rat64{}, false
		}
		p0, q0, p1, q1 = p1, q1, np1, q2
		n, d = d, n-a*d
		if d == 0 {
			break
		}
	}
	k := (maxDen - q0) / q1
	kp1, ok1 := mul(k, p1)
	b1n, ok2 := add(p0, kp1)
	if !ok1 || !ok2 {
		return rat64{}, false
	}
	b1d := q0 + k*q1 // at most maxDen
	// |b2 - x| <= |b1 - x| with b2 = p1/q1, multiplied by q1 b1d x.d:
	// |p1 x.d - x.n q1| b1d <= |b1n x.d - x.n b1d| q1.
	d2hi, d2lo := absDiffMul(p1, x.d, x.n, q1)
	d1hi, d1lo := absDiffMul(b1n, x.d, x.n, b1d)
	if d2hi != 0 || d1hi != 0 {
		return rat64{}, false
	}
	lhsHi, lhsLo := bits.Mul64(d2lo, uint64(b1d))
	rhsHi, rhsLo := bits.Mul64(d1lo, uint64(q1))
	if lhsHi < rhsHi || lhsHi == rhsHi && lhsLo <= rhsLo {
		return reduce(p1, q1), true
	}
	return reduce(b1n, b1d), true
}

// absDiffMul returns |a b - c d| as a 128-bit number, for a, b, c, d >= 0.
func absDiffMul(a, b, c, d int64) (hi, lo uint64) {
	xh, xl := bits.Mul64(uint64(a), uint64(b))
	yh, yl := bits.Mul64(uint64(c), uint64(d))
	if xh < yh || xh == yh && xl < yl {
		xh, xl, yh, yl = yh, yl, xh, xl
	}
	lo, borrow := bits.Sub64(xl, yl, 0)
	hi, _ = bits.Sub64(xh, yh, borrow)
	return hi, lo
}

// compareSmall is the exact branch of Compare for two values held as
// int64s; ok is false when a product could overflow.
func compareSmall(a, b rat64) (Comparison, bool) {
	ma, mb := a.d-a.n, b.d-b.n // 1-p, in d-ths
	// odds ratio (a.n/ma) / (b.n/mb) = a.n mb / (ma b.n)
	orN, ok1 := mulU(a.n, mb)
	orD, ok2 := mulU(ma, b.n)
	// risk ratio (a.n/a.d) / (b.n/b.d) = a.n b.d / (a.d b.n)
	rrN, ok3 := mulU(a.n, b.d)
	rrD, ok4 := mulU(a.d, b.n)
	// difference 100 (a.n b.d - b.n a.d) / (a.d b.d); a.n b.d is rrN
	y, ok5 := mulU(b.n, a.d)
	den, ok6 := mulU(a.d, b.d)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
		return Comparison{}, false
	}
	diff, neg := rrN-y, false
	if rrN < y {
		diff, neg = y-rrN, true
	}
	hi, diff := bits.Mul64(diff, 100)
	if hi != 0 {
		return Comparison{}, false
	}
	dp := ratFloat(diff, den)
	if neg {
		dp = -dp
	}
	return Comparison{OddsRatio: ratFloat(orN, orD), RiskRatio: ratFloat(rrN, rrD), DifferencePoints: dp}, true
}

// mulU returns a*b for a, b >= 0 as a uint64, and false on overflow.
func mulU(a, b int64) (uint64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return lo, hi == 0
}
