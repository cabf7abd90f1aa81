package odds

import (
	"math"
	"math/big"
)

// Comparison compares two chances, a value and a reference (compare_to in
// the convert_odds tool), by the definitions of DECISIONS.md.
type Comparison struct {
	// OddsRatio is odds(a) / odds(b), with odds = P/(1-P).
	OddsRatio float64 `json:"odds_ratio"`
	// RiskRatio is P(a) / P(b).
	RiskRatio float64 `json:"risk_ratio"`
	// DifferencePoints is P(a) - P(b) in percentage points (100 x).
	DifferencePoints float64 `json:"difference_points"`
}

// Compare compares a with the reference b. When both values are exact the
// ratios are computed exactly and rounded once.
//
// The error is an [*Error] wrapping [ErrCertain] when either probability
// is 0 or 1 (the odds ratio would be infinite or 0/0), or [ErrRange] when
// either is NaN or outside [0, 1] (a Value not made by this package).
func Compare(a, b Value) (Comparison, error) {
	for _, v := range []Value{a, b} {
		switch {
		case math.IsNaN(v.P) || v.P < 0 || v.P > 1:
			return Comparison{}, &Error{Input: v.Input, Notation: v.ReadAs, Err: ErrRange,
				Reason: "has no probability between 0 and 1", Hint: "compare values returned by Parse"}
		case v.P == 0 || v.P == 1:
			return Comparison{}, &Error{Input: v.Input, Notation: v.ReadAs, Err: ErrCertain,
				Reason: "is a probability of " + floatText(v.P) + ", whose odds are infinite",
				Hint:   certainHint + " to compare odds"}
		}
	}
	if ra, ok := a.small(); ok {
		if rb, ok := b.small(); ok {
			if c, ok := compareSmall(ra, rb); ok {
				return finite(c, a, b)
			}
		}
	}
	if a.isExact() && b.isExact() {
		a, b = a.bigValue(), b.bigValue()
		oa, ob := oddsRat(a.exact), oddsRat(b.exact)
		or, _ := oa.Quo(oa, ob).Float64()
		rr, _ := new(big.Rat).Quo(a.exact, b.exact).Float64()
		diff := new(big.Rat).Sub(a.exact, b.exact)
		dp, _ := diff.Mul(diff, ratHundred).Float64()
		return finite(Comparison{OddsRatio: or, RiskRatio: rr, DifferencePoints: dp}, a, b)
	}
	lor := (math.Log(a.P) - math.Log1p(-a.P)) - (math.Log(b.P) - math.Log1p(-b.P))
	return finite(Comparison{
		OddsRatio:        math.Exp(lor),
		RiskRatio:        a.P / b.P,
		DifferencePoints: 100 * (a.P - b.P),
	}, a, b)
}

// finite refuses a comparison whose ratio overflows float64 (possible only
// for probabilities near 1e-300 against near-certainties).
func finite(c Comparison, a, b Value) (Comparison, error) {
	if math.IsInf(c.OddsRatio, 0) || math.IsInf(c.RiskRatio, 0) {
		return Comparison{}, &Error{Input: a.Input + " vs " + b.Input, Err: ErrRange,
			Reason: "gives an odds ratio too large for float64", Hint: "compare less extreme chances"}
	}
	return c, nil
}

// oddsRat is p/(1-p) as a new rational.
func oddsRat(p *big.Rat) *big.Rat {
	one := new(big.Rat).Sub(ratOne, p)
	return one.Quo(p, one)
}
