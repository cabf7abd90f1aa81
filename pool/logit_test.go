package pool

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// logitReference is log(p/(1-p)) of the exact value of the float64 p, in
// big.Float at 200 bits (log via the series of atanh, since math/big has
// no logarithm): log(x) = 2 atanh((x-1)/(x+1)), after scaling x by powers
// of 2 into [1/2, 2].
func logitReference(p float64) float64 {
	const prec = 200
	x := new(big.Float).SetPrec(prec).SetFloat64(p)
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	x.Quo(x, new(big.Float).SetPrec(prec).Sub(one, x))
	e := x.MantExp(nil) // x = m 2^e, m in [1/2, 1)
	m := new(big.Float).SetPrec(prec).SetMantExp(x, -e)
	t := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).Sub(m, one), new(big.Float).SetPrec(prec).Add(m, one))
	t2 := new(big.Float).SetPrec(prec).Mul(t, t)
	sum := new(big.Float).SetPrec(prec)
	term := new(big.Float).SetPrec(prec).Set(t)
	for k := int64(1); k < 400; k += 2 {
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(k)))
		term.Mul(term, t2)
	}
	sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
	ln2, _ := new(big.Float).SetPrec(prec).SetString("0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863326996418687542")
	sum.Add(sum, new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(e))))
	f, _ := sum.Float64()
	return f
}

func TestLogitRelativeError(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	ps := []float64{0.5000000001, math.Nextafter(0.5, 1), math.Nextafter(0.5, 0), 0.25, 0.75, 1e-300, 1 - 1e-15, 0.001, 0.999}
	for range 3000 {
		switch rng.IntN(3) {
		case 0:
			ps = append(ps, rng.Float64())
		case 1:
			ps = append(ps, 0.5+(rng.Float64()-0.5)*math.Pow(10, -16*rng.Float64()))
		default:
			ps = append(ps, math.Pow(10, -300*rng.Float64()))
		}
	}
	for _, p := range ps {
		if p <= 0 || p >= 1 || p == 0.5 {
			continue
		}
		got, want := logit(p), logitReference(p)
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("logit(%v) = %v, want %v (relative error %.3g)", p, got, want, math.Abs(got-want)/math.Abs(want))
		}
	}
}

func TestPoolIdenticalForecasts(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 6))
	for range 2000 {
		p := rng.Float64()
		if p < ClipLow || p > ClipHigh {
			continue
		}
		n := 1 + rng.IntN(20)
		fs := make([]Forecast, n)
		for i := range fs {
			w := rng.Float64() + 0.01
			fs[i] = Forecast{P: p, Weight: &w}
		}
		res, err := Combine(fs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.GeoOdds != p || res.Mean != p || res.Median != p {
			t.Fatalf("Combine(%d x %v) = geo %v, mean %v, median %v; want %v each", n, p, res.GeoOdds, res.Mean, res.Median, p)
		}
	}
	ten := make([]Forecast, 10)
	for i := range ten {
		ten[i] = Forecast{P: 0.01}
	}
	if res, _ := Combine(ten, Options{}); res.GeoOdds != 0.01 {
		t.Errorf("Combine(10 x 0.01).GeoOdds = %v, want 0.01", res.GeoOdds)
	}
}
