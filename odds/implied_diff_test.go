package odds_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/predictions-md/predictions/odds"
)

// TestImpliedDifferential compares ImpliedValues with the definitions in
// exact rationals: raw r_i = 1/d_i of the decimal text, S = sum r_i,
// overround (S - 1) x 100, hold (1 - 1/S) x 100, multiplicative r_i/S and
// additive r_i - (S-1)/n, each rounded once.
func TestImpliedDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2017))
	for trial := range 2000 {
		n := 2 + rng.IntN(10)
		texts := make([]string, n)
		vs := make([]odds.Value, n)
		raw := make([]*big.Rat, n)
		sum := new(big.Rat)
		for i := range texts {
			if trial%5 == 0 { // a fair book: n outcomes at n
				texts[i] = fmt.Sprint(n)
			} else {
				texts[i] = fmt.Sprintf("%d.%02d", 1+rng.IntN(30), rng.IntN(100))
				if texts[i] == "1.00" {
					texts[i] = "1.01"
				}
			}
			v, err := odds.Parse(texts[i], odds.Decimal)
			if err != nil {
				t.Fatal(err)
			}
			vs[i] = v
			d, _ := new(big.Rat).SetString(texts[i])
			raw[i] = new(big.Rat).Inv(d)
			sum.Add(sum, raw[i])
		}
		f := func(r *big.Rat) float64 { x, _ := r.Float64(); return x }
		over := new(big.Rat).Sub(sum, big.NewRat(1, 1))
		b, err := odds.ImpliedValues(vs, odds.Multiplicative)
		if err != nil {
			t.Fatal(err)
		}
		if want := f(new(big.Rat).Mul(over, big.NewRat(100, 1))); b.OverroundPct != want {
			t.Fatalf("trial %d %v: overround %v, want %v", trial, texts, b.OverroundPct, want)
		}
		if want := f(new(big.Rat).Mul(new(big.Rat).Quo(over, sum), big.NewRat(100, 1))); b.HoldPct != want {
			t.Fatalf("trial %d %v: hold %v, want %v", trial, texts, b.HoldPct, want)
		}
		if trial%5 == 0 && (b.Sum != 1 || len(b.Notes) != 0) {
			t.Fatalf("trial %d %v: fair book has sum %v, notes %q", trial, texts, b.Sum, b.Notes)
		}
		for i := range raw {
			if want := f(new(big.Rat).Quo(raw[i], sum)); math.Abs(b.Probabilities[i]-want) > 4e-16*want {
				t.Fatalf("trial %d %v: multiplicative p[%d] = %v, want %v", trial, texts, i, b.Probabilities[i], want)
			}
		}
		share := new(big.Rat).Quo(over, new(big.Rat).SetInt64(int64(n)))
		ba, err := odds.ImpliedValues(vs, odds.Additive)
		if err != nil {
			continue // a long shot driven negative, refused
		}
		for i := range raw {
			want := f(new(big.Rat).Sub(raw[i], share))
			if math.Abs(ba.Probabilities[i]-want) > 1e-13*math.Max(want, 1e-3) {
				t.Fatalf("trial %d %v: additive p[%d] = %v, want %v", trial, texts, i, ba.Probabilities[i], want)
			}
		}
	}
}
