package odds_test

import (
	"errors"
	"fmt"

	"github.com/predictions-md/predictions/odds"
)

func ExampleParse() {
	for _, s := range []string{"0.4", "40%", "2.5", "3/2", "+150", "2:3", "-110", "evens"} {
		v, err := odds.Parse(s, odds.Auto)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-6s read as %-11s p = %.4f\n", s, v.ReadAs, v.P)
	}
	// Output:
	// 0.4    read as probability p = 0.4000
	// 40%    read as percent     p = 0.4000
	// 2.5    read as decimal     p = 0.4000
	// 3/2    read as fractional  p = 0.4000
	// +150   read as american    p = 0.4000
	// 2:3    read as odds_for    p = 0.4000
	// -110   read as american    p = 0.5238
	// evens  read as fractional  p = 0.5000
}

func ExampleParse_errors() {
	for _, s := range []string{"1.0", "+50", "100%", "1,91"} {
		_, err := odds.Parse(s, odds.Auto)
		var pe *odds.Error
		if errors.As(err, &pe) {
			fmt.Printf("%s: certain=%v\n  problem: %s\n  hint: %s\n", s, errors.Is(err, odds.ErrCertain), pe.Reason, pe.Hint)
		}
	}
	// Output:
	// 1.0: certain=true
	//   problem: is a probability of 1 (certain)
	//   hint: 1 is read as a probability of 1; odds need a chance strictly between 0 and 1, such as 0.999, 0.01 or 1%, or decimal odds above 1
	// +50: certain=false
	//   problem: is between -100 and +100, and American odds are +100 or more (+150 wins 150 for 100 staked) or -100 or less (-200 stakes 200 to win 100)
	//   hint: a leading + or - is read as American odds; write a probability without a sign, such as 0.4, or American odds such as +150
	// 100%: certain=true
	//   problem: is a probability of 100% (certain)
	//   hint: odds need a chance strictly between 0 and 1, such as 99.9%
	// 1,91: certain=false
	//   problem: has a comma
	//   hint: write decimals with a point and no thousands separator, such as 1.91 or 1000
}

func ExampleValue_Formats() {
	v, _ := odds.Parse("1.91", odds.Decimal)
	f := v.Formats()
	fmt.Println("probability:", f.ProbabilityText)
	fmt.Println("percent:    ", f.PercentText)
	fmt.Println("decimal:    ", f.DecimalText)
	fmt.Println("fractional: ", f.Fractional, "approximate:", f.FractionalApproximate)
	fmt.Println("american:   ", f.AmericanText)
	fmt.Println("odds for:   ", f.OddsFor)
	fmt.Println("log-odds:   ", f.LogOddsText)
	// Output:
	// probability: 0.5236
	// percent:     52.36%
	// decimal:     1.91
	// fractional:  91/100 approximate: false
	// american:    -109.89
	// odds for:    100:91
	// log-odds:    0.0943
}

func ExampleFromProbability() {
	v, _ := odds.FromProbability(0.123456)
	f := v.Formats()
	fmt.Println(f.Fractional, f.FractionalApproximate, f.DecimalText, f.AmericanText)
	// Output:
	// 71/10 true 8.1 +710.01
}

func ExampleCompare() {
	forecast, _ := odds.Parse("60%", odds.Auto)
	market, _ := odds.Parse("+150", odds.Auto) // 40%
	c, _ := odds.Compare(forecast, market)
	fmt.Printf("odds ratio %.2f, risk ratio %.2f, difference %+.1f points\n", c.OddsRatio, c.RiskRatio, c.DifferencePoints)
	// Output:
	// odds ratio 2.25, risk ratio 1.50, difference +20.0 points
}

func ExampleImplied() {
	// Home, draw, away: decimal 2.6, 2.4 and 4.3 (the example of the
	// Python package shin) in three notations.
	var decimals []float64
	for _, s := range []string{"2.6", "7/5", "+330"} {
		v, err := odds.Parse(s, odds.Auto)
		if err != nil {
			fmt.Println(err)
			return
		}
		decimals = append(decimals, v.Decimal())
	}
	for _, m := range odds.Methods {
		b, err := odds.Implied(decimals, m)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-14s overround %.2f%%  %.4f %.4f %.4f\n", m, b.OverroundPct,
			b.Probabilities[0], b.Probabilities[1], b.Probabilities[2])
		if m == odds.Shin {
			fmt.Printf("Shin's z = %.5f after %d iterations\n", b.Z, b.Iterations)
		}
	}
	// Output:
	// multiplicative overround 3.38%  0.3720 0.4030 0.2249
	// additive       overround 3.38%  0.3733 0.4054 0.2213
	// power          overround 3.38%  0.3730 0.4051 0.2219
	// shin           overround 3.38%  0.3730 0.4048 0.2222
	// Shin's z = 0.01694 after 58 iterations
}

func ExampleReadProbability() {
	for _, x := range []float64{0.75, 75, 99.9, 100} {
		p, as, _ := odds.ReadProbability(x)
		fmt.Printf("%v -> %v (%s)\n", x, p, as)
	}
	_, _, err := odds.ReadProbability(1)
	fmt.Println(err)
	// Output:
	// 0.75 -> 0.75 (probability)
	// 75 -> 0.75 (percent)
	// 99.9 -> 0.999 (percent)
	// 100 -> 1 (percent)
	// odds: "1": probability is 1, which could mean 1% or certainty; send "1%" or 0.01 for one percent, or 0.999 for near-certainty
}
