package pool_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/predictions-md/predictions/pool"
)

// TestMeanMedianDifferential compares the weighted mean and the weighted
// median with references in exact rational arithmetic, over 3,000 seeded
// random pools: probabilities in thousandths (ties included; the exact
// value of each float64 is the input) and whole
// weights from 0 to 5 (0 leaves a forecast out). The median's rule: sort
// by probability; the first forecast whose cumulative weight reaches half
// the total is the median, averaged with the next one when the cumulative
// weight there is exactly half.
func TestMeanMedianDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2026))
	for trial := range 3000 {
		n := 1 + rng.IntN(12)
		fs := make([]pool.Forecast, n)
		type item struct {
			p *big.Rat
			w int64
		}
		var items []item
		for i := range fs {
			k := int64(rng.IntN(1001))
			if rng.IntN(4) == 0 && i > 0 { // ties
				k = int64(math.Round(fs[i-1].P * 1000))
			}
			w := int64(rng.IntN(6))
			if i == 0 && w == 0 {
				w = 1 // at least one forecast counts
			}
			wf := float64(w)
			fs[i] = pool.Forecast{P: float64(k) / 1000, Weight: &wf}
			if w > 0 {
				// The reference starts from the float64 Combine gets.
				items = append(items, item{new(big.Rat).SetFloat64(fs[i].P), w})
			}
		}
		got, err := pool.Combine(fs, pool.Options{})
		if err != nil {
			t.Fatalf("trial %d: Combine: %v", trial, err)
		}
		// Mean: Σ w·p / Σ w, exactly.
		sum, total := new(big.Rat), int64(0)
		for _, it := range items {
			sum.Add(sum, new(big.Rat).Mul(it.p, big.NewRat(it.w, 1)))
			total += it.w
		}
		mean, _ := sum.Quo(sum, big.NewRat(total, 1)).Float64()
		if math.Abs(got.Mean-mean) > 1e-15*math.Max(mean, 1e-300) && got.Mean != mean {
			t.Errorf("trial %d: Mean = %v, want %v (exact, rounded once)", trial, got.Mean, mean)
		}
		// Median, exactly.
		slices.SortStableFunc(items, func(a, b item) int { return a.p.Cmp(b.p) })
		var cum int64
		var median *big.Rat
		for i, it := range items {
			cum += it.w
			switch {
			case 2*cum == total:
				median = new(big.Rat).Add(it.p, items[i+1].p)
				median.Quo(median, big.NewRat(2, 1))
			case 2*cum > total:
				median = it.p
			}
			if median != nil {
				break
			}
		}
		want, _ := median.Float64()
		if got.Median != want {
			t.Errorf("trial %d: Median of %v = %v, want %v", trial, fs, got.Median, want)
		}
	}
}
