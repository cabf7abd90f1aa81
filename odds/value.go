package odds

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Value is a chance read by [Parse] (or made by [FromProbability]): its
// probability, the notation it was read as and, for parsed text, the exact
// rational value of that text, from which every output notation is
// computed exactly ("1.91" is exactly 191/100 decimal odds, so fractional
// 91/100).
//
// A Value returned without error has 0 < P < 1. With [ErrCertain], Parse
// and FromProbability also return a Value whose P is 0 or 1; its odds are
// infinite, so [Value.Formats] leaves the odds fields empty.
type Value struct {
	// P is the probability, in (0, 1).
	P float64 `json:"p"`
	// ReadAs is the notation the input was read in: the one asked for, or
	// the one Auto guessed.
	ReadAs Notation `json:"read_as"`
	// Input is the text read, without surrounding spaces.
	Input string `json:"input"`
	// Note is set when Auto made a guess the writer may not have meant
	// (a whole number from 10 to 100 read as decimal odds).
	Note string `json:"note,omitempty"`

	// The exact probability, when known: num/den in lowest terms when it
	// fits in int64s (den > 0; the int64 path, see small.go), else exact
	// (nil when not known exactly).
	num, den int64
	exact    *big.Rat
}

// Exact returns the exact probability as a new [big.Rat], or nil when the
// value is not known exactly (it came from [FromProbability]).
func (v Value) Exact() *big.Rat {
	if v.den != 0 {
		return big.NewRat(v.num, v.den)
	}
	if v.exact == nil {
		return nil
	}
	return new(big.Rat).Set(v.exact)
}

// Decimal returns the decimal odds 1/P, the input of [Implied]: the
// implied_probabilities tool parses each outcome's odds with [Parse] and
// passes their Decimal to Implied. For a Value with P = 0 (returned with
// ErrCertain) it is +Inf, which Implied refuses with ErrCertain.
func (v Value) Decimal() float64 {
	if r, ok := v.small(); ok {
		return rat64{r.d, r.n}.float()
	}
	if v.exact != nil && v.exact.Sign() > 0 {
		d, _ := new(big.Rat).Inv(v.exact).Float64()
		return d
	}
	return 1 / v.P
}

// numbers holds the value in every notation, as floats and, when the value
// is exact, as rationals.
type numbers struct {
	p, pct, dec, against, forOdds, amer, logit float64
	rp, rpct, rdec, ragainst, rfor, ramer      *big.Rat // nil when not exact
}

// numbers computes the value in every notation. It must only be called
// when 0 < P < 1.
func (v Value) numbers() numbers {
	var q numbers
	if r := v.exact; r != nil {
		one := new(big.Rat).Sub(ratOne, r) // 1 - p
		q.rp = r
		q.rpct = new(big.Rat).Mul(r, ratHundred)
		q.rdec = new(big.Rat).Inv(r)
		q.ragainst = new(big.Rat).Quo(one, r)
		q.rfor = new(big.Rat).Quo(r, one)
		switch r.Cmp(ratHalf) {
		case -1: // +100 (1-p)/p
			q.ramer = new(big.Rat).Mul(q.ragainst, ratHundred)
		case 0: // p = 0.5 is +100 by convention
			q.ramer = new(big.Rat).Set(ratHundred)
		default: // -100 p/(1-p)
			q.ramer = new(big.Rat).Mul(q.rfor, ratHundred)
			q.ramer.Neg(q.ramer)
		}
		q.p, _ = q.rp.Float64()
		q.pct, _ = q.rpct.Float64()
		q.dec, _ = q.rdec.Float64()
		q.against, _ = q.ragainst.Float64()
		q.forOdds, _ = q.rfor.Float64()
		q.amer, _ = q.ramer.Float64()
		if q.forOdds < 1.0/3 || q.forOdds > 3 {
			q.logit = math.Log(q.forOdds)
		} else { // log1p of the exact odds - 1, rounded once
			t, _ := new(big.Rat).Sub(q.rfor, ratOne).Float64()
			q.logit = math.Log1p(t)
		}
		return q
	}
	p := v.P
	q.p = p
	q.pct = 100 * p
	q.dec = 1 / p
	q.against = (1 - p) / p
	q.forOdds = p / (1 - p)
	switch {
	case p < 0.5:
		q.amer = 100 * q.against
	case p == 0.5:
		q.amer = 100
	default:
		q.amer = -100 * q.forOdds
	}
	q.logit = logitOf(p)
	return q
}

// logitOf is the natural log-odds of p in (0, 1), accurate to a few ulps
// everywhere: next to 1/2 it is log1p((2p-1)/(1-p)), where 2p-1 is exact
// for p >= 1/4, instead of log(p/(1-p)), which loses every digit there.
func logitOf(p float64) float64 {
	if p >= 0.25 && p <= 0.75 {
		return math.Log1p((2*p - 1) / (1 - p))
	}
	return math.Log(p) - math.Log1p(-p)
}

// Format writes the value in notation n as text that [Parse] reads back in
// the same notation to the same probability: exactly when the value is
// exact and the exact text fits in [MaxLen] bytes, otherwise to float64
// precision (shortest 'g' form, so "1e-05" may appear). Use [Value.Formats]
// for display. Auto (or "") means [Value.ReadAs]. For LogOdds, which Parse
// does not read, it is the shortest 'g' form of the natural log-odds.
//
// For a Value with P = 0 or 1 (returned with ErrCertain) only Probability,
// Percent and Decimal (P = 1: "1") have text; other notations give "".
func (v Value) Format(n Notation) string {
	if n == Auto || n == "" {
		n = v.ReadAs
	}
	if !(v.P > 0 && v.P < 1) {
		switch {
		case math.IsNaN(v.P):
			return ""
		case n == Probability:
			return floatText(v.P)
		case n == Percent:
			return floatText(100*v.P) + "%"
		case n == Decimal && v.P == 1:
			return "1"
		}
		return ""
	}
	if v.den != 0 {
		if s, ok := v.formatSmall(n); ok {
			return s
		}
		v = v.bigValue()
	}
	q := v.numbers()
	switch n {
	case Probability:
		return exactText(q.rp, q.p)
	case Percent:
		return exactText(q.rpct, q.pct) + "%"
	case Decimal:
		return exactText(q.rdec, q.dec)
	case Fractional:
		return pairText(q.ragainst, q.against, "/")
	case OddsFor:
		return pairText(q.rfor, q.forOdds, ":")
	case American:
		return signed(exactText(q.ramer, q.amer))
	case LogOdds:
		return floatText(q.logit)
	}
	return ""
}

// floatText is the shortest text that reads back to f.
func floatText(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// exactText is r as an exact decimal when it terminates and fits, else f.
func exactText(r *big.Rat, f float64) string {
	if r != nil {
		if s, ok := terminating(r, MaxLen); ok && len(s) <= MaxLen-1 {
			return s
		}
	}
	return floatText(f)
}

// pairText writes odds x as "a/b" or "a:b" in lowest terms, or as "x/1"
// with x in float64 when the exact pair does not fit.
func pairText(r *big.Rat, f float64, sep string) string {
	if r != nil {
		if s := r.Num().String() + sep + r.Denom().String(); len(s) <= MaxLen {
			return s
		}
	}
	return floatText(f) + sep + "1"
}

// signed puts "+" before a number that has no sign.
func signed(s string) string {
	if strings.HasPrefix(s, "-") {
		return s
	}
	return "+" + s
}

// terminating writes r as an exact decimal if its expansion ends within
// maxPlaces places.
func terminating(r *big.Rat, maxPlaces int) (string, bool) {
	den := new(big.Int).Set(r.Denom())
	twos := int(den.TrailingZeroBits())
	den.Rsh(den, uint(twos))
	if twos > maxPlaces {
		return "", false
	}
	fives := 0
	one, five, m := big.NewInt(1), big.NewInt(5), new(big.Int)
	for den.Cmp(one) != 0 {
		q, rem := new(big.Int).QuoRem(den, five, m)
		if rem.Sign() != 0 {
			return "", false
		}
		den = q
		fives++
		if fives > maxPlaces {
			return "", false
		}
	}
	places := max(twos, fives)
	if places > maxPlaces {
		return "", false
	}
	return r.FloatString(places), true
}
