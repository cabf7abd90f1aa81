package odds_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/odds"
)

// TestDisplayNeverLies: no text of a probability below 1 reads as 1 or
// 100%, none above 0 as 0, and fractions are ratios of whole numbers.
func TestDisplayNeverLies(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	ps := []float64{1 - 1e-15, math.Nextafter(1, 0), 1e-298, 1e-300, 0.5000000001, 1e-15}
	for range 3000 {
		x := math.Pow(10, -300*rng.Float64())
		if rng.IntN(2) == 0 {
			x = 1 - x
		}
		ps = append(ps, x)
	}
	for _, p := range ps {
		v, err := odds.FromProbability(p)
		if err != nil {
			continue
		}
		f := v.Formats()
		pt, _ := strconv.ParseFloat(f.ProbabilityText, 64)
		pc, _ := strconv.ParseFloat(strings.TrimSuffix(f.PercentText, "%"), 64)
		if pt <= 0 || pt >= 1 || pc <= 0 || pc >= 100 {
			t.Errorf("FromProbability(%v): texts %q and %q reach the end of the scale", p, f.ProbabilityText, f.PercentText)
		}
		for _, s := range []string{f.Fractional, f.OddsFor} {
			if strings.ContainsAny(s, "e.+") {
				t.Errorf("FromProbability(%v): %q is not a ratio of whole numbers", p, s)
			}
		}
		if strings.HasSuffix(f.Fractional, "/1") && len(f.Fractional) > 22 && !f.FractionalApproximate {
			t.Errorf("FromProbability(%v): long fraction %q not marked approximate", p, f.Fractional)
		}
	}
}
