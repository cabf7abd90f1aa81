package odds_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/odds"
)

// benchInputs are a few notations read by Auto; benchNumbers are their
// numbers alone, for the strconv.ParseFloat baseline.
var (
	benchInputs  = []string{"0.4", "40%", "2.5", "3/2", "+150", "2:3", "1.91", "evens"}
	benchNumbers = []string{"0.4", "40", "2.5", "3", "150", "2", "1.91", "1"}
)

// BenchmarkParseFloatBaseline is the cost of reading the bare numbers with
// strconv.ParseFloat: the floor against which Parse is reported.
func BenchmarkParseFloatBaseline(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		s := benchNumbers[i%len(benchNumbers)]
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAuto(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		if _, err := odds.Parse(benchInputs[i%len(benchInputs)], odds.Auto); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormats(b *testing.B) {
	vs := make([]odds.Value, len(benchInputs))
	for i, s := range benchInputs {
		vs[i] = mustParse(b, s, odds.Auto)
	}
	for i := 0; b.Loop(); i++ {
		_ = vs[i%len(vs)].Formats()
	}
}

func BenchmarkFormat(b *testing.B) {
	vs := make([]odds.Value, len(benchInputs))
	for i, s := range benchInputs {
		vs[i] = mustParse(b, s, odds.Auto)
	}
	ns := []odds.Notation{odds.Probability, odds.Percent, odds.Decimal, odds.Fractional, odds.American, odds.OddsFor}
	for i := 0; b.Loop(); i++ {
		_ = vs[i%len(vs)].Format(ns[i%len(ns)])
	}
}

func BenchmarkCompare(b *testing.B) {
	vs := make([]odds.Value, len(benchInputs))
	for i, s := range benchInputs {
		vs[i] = mustParse(b, s, odds.Auto)
	}
	ref := mustParse(b, "-110", odds.Auto)
	for i := 0; b.Loop(); i++ {
		if _, err := odds.Compare(vs[i%len(vs)], ref); err != nil {
			b.Fatal(err)
		}
	}
}

// book30 is a 30-outcome book with a large margin, as in a horse race.
func book30() []float64 {
	d := make([]float64, 30)
	for i := range d {
		d[i] = 2 + 3*float64(i)
	}
	return d
}

// BenchmarkImpliedMultiplicative30 is the baseline for the other methods:
// one pass over the odds.
func BenchmarkImpliedMultiplicative30(b *testing.B) {
	d := book30()
	for b.Loop() {
		if _, err := odds.Implied(d, odds.Multiplicative); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImpliedPower30(b *testing.B) {
	d := book30()
	for b.Loop() {
		if _, err := odds.Implied(d, odds.Power); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImpliedShin30(b *testing.B) {
	d := book30()
	for b.Loop() {
		if _, err := odds.Implied(d, odds.Shin); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadGroup reads the ten probabilities of the load benchmark's
// combine_forecasts body (fractions, percent strings, a quoted fraction):
// ns/op over ten is the cost of one, to set against
// BenchmarkParseFloatBaseline.
func BenchmarkReadGroup(b *testing.B) {
	sent := []odds.Sent{{Text: "0.62"}, {Text: "35%", Quoted: true}, {Text: "55%", Quoted: true}, {Text: "0.7"},
		{Text: "0.4"}, {Text: "48%", Quoted: true}, {Text: "0.58"}, {Text: "61%", Quoted: true}, {Text: "0.33"}, {Text: "0.5", Quoted: true}}
	name := func(i int) string { return "forecasts[" + strconv.Itoa(i) + "].p" }
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := odds.ReadGroup(sent, name); err != nil {
			b.Fatal(err)
		}
	}
}
