package scoring_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/predictions-md/predictions/scoring"
)

// ratF is the exact value of a float64.
func ratF(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }

// exactReference computes the Brier score and the five terms of Stephenson,
// Coelho & Jolliffe (2008) in exact rationals, from the definitions: bins
// with the float64 edges i/k the tool reports, left-closed (p = 1 in the
// last); n_b, mean forecast f_b,
// observed frequency o_b per bin, base rate o.
func exactReference(fs []scoring.Forecast, k int) (brier float64, m scoring.Murphy) {
	n := new(big.Rat).SetInt64(int64(len(fs)))
	type bin struct {
		ps  []*big.Rat
		ys  []*big.Rat
		sum *big.Rat
		yes *big.Rat
	}
	bins := make([]bin, k)
	for i := range bins {
		bins[i] = bin{sum: new(big.Rat), yes: new(big.Rat)}
	}
	bs, total := new(big.Rat), new(big.Rat)
	for _, f := range fs {
		p, y := ratF(f.P), new(big.Rat)
		if f.Outcome {
			y.SetInt64(1)
		}
		d := new(big.Rat).Sub(p, y)
		bs.Add(bs, d.Mul(d, d))
		total.Add(total, y)
		// bin: the largest i with i/k <= p, capped at k-1
		i := int(f.P * float64(k))
		for i > 0 && ratF(f.P).Cmp(ratF(float64(i)/float64(k))) < 0 {
			i--
		}
		for i < k-1 && ratF(f.P).Cmp(ratF(float64(i+1)/float64(k))) >= 0 {
			i++
		}
		if i >= k {
			i = k - 1
		}
		b := &bins[i]
		b.ps, b.ys = append(b.ps, p), append(b.ys, y)
		b.sum.Add(b.sum, p)
		b.yes.Add(b.yes, y)
	}
	o := new(big.Rat).Quo(total, n)
	rel, res, wbv, wbc := new(big.Rat), new(big.Rat), new(big.Rat), new(big.Rat)
	for _, b := range bins {
		if len(b.ps) == 0 {
			continue
		}
		nb := new(big.Rat).SetInt64(int64(len(b.ps)))
		fb := new(big.Rat).Quo(b.sum, nb)
		ob := new(big.Rat).Quo(b.yes, nb)
		d := new(big.Rat).Sub(fb, ob)
		rel.Add(rel, d.Mul(d, d).Mul(d, nb))
		e := new(big.Rat).Sub(ob, o)
		res.Add(res, e.Mul(e, e).Mul(e, nb))
		for j, p := range b.ps {
			dp := new(big.Rat).Sub(p, fb)
			wbv.Add(wbv, new(big.Rat).Mul(dp, dp))
			dy := new(big.Rat).Sub(b.ys[j], ob)
			wbc.Add(wbc, dp.Mul(dp, dy))
		}
	}
	unc := new(big.Rat).Mul(o, new(big.Rat).Sub(big.NewRat(1, 1), o))
	f := func(r *big.Rat) float64 { x, _ := new(big.Rat).Quo(r, n).Float64(); return x }
	brier = f(bs)
	m.Reliability, m.Resolution, m.WithinBinVariance = f(rel), f(res), f(wbv)
	m.WithinBinCovariance = 2 * f(wbc)
	m.Uncertainty, _ = unc.Float64()
	return brier, m
}

func TestScoreDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2008))
	for trial := range 2000 {
		k := 2 + rng.IntN(19)
		fs := make([]scoring.Forecast, 1+rng.IntN(60))
		for i := range fs {
			var p float64
			switch rng.IntN(4) {
			case 0:
				p = float64(rng.IntN(k+1)) / float64(k) // on an edge
			case 1:
				p = float64(rng.IntN(101)) / 100
			default:
				p = rng.Float64()
			}
			fs[i] = scoring.Forecast{P: p, Outcome: rng.IntN(2) == 0}
		}
		res, err := scoring.Score(fs, scoring.Options{Bins: k})
		if err != nil {
			t.Fatal(err)
		}
		brier, m := exactReference(fs, k)
		got := res.Overall
		close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
		if !close(got.Brier, brier) || !close(got.Murphy.Reliability, m.Reliability) || !close(got.Murphy.Resolution, m.Resolution) ||
			!close(got.Murphy.Uncertainty, m.Uncertainty) || !close(got.Murphy.WithinBinVariance, m.WithinBinVariance) ||
			!close(got.Murphy.WithinBinCovariance, m.WithinBinCovariance) {
			t.Fatalf("trial %d (k %d, %d forecasts): Brier %v, %+v; want %v, %+v", trial, k, len(fs), got.Brier, got.Murphy, brier, m)
		}
		// The log score, with the clipping to [0.1%, 99.9%] the tool states.
		var ls float64
		for _, f := range fs {
			c := min(max(f.P, scoring.ClipLow), scoring.ClipHigh)
			if !f.Outcome {
				c = 1 - c
			}
			ls += math.Log(c)
		}
		if want := ls / float64(len(fs)); math.Abs(got.LogScore-want) > 1e-12*math.Abs(want)+1e-15 {
			t.Fatalf("trial %d: log score %v, want %v", trial, got.LogScore, want)
		}
	}
}
