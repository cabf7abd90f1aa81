package evaluate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPercentile(t *testing.T) {
	count := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(n - 1 - i) // descending: percentile sorts
		}
		return d
	}
	tests := []struct {
		name   string
		d      []float64
		lo, hi float64
	}{
		{"2000 gains: the 51st from each end", count(2000), 50, 1949},
		{"1000 gains", count(1000), 25, 974},
		{"39 gains: k = 0, the extremes", count(39), 0, 38},
		{"40 gains: k = 1", count(40), 1, 38},
		{"none: the point estimate", nil, 7, 7},
	}
	for _, tt := range tests {
		lo, hi := percentile(tt.d, 7)
		if lo != tt.lo || hi != tt.hi {
			t.Errorf("%s: percentile = %v, %v; want %v, %v", tt.name, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestBootstrapNaive compares bootstrap with a plain resampling of the
// questions, one resample at a time, drawing from the same generator.
func TestBootstrapNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const pools, n = 3, 25
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, pools*nScores)
		for j := range rows[i] {
			if j%nScores < brierClose {
				rows[i][j] = -r.Float64() // log scores
			} else {
				rows[i][j] = r.Float64()
			}
		}
	}
	const resamples, seed = 400, 11
	got := bootstrap(rows, []int{1, 2}, resamples, seed)

	rng := rand.New(rand.NewPCG(seed, SeedStream))
	draws := make([][]int, resamples)
	for b := range draws {
		for range n {
			draws[b] = append(draws[b], rng.IntN(n))
		}
	}
	meanOf := func(idx []int, col int) float64 {
		var s float64
		for _, i := range idx {
			s += rows[i][col]
		}
		return s / float64(len(idx))
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for r, ref := range []int{1, 2} {
		for k := range pools {
			for s := range nScores {
				rel := func(idx []int) float64 {
					m, mr := meanOf(idx, k*nScores+s), meanOf(idx, ref*nScores+s)
					if s >= brierClose {
						return (mr - m) / math.Abs(mr) * 100
					}
					return (m - mr) / math.Abs(mr) * 100
				}
				var gs []float64
				for _, idx := range draws {
					gs = append(gs, rel(idx))
				}
				slices.Sort(gs)
				want := &Gain{Percent: rel(all), Low: gs[10], High: gs[389]} // ⌊0.025·400⌋ = 10
				if diff := cmp.Diff(want, got[r][k][s], cmpopts.EquateApprox(1e-9, 1e-12)); diff != "" {
					t.Errorf("pool %d over %d, score %d (-want +got):\n%s", k, ref, s, diff)
				}
			}
		}
	}
}

// TestBootstrapZeroReference: a reference with a mean score of 0 gives no
// gain; a resample where it is 0 is left out.
func TestBootstrapZeroReference(t *testing.T) {
	row := func(ref, p float64) []float64 {
		return []float64{-0.1, -0.1, ref, ref, -0.2, -0.2, p, p}
	}
	got := bootstrap([][]float64{row(0, 0.1), row(0, 0.2)}, []int{0}, 50, 1)
	if got[0][1][brierClose] != nil {
		t.Errorf("gain over a perfect reference = %v, want nil", got[0][1][brierClose])
	}
	got = bootstrap([][]float64{row(0, 0.1), row(0.5, 0.2)}, []int{0}, 50, 1)
	g := got[0][1][brierClose]
	// Resamples that draw only the first question have no gain and are
	// left out; every other gain is finite.
	if g == nil || math.IsInf(g.Low, 0) || math.IsNaN(g.Low) || math.IsInf(g.High, 0) || math.IsNaN(g.High) {
		t.Errorf("gain = %+v, want finite bounds", g)
	}
}
