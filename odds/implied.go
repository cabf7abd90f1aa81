package odds

import (
	"fmt"
	"math"
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
	// p_i = (sqrt(z² + 4(1-z) r_i²/S) - z) / (2(1-z)), with z solved by
	// fixed-point iteration for 3 or more outcomes and in closed form for 2
	// (Štrumbelj 2014), where it equals Additive. It needs odds with a
	// margin (S >= 1).
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
	// Iterations is the number of fixed-point iterations Shin's method
	// took (0 for two outcomes, solved in closed form, and for the other
	// methods).
	Iterations int `json:"iterations,omitempty"`
	// Exponent is the power k of the Power method, p_i = r_i^k (0 for
	// the other methods). The R package implied reports 1/k.
	Exponent float64 `json:"exponent,omitempty"`
	// Notes says what a reader should know (an underround).
	Notes []string `json:"notes,omitempty"`
}

// Shin's iteration stops when z changes by at most shinTolerance, as in the
// Python package shin; shinMaxIterations is ten times that package's
// default, since books of 30 outcomes converge more slowly.
const (
	shinTolerance     = 1e-12
	shinMaxIterations = 10000
)

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
//   - Shin's method on odds without a margin (Sum < 1), where the
//     iteration does not settle, or an iteration that does not settle
//     within 10,000 steps to a change in z of 1e-12: an error wrapping
//     [ErrNoConvergence].
func Implied(decimals []float64, m Method) (Book, error) {
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
		b.Sum += b.Raw[i]
	}
	b.OverroundPct = (b.Sum - 1) * 100
	b.HoldPct = (1 - 1/b.Sum) * 100
	if b.Sum < 1 {
		b.Notes = append(b.Notes, "the raw probabilities add up to "+pctText(b.Sum)+
			", under 100%: these odds carry no margin (an underround), so removing it raises them")
	}

	var p []float64
	var err error
	switch m {
	case Multiplicative:
		p = make([]float64, len(b.Raw))
		for i, r := range b.Raw {
			p[i] = r / b.Sum
		}
	case Additive:
		p, err = additive(decimals, b.Raw, b.Sum)
	case Power:
		p, b.Exponent, err = power(b.Raw, b.Sum)
	case Shin:
		if b.Sum < 1 {
			return Book{}, fmt.Errorf("%w: the raw probabilities add up to %s, under 100%%, and Shin's model needs a margin; use the multiplicative or power method",
				ErrNoConvergence, pctText(b.Sum))
		}
		p, b.Z, b.Iterations, err = shin(b.Raw, b.Sum)
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
// inside a bracket.
func power(raw []float64, sum float64) ([]float64, float64, error) {
	f := func(k float64) (val, deriv float64) {
		for _, r := range raw {
			t := math.Pow(r, k)
			val += t
			deriv += t * math.Log(r)
		}
		return val - 1, deriv
	}
	k := 1.0
	if sum != 1 {
		lo, hi := 1.0, 1.0
		if sum > 1 {
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
			if math.Abs(next-k) <= 1e-15*k {
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

// shin computes Shin's probabilities and z. For n >= 3 it iterates
// z <- (sum_i sqrt(z² + 4(1-z) r_i²/S) - 2) / (n - 2) from z = 0, the
// fixed point at which the p_i add up to 1 (Jullien & Salanié 1994; the
// procedure of the Python package shin). For n = 2 z has a closed form
// (Štrumbelj 2014): z = (S-1)(d²-S) / (S(d²-1)), d = r_1 - r_2.
func shin(raw []float64, sum float64) ([]float64, float64, int, error) {
	n := len(raw)
	z := 0.0
	iterations := 0
	if n == 2 {
		d := raw[0] - raw[1]
		z = (sum - 1) * (d*d - sum) / (sum * (d*d - 1))
	} else {
		delta := math.Inf(1)
		for delta > shinTolerance {
			if iterations == shinMaxIterations {
				return nil, 0, iterations, fmt.Errorf("%w after %d iterations (last change in z %.3g, z %.6g); use the multiplicative or power method",
					ErrNoConvergence, iterations, delta, z)
			}
			var s float64
			for _, r := range raw {
				s += math.Sqrt(z*z + 4*(1-z)*r*r/sum)
			}
			next := (s - 2) / float64(n-2)
			if math.IsNaN(next) || next >= 1 || next <= -1 {
				return nil, 0, iterations, fmt.Errorf("%w: z left the range (-1, 1) after %d iterations; use the multiplicative or power method",
					ErrNoConvergence, iterations+1)
			}
			delta = math.Abs(next - z)
			z = next
			iterations++
		}
	}
	p := make([]float64, n)
	for i, r := range raw {
		p[i] = (math.Sqrt(z*z+4*(1-z)*r*r/sum) - z) / (2 * (1 - z))
	}
	return p, z, iterations, nil
}
