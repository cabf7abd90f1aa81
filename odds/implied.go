package odds

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Method is a way of removing the bookmaker's margin from the implied
// probabilities of a set of mutually exclusive outcomes. The zero value is
// [Multiplicative], the default of the implied_probabilities tool.
type Method int

// The methods. Formulas use r_i = 1/decimal_i (the raw implied
// probabilities), S = sum of r_i and n outcomes.
const (
	// Multiplicative scales: p_i = r_i / S (the "basic" method of the R
	// package implied).
	Multiplicative Method = iota
	// Additive removes an equal share of the margin from each outcome:
	// p_i = r_i - (S-1)/n. It fails with ErrNegative when that makes a
	// long shot negative.
	Additive
	// Power raises to a common power: p_i = r_i^k with k chosen so that
	// the p_i add up to 1 (Buchdahl's "logarithmic" method).
	Power
	// Shin uses Shin's model of a bookmaker facing a share z of insiders
	// (Shin 1992, 1993; the form of Jullien & Salanié 1994):
	// p_i = (sqrt(z² + 4(1-z) r_i²/S) - z) / (2(1-z)), with z the root
	// in [0, 1) of sum p_i(z) = 1, as the R package implied states it
	// (Shin 1993, "Measuring the incidence of insider trading in a market
	// for state-contingent claims", Economic Journal 103). The root is
	// found by bisection to full double precision for every margin above
	// 0. For two outcomes it equals Additive (Štrumbelj 2014). It needs
	// odds with a margin (S >= 1); a fair book (S = 1) has z = 0.
	Shin
)

// Methods lists the methods, for schemas and help texts.
var Methods = []Method{Multiplicative, Additive, Power, Shin}

var methodNames = [...]string{"multiplicative", "additive", "power", "shin"}

// String returns the method's name as ParseMethod reads it: "shin".
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// MarshalText writes the name, so JSON shows "shin", not 3.
func (m Method) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(methodNames) {
		return nil, &Error{Input: m.String(), Err: ErrMethod, Reason: "is not a method", Hint: methodHint}
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a name with [ParseMethod].
func (m *Method) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

const methodHint = "use one of multiplicative, additive, power, shin"

// ParseMethod reads a method name. Case and surrounding spaces are
// ignored; "" means [Multiplicative]. The R package implied's name "basic"
// (and "normalized", "normalised", "proportional") is read as
// Multiplicative, and Buchdahl's "logarithmic" as Power.
//
// The error is an [*Error] wrapping [ErrMethod].
func ParseMethod(s string) (Method, error) {
	in := strings.TrimSpace(s)
	switch strings.ToLower(in) {
	case "", "multiplicative", "basic", "normalized", "normalised", "proportional":
		return Multiplicative, nil
	case "additive":
		return Additive, nil
	case "power", "logarithmic":
		return Power, nil
	case "shin":
		return Shin, nil
	}
	return 0, &Error{Input: in, Err: ErrMethod, Reason: "is not a method", Hint: methodHint}
}

// Book is the result of [Implied]: the probabilities implied by the odds
// of a set of mutually exclusive outcomes, one of which must happen.
type Book struct {
	// Method is the method used to remove the margin.
	Method Method `json:"method"`
	// Raw holds 1/decimal for each outcome, in the order given.
	Raw []float64 `json:"raw"`
	// Sum is the sum of Raw (the "booksum").
	Sum float64 `json:"sum"`
	// OverroundPct is (Sum - 1) x 100: how far the total is over 100%
	// (negative for an underround).
	OverroundPct float64 `json:"overround_pct"`
	// HoldPct is the bookmaker's margin, (1 - 1/Sum) x 100: the share of
	// the stakes kept when the book is balanced.
	HoldPct float64 `json:"hold_pct"`
	// Probabilities are the normalised probabilities, one per outcome,
	// in [0, 1] and adding up to 1 (to within rounding).
	Probabilities []float64 `json:"probabilities"`
	// Z is Shin's estimate of the share of insider money (Shin only; 0
	// otherwise).
	Z float64 `json:"z,omitempty"`
	// Iterations is the number of bisection steps Shin's method took to
	// pin z to adjacent doubles (0 for a fair book and for the other
	// methods).
	Iterations int `json:"iterations,omitempty"`
	// Exponent is the power k of the Power method, p_i = r_i^k (0 for
	// the other methods). The R package implied reports 1/k.
	Exponent float64 `json:"exponent,omitempty"`
	// Notes says what a reader should know (an underround).
	Notes []string `json:"notes,omitempty"`
}

// Implied turns the decimal odds of mutually exclusive outcomes (at least
// 2) into probabilities that add up to 1, by method m. Get decimal odds
// from text with [Parse] and [Value.Decimal].
//
// Errors:
//   - fewer than 2 outcomes: an error wrapping [ErrOutcomes];
//   - an unknown m: an [*Error] wrapping [ErrMethod];
//   - a decimal that is NaN, below 1 or -Inf: an [*OutcomeError] wrapping
//     an [*Error] wrapping [ErrRange];
//   - a decimal of exactly 1 (p = 1) or +Inf (p = 0): an [*OutcomeError]
//     wrapping [ErrCertain];
//   - Additive making an outcome negative: an [*OutcomeError] wrapping
//     [ErrNegative];
//   - Shin's method on odds without a margin (Sum < 1): an error wrapping
//     [ErrNoConvergence].
//
// Sum, OverroundPct, HoldPct and the multiplicative probabilities are
// computed in exact rationals from the decimals each float64 stands for
// (its shortest text: 1.91, not the binary fraction nearest it) and
// rounded once, so k outcomes at decimal odds k have
// Sum exactly 1 and OverroundPct exactly 0. [ImpliedValues] goes further
// and uses the exact values of parsed text ("1.91" is 191/100).
func Implied(decimals []float64, m Method) (Book, error) {
	return implied(decimals, nil, m)
}

// ImpliedValues is [Implied] for parsed values: it uses their exact
// rational odds, where known, for Sum, OverroundPct and HoldPct.
func ImpliedValues(vs []Value, m Method) (Book, error) {
	decimals := make([]float64, len(vs))
	exact := make([]*big.Rat, len(vs))
	for i, v := range vs {
		decimals[i] = v.Decimal()
		if r := v.Exact(); r != nil && r.Sign() > 0 {
			exact[i] = r // the probability 1/decimal
		}
	}
	return implied(decimals, exact, m)
}

// implied is Implied with the exact raw probabilities where known (nil
// entries, or a nil slice, use the float64 decimals' exact values).
func implied(decimals []float64, exact []*big.Rat, m Method) (Book, error) {
	if len(decimals) < 2 {
		return Book{}, fmt.Errorf("%w: got %d; send the odds of every outcome, one of which must happen", ErrOutcomes, len(decimals))
	}
	if m < 0 || int(m) >= len(methodNames) {
		return Book{}, &Error{Input: m.String(), Err: ErrMethod, Reason: "is not a method", Hint: methodHint}
	}
	b := Book{Method: m, Raw: make([]float64, len(decimals))}
	for i, d := range decimals {
		if err := checkDecimal(d); err != nil {
			return Book{}, &OutcomeError{Index: i, Err: err}
		}
		b.Raw[i] = 1 / d
	}
	// The sum, overround and hold from exact rationals, rounded once.
	total := new(big.Rat)
	rats := make([]*big.Rat, len(decimals))
	for i, d := range decimals {
		if exact != nil && exact[i] != nil {
			rats[i] = exact[i]
			b.Raw[i], _ = exact[i].Float64()
		} else {
			// The decimal the float64 stands for, its shortest text ("1.91"
			// for the float64 nearest 1.91): small denominators, and the
			// odds the writer meant.
			r, _ := new(big.Rat).SetString(strconv.FormatFloat(d, 'g', -1, 64))
			rats[i] = r.Inv(r)
		}
		total.Add(total, rats[i])
	}
	b.Sum, _ = total.Float64()
	over := new(big.Rat).Sub(total, ratOne)
	b.OverroundPct, _ = new(big.Rat).Mul(over, ratHundred).Float64()
	b.HoldPct, _ = new(big.Rat).Mul(new(big.Rat).Quo(over, total), ratHundred).Float64()
	cmp := total.Cmp(ratOne)
	if cmp < 0 {
		b.Notes = append(b.Notes, "the raw probabilities add up to "+pctText(b.Sum)+
			", under 100%: these odds carry no margin (an underround), so removing it raises them")
	}

	var p []float64
	var err error
	switch m {
	case Multiplicative: // exact r_i / S, rounded once
		p = make([]float64, len(b.Raw))
		for i, r := range rats {
			p[i], _ = new(big.Rat).Quo(r, total).Float64()
		}
		b.Probabilities = p
		return b, nil
	case Additive:
		p, err = additive(decimals, b.Raw, b.Sum)
	case Power:
		p, b.Exponent, err = power(b.Raw, cmp)
	case Shin:
		if cmp < 0 {
			return Book{}, fmt.Errorf("%w: the raw probabilities add up to %s, under 100%%, and Shin's model needs a margin; use the multiplicative or power method",
				ErrNoConvergence, pctText(b.Sum))
		}
		p, b.Z, b.Iterations = shin(b.Raw, b.Sum, cmp == 0)
	}
	if err != nil {
		return Book{}, err
	}
	// Remove the last rounding error so the probabilities add up to 1.
	var sum float64
	for _, x := range p {
		sum += x
	}
	for i := range p {
		p[i] = min(max(p[i]/sum, 0), 1)
	}
	b.Probabilities = p
	return b, nil
}

func pctText(x float64) string { return strconv.FormatFloat(100*x, 'f', 2, 64) + "%" }

func checkDecimal(d float64) error {
	if d > 1 && !math.IsInf(d, 1) {
		return nil
	}
	e := &Error{Input: floatText(d), Notation: Decimal, Err: ErrRange, Hint: defaultHint(Decimal)}
	switch {
	case math.IsNaN(d):
		e.Reason = "is not a number"
	case math.IsInf(d, 1):
		e.Err, e.Reason = ErrCertain, "is infinite, which is a probability of 0 (impossible)"
		e.Hint = certainHint + "; leave out outcomes that cannot happen"
	case d == 1:
		e.Err, e.Reason = ErrCertain, "decimal odds of 1 return only the stake, which is a probability of 1 (certain)"
		e.Hint = "use decimal odds above 1, such as 1.01"
	case d < 1:
		e.Reason = "is below 1, and decimal odds are above 1 (they include the stake)"
	default:
		return nil
	}
	return e
}

// additive is p_i = r_i - (S-1)/n (Clarke, Kovalchik & Ingram 2017).
func additive(decimals, raw []float64, sum float64) ([]float64, error) {
	share := (sum - 1) / float64(len(raw))
	p := make([]float64, len(raw))
	for i, r := range raw {
		p[i] = r - share
		if p[i] < 0 {
			return nil, &OutcomeError{Index: i, Err: &Error{Input: floatText(decimals[i]), Notation: Decimal, Err: ErrNegative,
				Reason: "the additive method gives it a probability of " + strconv.FormatFloat(p[i], 'g', 4, 64) +
					" (its raw probability " + strconv.FormatFloat(r, 'g', 4, 64) + " is below the equal share of the margin, " +
					strconv.FormatFloat(share, 'g', 4, 64) + ")",
				Hint: "use the multiplicative, power or Shin method"}}
		}
	}
	return p, nil
}

// power finds k > 0 with sum r_i^k = 1 (f(k) = sum r_i^k - 1 falls from
// n-1 at k = 0 towards -1, so the root is unique) by Newton's method kept
// inside a bracket. cmp is the sign of S - 1, exact. The favourite's term
// enters f as -(1 - r^k) = expm1(k log r), so that a favourite near 1 does
// not cancel against the 1 and lose the long shots' digits.
func power(raw []float64, cmp int) ([]float64, float64, error) {
	fav := 0
	for i, r := range raw {
		if r > raw[fav] {
			fav = i
		}
	}
	logs := make([]float64, len(raw))
	for i, r := range raw {
		logs[i] = math.Log(r)
	}
	f := func(k float64) (val, deriv float64) {
		for i, r := range raw {
			t := math.Pow(r, k)
			deriv += t * logs[i]
			if i != fav {
				val += t
			}
		}
		return val + math.Expm1(k*logs[fav]), deriv
	}
	k := 1.0
	if cmp != 0 {
		lo, hi := 1.0, 1.0
		if cmp > 0 {
			for hi = 2; ; hi *= 2 {
				if v, _ := f(hi); v <= 0 || hi > 1e300 {
					break
				}
				lo = hi
			}
		} else {
			for lo = 0.5; ; lo /= 2 {
				if v, _ := f(lo); v >= 0 || lo < 1e-300 {
					break
				}
				hi = lo
			}
		}
		k = (lo + hi) / 2
		for range 200 {
			v, d := f(k)
			if v == 0 {
				break
			}
			if v > 0 {
				lo = k
			} else {
				hi = k
			}
			next := k - v/d
			if !(next > lo && next < hi) {
				next = (lo + hi) / 2
			}
			if next == k || lo == hi || math.Nextafter(lo, hi) == hi {
				k = next
				break
			}
			k = next
		}
	}
	p := make([]float64, len(raw))
	for i, r := range raw {
		p[i] = math.Pow(r, k)
	}
	return p, k, nil
}

// shinP is Shin's p_i(z) for r_i = r and booksum s, written as
// 2r²/(s (sqrt(z² + 4(1-z) r²/s) + z)), which equals
// (sqrt(z² + 4(1-z) r²/s) - z) / (2(1-z)) without its cancellation.
func shinP(r, s, z float64) float64 {
	return 2 * r * r / (s * (math.Sqrt(z*z+4*(1-z)*r*r/s) + z))
}

// shin computes Shin's probabilities and z: the root in [0, 1) of
// g(z) = sum_i p_i(z) - 1. g(0) = sqrt(S) - 1 > 0 when the book has a
// margin, and g falls to sum r_i²/S - 1 < 0 as z nears 1, so the root is
// bracketed; bisection halves the bracket until its ends are adjacent
// doubles (at most about 1,100 steps, usually 50 to 70). fair reports an
// exactly fair book (S = 1), whose z is 0.
func shin(raw []float64, sum float64, fair bool) ([]float64, float64, int) {
	g := func(z float64) float64 {
		var s float64
		for _, r := range raw {
			s += shinP(r, sum, z)
		}
		return s - 1
	}
	z, steps := 0.0, 0
	if !fair && g(0) > 0 {
		lo, hi := 0.0, math.Nextafter(1, 0)
		for {
			mid := lo + (hi-lo)/2
			if mid <= lo || mid >= hi {
				break
			}
			steps++
			if g(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		z = lo
		if math.Abs(g(hi)) < math.Abs(g(lo)) {
			z = hi
		}
	}
	p := make([]float64, len(raw))
	for i, r := range raw {
		p[i] = shinP(r, sum, z)
	}
	return p, z, steps
}
