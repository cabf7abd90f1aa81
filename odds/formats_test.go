package odds_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/odds"
)

func mustParse(t testing.TB, s string, from odds.Notation) odds.Value {
	t.Helper()
	v, err := odds.Parse(s, from)
	if err != nil {
		t.Fatalf("Parse(%q, %q): %v", s, from, err)
	}
	return v
}

func mustFromProbability(t testing.TB, p float64) odds.Value {
	t.Helper()
	v, err := odds.FromProbability(p)
	if err != nil {
		t.Fatalf("FromProbability(%v): %v", p, err)
	}
	return v
}

func TestFormats(t *testing.T) {
	// Numbers follow from the definitions (decimal 1/p, fractional
	// (1-p)/p, American ±100 x odds, log-odds ln(p/(1-p))); the texts are
	// the conversions printed in common odds tables: +150 = 3/2 = 2.5 =
	// 40%, -200 = 1/2 = 1.5 = 66.67%, -110 = 10/11 = 1.91 = 52.38%.
	tests := []struct {
		name string
		v    odds.Value
		want odds.Formats
	}{
		{"+150", mustParse(t, "+150", odds.Auto), odds.Formats{
			Probability: 0.4, ProbabilityText: "0.4", Percent: 40, PercentText: "40%",
			Decimal: 2.5, DecimalText: "2.5", Fractional: "3/2",
			American: 150, AmericanText: "+150", OddsFor: "2:3",
			LogOdds: math.Log(2.0 / 3), LogOddsText: "-0.4055", Exact: true,
		}},
		{"-200", mustParse(t, "-200", odds.Auto), odds.Formats{
			Probability: 2.0 / 3, ProbabilityText: "0.6667", Percent: 200.0 / 3, PercentText: "66.67%",
			Decimal: 1.5, DecimalText: "1.5", Fractional: "1/2",
			American: -200, AmericanText: "-200", OddsFor: "2:1",
			LogOdds: math.Log(2), LogOddsText: "0.6931", Exact: true,
		}},
		{"-110", mustParse(t, "-110", odds.Auto), odds.Formats{
			Probability: 11.0 / 21, ProbabilityText: "0.5238", Percent: 1100.0 / 21, PercentText: "52.38%",
			Decimal: 21.0 / 11, DecimalText: "1.909", Fractional: "10/11",
			American: -110, AmericanText: "-110", OddsFor: "11:10",
			LogOdds: math.Log(1.1), LogOddsText: "0.0953", Exact: true,
		}},
		// "1.91" is exactly 191/100, so the fractional odds are 91/100.
		{"1.91", mustParse(t, "1.91", odds.Auto), odds.Formats{
			Probability: 100.0 / 191, ProbabilityText: "0.5236", Percent: 10000.0 / 191, PercentText: "52.36%",
			Decimal: 1.91, DecimalText: "1.91", Fractional: "91/100",
			American: -10000.0 / 91, AmericanText: "-109.89", OddsFor: "100:91",
			LogOdds: math.Log(100.0 / 91), LogOddsText: "0.0943", Exact: true,
		}},
		{"evens", mustParse(t, "evens", odds.Auto), odds.Formats{
			Probability: 0.5, ProbabilityText: "0.5", Percent: 50, PercentText: "50%",
			Decimal: 2, DecimalText: "2", Fractional: "1/1",
			American: 100, AmericanText: "+100", OddsFor: "1:1",
			LogOdds: 0, LogOddsText: "0", Exact: true,
		}},
		{"long shot", mustParse(t, "0.001", odds.Auto), odds.Formats{
			Probability: 0.001, ProbabilityText: "0.001", Percent: 0.1, PercentText: "0.1%",
			Decimal: 1000, DecimalText: "1000", Fractional: "999/1",
			American: 99900, AmericanText: "+99900", OddsFor: "1:999",
			LogOdds: math.Log(1.0 / 999), LogOddsText: "-6.9068", Exact: true,
		}},
		// Near certainty keeps the digits that tell it from 1.
		{"near certain", mustParse(t, "99.999%", odds.Auto), odds.Formats{
			Probability: 0.99999, ProbabilityText: "0.99999", Percent: 99.999, PercentText: "99.999%",
			Decimal: 1 / 0.99999, DecimalText: "1.00001", Fractional: "1/99999",
			American: -9999900, AmericanText: "-9999900", OddsFor: "99999:1",
			LogOdds: math.Log(99999), LogOddsText: "11.5129", Exact: true,
		}},
		{"third, not exact", mustFromProbability(t, 1.0/3), odds.Formats{
			Probability: 1.0 / 3, ProbabilityText: "0.3333", Percent: 100.0 / 3, PercentText: "33.33%",
			Decimal: 3, DecimalText: "3", Fractional: "2/1",
			American: 200, AmericanText: "+200", OddsFor: "1:2",
			LogOdds: math.Log(0.5), LogOddsText: "-0.6931",
		}},
		// Not exact and no small fraction: nearest with denominator <= 100.
		{"approximate", mustFromProbability(t, 0.123456), odds.Formats{
			Probability: 0.123456, ProbabilityText: "0.1235", Percent: 12.3456, PercentText: "12.35%",
			Decimal: 1 / 0.123456, DecimalText: "8.1", Fractional: "71/10", FractionalApproximate: true,
			American: 100 * 0.876544 / 0.123456, AmericanText: "+710.01", OddsFor: "10:71", OddsForApproximate: true,
			LogOdds: math.Log(0.123456 / 0.876544), LogOddsText: "-1.9601",
		}},
		{"long odds, not exact", mustFromProbability(t, 0.0001234), odds.Formats{
			Probability: 0.0001234, ProbabilityText: "0.000123", Percent: 0.01234, PercentText: "0.0123%",
			Decimal: 1 / 0.0001234, DecimalText: "8103.73", Fractional: "8103/1", FractionalApproximate: true,
			American: 100 * 0.9998766 / 0.0001234, AmericanText: "+810272.77", OddsFor: "1:8103", OddsForApproximate: true,
			LogOdds: math.Log(0.0001234 / 0.9998766), LogOddsText: "-9",
		}},
		// A probability of 0 or 1 (returned with ErrCertain) has no odds.
		{"certain 100%", func() odds.Value { v, _ := odds.Parse("100%", odds.Auto); return v }(), odds.Formats{
			Probability: 1, ProbabilityText: "1", Percent: 100, PercentText: "100%", Decimal: 1, DecimalText: "1", Exact: true,
		}},
		{"impossible 0", func() odds.Value { v, _ := odds.Parse("0", odds.Auto); return v }(), odds.Formats{
			ProbabilityText: "0", PercentText: "0%", Exact: true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.v.Formats()
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("Formats() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApproximateIsNearest checks the approximate fractions against a
// brute-force search over every denominator up to 100.
func TestApproximateIsNearest(t *testing.T) {
	for _, p := range []float64{0.123456, 0.3141592653589793, 0.777777, 0.05123, 0.6180339887} {
		v := mustFromProbability(t, p)
		f := v.Formats()
		against := (1 - p) / p
		best, bestDiff := "", math.Inf(1)
		for q := int64(1); q <= 100; q++ {
			n := int64(math.Round(against * float64(q)))
			if d := math.Abs(float64(n)/float64(q) - against); d < bestDiff-1e-15 {
				best, bestDiff = big.NewRat(n, q).String(), d
			}
		}
		if got := mustParse(t, f.Fractional, odds.Fractional); true {
			r := new(big.Rat).Sub(big.NewRat(1, 1), got.Exact())
			r.Quo(r, got.Exact())
			if r.String() != best {
				t.Errorf("FromProbability(%v).Formats().Fractional = %q, the nearest fraction with denominator <= 100 is %s", p, f.Fractional, best)
			}
		}
	}
}

// TestDisplayTextsParse checks that each display text reads back, in its
// notation, to about the same chance.
func TestDisplayTextsParse(t *testing.T) {
	inputs := []string{"+150", "-110", "1.91", "0.3", "2/7", "13:8", "0.001", "99.999%", "evens", "0.123456789", "1e-9", "+100000"}
	for _, in := range inputs {
		v := mustParse(t, in, odds.Auto)
		f := v.Formats()
		for n, text := range map[odds.Notation]string{
			odds.Probability: f.ProbabilityText, odds.Percent: f.PercentText, odds.Decimal: f.DecimalText,
			odds.Fractional: f.Fractional, odds.American: f.AmericanText, odds.OddsFor: f.OddsFor,
		} {
			got, err := odds.Parse(text, n)
			if err != nil {
				t.Errorf("Parse(%q, %q) (display of %q): %v", text, n, in, err)
				continue
			}
			// Display texts are rounded to about 3 significant digits of
			// the distance to 0 or 1.
			if d := math.Abs(got.P - v.P); d > 0.005*min(v.P, 1-v.P) {
				t.Errorf("Parse(%q, %q) = %v, want about %v (display of %q)", text, n, got.P, v.P, in)
			}
		}
	}
}

func TestFormatRoundTrip(t *testing.T) {
	inputs := []string{"0.4", "40%", "2.5", "3/2", "+150", "-150", "2:3", "evens", "1.91", "0.3", "-110.5",
		"1e-100", "1e-50%", "0.99999999", "+1e50", "-1e15", "123456789/987654321", "7:1e-10", "0.1234567890123456789"}
	notations := []odds.Notation{odds.Probability, odds.Percent, odds.Decimal, odds.Fractional, odds.American, odds.OddsFor}
	for _, in := range inputs {
		v := mustParse(t, in, odds.Auto)
		for _, n := range notations {
			text := v.Format(n)
			got, err := odds.Parse(text, n)
			if err != nil {
				t.Errorf("Parse(Parse(%q).Format(%q) = %q): %v", in, n, text, err)
				continue
			}
			if math.Abs(got.P-v.P) > 1e-12 {
				t.Errorf("Parse(%q, %q).P = %v, want %v (from %q)", text, n, got.P, v.P, in)
			}
			// Fractions are written exactly when they fit.
			exactPair := (n == odds.Fractional || n == odds.OddsFor) && !strings.Contains(text, "e")
			if exactPair && got.Exact().Cmp(v.Exact()) != 0 {
				t.Errorf("Parse(%q, %q) = %v exactly, want %v (from %q)", text, n, got.Exact(), v.Exact(), in)
			}
		}
	}
	if got := mustParse(t, "3/2", odds.Auto).Format(odds.Auto); got != "3/2" {
		t.Errorf("Format(Auto) = %q, want the notation read: %q", got, "3/2")
		// The float64 nearest log(2/3) = -0.40546510810816438198 (log1p of the
		// exact odds - 1, rounded once; log of the rounded odds gave ...16444).
	}
	if got := mustParse(t, "+150", odds.Auto).Format(odds.LogOdds); got != "-0.4054651081081644" {
		t.Errorf("Format(LogOdds) = %q, want %q", got, "-0.4054651081081644")
	}
}

func TestDecimal(t *testing.T) {
	for in, want := range map[string]float64{"+150": 2.5, "1.91": 1.91, "evens": 2, "3/2": 2.5, "-110": 21.0 / 11} {
		if got := mustParse(t, in, odds.Auto).Decimal(); got != want {
			t.Errorf("Parse(%q).Decimal() = %v, want %v", in, got, want)
		}
	}
	if got := mustFromProbability(t, 0.25).Decimal(); got != 4 {
		t.Errorf("FromProbability(0.25).Decimal() = %v, want 4", got)
	}
	v, err := odds.Parse("0%", odds.Auto)
	if !errors.Is(err, odds.ErrCertain) || !math.IsInf(v.Decimal(), 1) {
		t.Errorf("Parse(0%%).Decimal() = %v, %v; want +Inf with ErrCertain", v.Decimal(), err)
	}
}

func TestJSONNames(t *testing.T) {
	b, err := json.Marshal(mustParse(t, "+150", odds.Auto).Formats())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"probability":0.4`, `"percent_text":"40%"`, `"fractional":"3/2"`, `"fractional_approximate":false`,
		`"american_text":"+150"`, `"odds_for":"2:3"`, `"log_odds":`, `"exact":true`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("json.Marshal(Formats) = %s, want it to contain %s", b, key)
		}
	}
	b, err = json.Marshal(mustParse(t, "2.5", odds.Auto))
	if err != nil || string(b) != `{"p":0.4,"read_as":"decimal","input":"2.5"}` {
		t.Errorf("json.Marshal(Value) = %s, %v", b, err)
	}
}
