package pool_test

import (
	"fmt"
	"testing"

	"github.com/predictions-md/predictions/pool"
)

// TestMiddleDisagree pins the board's measure at its boundaries, beside
// Combine's flag on the same forecasts, which keeps the seed's rule.
func TestMiddleDisagree(t *testing.T) {
	for _, c := range []struct {
		name    string
		sorted  []float64
		pts     float64
		flag    bool
		combine bool // Combine's Disagree: highest − lowest > 20 points
	}{
		{"none", nil, 0, false, false},
		{"one", []float64{0.5}, 0, false, false},
		{"two at 0 and 1, below the minimum", []float64{0, 1}, 50, false, true},
		{"three, below the minimum", []float64{0.1, 0.5, 0.9}, 40, false, true},
		{"four at the threshold exactly (0.5 − 0.3 rounds to 20)", []float64{0.3, 0.3, 0.5, 0.5}, 20, false, false},
		{"four just above", []float64{0.3, 0.3, 0.51, 0.51}, 21, true, true},
		{"four interpolated", []float64{0.1, 0.2, 0.6, 0.9}, 50, true, true},
		{"0 and 1 split evenly", []float64{0, 0, 0, 1, 1, 1}, 100, true, true},
		{"one 0 among 1s", []float64{0, 1, 1, 1, 1}, 0, false, true},
		{"ties with one outlier", []float64{0.05, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6}, 0, false, true},
		{"outliers at both ends", []float64{0.02, 0.5, 0.55, 0.6, 0.62, 0.98}, 10.25, false, true},
		{"five split", []float64{0.2, 0.3, 0.5, 0.6, 0.9}, 30, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := pool.MiddleSpreadPts(c.sorted); got != c.pts {
				t.Errorf("MiddleSpreadPts(%v) = %v, want %v", c.sorted, got, c.pts)
			}
			if got := pool.MiddleDisagree(c.sorted); got != c.flag {
				t.Errorf("MiddleDisagree(%v) = %v, want %v", c.sorted, got, c.flag)
			}
			var s pool.Standing
			for i, p := range c.sorted {
				if err := s.Set(fmt.Sprint(i), p); err != nil {
					t.Fatal(err)
				}
			}
			if s.MiddleSpreadPts() != c.pts || s.MiddleDisagree() != c.flag {
				t.Errorf("Standing: MiddleSpreadPts %v, MiddleDisagree %v; want %v, %v", s.MiddleSpreadPts(), s.MiddleDisagree(), c.pts, c.flag)
			}
			if len(c.sorted) == 0 {
				return
			}
			fs := make([]pool.Forecast, len(c.sorted))
			for i, p := range c.sorted {
				fs[i] = pool.Forecast{P: p}
			}
			r, err := pool.Combine(fs, pool.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Disagree != c.combine {
				t.Errorf("Combine(%v).Disagree = %v, want %v (the seed's rule)", c.sorted, r.Disagree, c.combine)
			}
		})
	}
}
