package odds_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/predictions-md/predictions/odds"
)

// shinReference solves Shin's sum_i p_i(z) = 1 by bisection in big.Float
// with a 64-bit mantissa, from the definition as the R package implied
// states it: p_i = (sqrt(z² + 4(1-z) r_i²/S) - z) / (2(1-z)). Its 64 steps
// bound z within 2^-64 (about 5e-20) and each of its operations errs by
// about as much, a thousand times below the 1e-15 the tests allow.
func shinReference(decimals []float64) (z float64, p []float64) {
	const prec = 64
	nf := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	raw := make([]*big.Float, len(decimals))
	s := nf(0)
	for i, d := range decimals {
		raw[i] = new(big.Float).SetPrec(prec).Quo(nf(1), nf(d))
		s.Add(s, raw[i])
	}
	pi := func(r, zz *big.Float) *big.Float {
		one := nf(1)
		omz := new(big.Float).SetPrec(prec).Sub(one, zz)
		t := new(big.Float).SetPrec(prec).Mul(r, r)
		t.Mul(t, omz).Mul(t, nf(4)).Quo(t, s)
		t.Add(t, new(big.Float).SetPrec(prec).Mul(zz, zz))
		t.Sqrt(t).Sub(t, zz)
		return t.Quo(t, omz.Mul(omz, nf(2)))
	}
	g := func(zz *big.Float) int {
		sum := nf(0)
		for _, r := range raw {
			sum.Add(sum, pi(r, zz))
		}
		return sum.Cmp(nf(1))
	}
	lo, hi := nf(0), nf(1)
	for range 64 {
		mid := new(big.Float).SetPrec(prec).Add(lo, hi)
		mid.Quo(mid, nf(2))
		if g(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	z, _ = lo.Float64()
	p = make([]float64, len(raw))
	for i, r := range raw {
		p[i], _ = pi(r, lo).Float64()
	}
	return z, p
}

// z is compared in absolute terms: the float64 raw probabilities and their
// sum carry rounding errors of about 1e-16, and z moves by as much.
func TestShinDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1993))
	for trial := range 1000 {
		n := 2 + rng.IntN(8)
		margin := math.Pow(10, -1-5*rng.Float64()) // 1e-6 to 10%
		w := make([]float64, n)
		var sw float64
		for i := range w {
			w[i] = 0.05 + rng.Float64()
			sw += w[i]
		}
		decimals := make([]float64, n)
		for i := range w {
			decimals[i] = 1 / (w[i] / sw * (1 + margin))
		}
		b, err := odds.Implied(decimals, odds.Shin)
		if err != nil {
			t.Fatalf("trial %d: Implied(%v, Shin): %v", trial, decimals, err)
		}
		z, p := shinReference(decimals)
		if math.Abs(b.Z-z) > 1e-15 {
			t.Errorf("trial %d: Implied(%v, Shin).Z = %v, want %v", trial, decimals, b.Z, z)
		}
		for i := range p {
			if math.Abs(b.Probabilities[i]-p[i]) > 1e-14*p[i] {
				t.Errorf("trial %d: p[%d] = %v, want %v", trial, i, b.Probabilities[i], p[i])
			}
		}
	}
}

func TestShinBoundaries(t *testing.T) {
	// Three outcomes at a 0.013% margin (the fixed point gave up after
	// 10,000 steps), and ten outcomes at "10", a fair book.
	small := []float64{1 / (0.5 * 1.00013), 1 / (0.3 * 1.00013), 1 / (0.2 * 1.00013)}
	b, err := odds.Implied(small, odds.Shin)
	if err != nil {
		t.Fatalf("Implied(%v, Shin): %v", small, err)
	}
	if z, _ := shinReference(small); math.Abs(b.Z-z) > 1e-15 {
		t.Errorf("Implied(%v, Shin).Z = %v, want %v", small, b.Z, z)
	}
	for _, k := range []int{3, 6, 7, 10, 13, 49} {
		decimals := make([]float64, k)
		for i := range decimals {
			decimals[i] = float64(k)
		}
		for _, m := range odds.Methods {
			b, err := odds.Implied(decimals, m)
			if err != nil {
				t.Fatalf("Implied(%d x %d, %v): %v", k, k, m, err)
			}
			if b.Sum != 1 || b.OverroundPct != 0 || b.HoldPct != 0 || len(b.Notes) != 0 || b.Z != 0 {
				t.Errorf("Implied(%d x %d, %v): sum %v, overround %v, hold %v, z %v, notes %q; want a fair book",
					k, k, m, b.Sum, b.OverroundPct, b.HoldPct, b.Z, b.Notes)
			}
		}
	}
}

// TestPowerExtremeFavourite checks the power method's k on a book with a
// favourite near 1, where sum r_i^k - 1 cancels in float64: the reference
// bisects k with the sum of the float64 terms taken in big.Float.
func TestPowerExtremeFavourite(t *testing.T) {
	decimals := []float64{1.0001, 20000, 30000, 50000}
	b, err := odds.Implied(decimals, odds.Power)
	if err != nil {
		t.Fatal(err)
	}
	// Bisection in big.Float on k over the exact sum.
	const prec = 300
	sum := func(k float64) int {
		s := new(big.Float).SetPrec(prec)
		for _, d := range decimals {
			s.Add(s, new(big.Float).SetPrec(prec).SetFloat64(math.Pow(1/d, k)))
		}
		return s.Cmp(big.NewFloat(1))
	}
	lo, hi := 0.0, 64.0
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if sum(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	if math.Abs(b.Exponent-lo) > 1e-12*lo {
		t.Errorf("Implied(%v, Power).Exponent = %v, want %v", decimals, b.Exponent, lo)
	}
	var total float64
	for _, p := range b.Probabilities {
		total += p
	}
	if math.Abs(total-1) > 4e-16 {
		t.Errorf("Implied(%v, Power) probabilities add up to %v", decimals, total)
	}
}
