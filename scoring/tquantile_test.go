package scoring

import (
	"math"
	"testing"
)

// TestTQuantile975 checks t(0.975, df) for df 1 to 200 against an
// independent computation: Student's t density integrated from 0 by
// Simpson's rule, and the point where the distribution function reaches
// 0.975 found by bisection. The table covers df below 10 and the
// Cornish–Fisher expansion the rest; both must agree within 2e-5.
func TestTQuantile975(t *testing.T) {
	for df := 1; df <= 200; df++ {
		want := tQuantileByIntegration(0.975, df)
		if got := tQuantile975(df); math.Abs(got-want) > 2e-5 {
			t.Errorf("tQuantile975(%d) = %.9f, want %.9f (by integration)", df, got, want)
		}
	}
}

// TestTQuantileByIntegration checks the reference itself against the two
// closed forms there are: df = 1 is the Cauchy distribution, t =
// tan(π(p − 1/2)); df = 2 has F(t) = 1/2 + t / (2√(2 + t²)), so t =
// (2p − 1)·√(2 / (1 − (2p − 1)²)).
func TestTQuantileByIntegration(t *testing.T) {
	for _, tt := range []struct {
		df   int
		want float64
	}{
		{1, math.Tan(math.Pi * 0.475)},      // 12.7062
		{2, 0.95 * math.Sqrt(2/(1-0.9025))}, // 4.3027
	} {
		if got := tQuantileByIntegration(0.975, tt.df); math.Abs(got-tt.want) > 1e-7 {
			t.Errorf("tQuantileByIntegration(0.975, %d) = %.9f, want %.9f", tt.df, got, tt.want)
		}
	}
}

// tQuantileByIntegration is the p-quantile (p > 1/2) of Student's t
// distribution with df degrees of freedom, by bisection on its
// distribution function.
func tQuantileByIntegration(p float64, df int) float64 {
	lo, hi := 0.0, 64.0
	for range 40 {
		mid := (lo + hi) / 2
		if tCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tCDF is Student's t distribution function at x ≥ 0: 1/2 plus the
// density integrated over [0, x] by Simpson's rule on 1,000 intervals.
// The density is Γ((ν+1)/2) / (√(νπ) Γ(ν/2)) · (1 + t²/ν)^(−(ν+1)/2).
func tCDF(x float64, df int) float64 {
	v := float64(df)
	lg1, _ := math.Lgamma((v + 1) / 2)
	lg2, _ := math.Lgamma(v / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(v*math.Pi)
	f := func(t float64) float64 { return c * math.Pow(1+t*t/v, -(v+1)/2) }
	const n = 1000
	h := x / n
	sum := f(0) + f(x)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(float64(i)*h)
	}
	return 0.5 + sum*h/3
}
