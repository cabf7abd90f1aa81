package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/predictions-md/predictions/internal/tools"
)

// TestConvertDifferential calls convert_odds on 3,000 seeded random
// values written in every notation and compares each number of the answer
// with the exact value the published definitions give (DECISIONS.md,
// convert_odds), computed in rational arithmetic and rounded once:
// probability p, percent 100p, decimal 1/p, American +100(1−p)/p for
// p ≤ 0.5 and −100p/(1−p) above, fractional (1−p)/p and odds for p:(1−p)
// as reduced whole-number ratios.
func TestConvertDifferential(t *testing.T) {
	tool := tools.Lookup("convert_odds")
	rng := rand.New(rand.NewPCG(7, 1993))
	for trial := range 3000 {
		a, b := int64(1+rng.IntN(999)), int64(1+rng.IntN(999))
		var text string
		var p *big.Rat
		switch trial % 5 {
		case 0:
			text, p = fmt.Sprintf("%d/%d", a, b), big.NewRat(b, a+b) // fractional against
		case 1:
			text, p = fmt.Sprintf("%d:%d", a, b), big.NewRat(a, a+b) // odds for
		case 2:
			m := 100 + int64(rng.IntN(9901))
			if rng.IntN(2) == 0 {
				text, p = fmt.Sprintf("+%d", m), big.NewRat(100, m+100)
			} else {
				text, p = fmt.Sprintf("-%d", m), big.NewRat(m, m+100)
			}
		case 3:
			k := 101 + int64(rng.IntN(99900)) // decimal odds k/100
			text, p = new(big.Rat).SetFrac64(k, 100).FloatString(2), big.NewRat(100, k)
		case 4:
			k := 1 + int64(rng.IntN(999)) // a percent in tenths
			text, p = new(big.Rat).SetFrac64(k, 10).FloatString(1)+"%", big.NewRat(k, 1000)
		}
		raw, _ := json.Marshal(map[string]string{"value": text})
		res, err := tool.Call(context.Background(), raw)
		if err != nil {
			t.Fatalf("convert_odds(%s): %v", text, err)
		}
		body, err := res.Envelope("https://p.example/terms")
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Formats struct {
				Probability, Percent, Decimal, American float64
				Fractional                              string
				OddsFor                                 string `json:"odds_for"`
				Exact                                   bool
			}
		}
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		f := out.Formats
		q := new(big.Rat).Sub(big.NewRat(1, 1), p) // 1 − p
		american := new(big.Rat).Quo(new(big.Rat).Mul(big.NewRat(100, 1), q), p)
		if p.Cmp(big.NewRat(1, 2)) > 0 {
			american = new(big.Rat).Neg(new(big.Rat).Quo(new(big.Rat).Mul(big.NewRat(100, 1), p), q))
		}
		against := new(big.Rat).Quo(q, p)
		forOdds := new(big.Rat).Quo(p, q)
		for _, c := range []struct {
			name string
			got  float64
			want *big.Rat
		}{
			{"probability", f.Probability, p},
			{"percent", f.Percent, new(big.Rat).Mul(p, big.NewRat(100, 1))},
			{"decimal", f.Decimal, new(big.Rat).Inv(p)},
			{"american", f.American, american},
		} {
			if w, _ := c.want.Float64(); c.got != w {
				t.Errorf("convert_odds(%s).%s = %v, want %v (exact %s)", text, c.name, c.got, w, c.want.RatString())
			}
		}
		if !f.Exact {
			t.Errorf("convert_odds(%s): exact = false for exact text", text)
		}
		if want := against.Num().String() + "/" + against.Denom().String(); f.Fractional != want {
			t.Errorf("convert_odds(%s).fractional = %q, want %q", text, f.Fractional, want)
		}
		if want := forOdds.Num().String() + ":" + forOdds.Denom().String(); f.OddsFor != want {
			t.Errorf("convert_odds(%s).odds_for = %q, want %q", text, f.OddsFor, want)
		}
	}
}
