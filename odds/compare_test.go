package odds_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/odds"
)

func TestCompare(t *testing.T) {
	// Definitions of DECISIONS.md: odds ratio = odds(a)/odds(b) with
	// odds = p/(1-p); risk ratio = p(a)/p(b); difference in points =
	// 100 (p(a) - p(b)). Expected values are worked by hand from the
	// probabilities.
	tests := []struct {
		a, b string
		want odds.Comparison
	}{
		// 2.5 is p = 2/5 (odds 2/3); +200 is p = 1/3 (odds 1/2).
		{"2.5", "+200", odds.Comparison{OddsRatio: (2.0 / 3) / 0.5, RiskRatio: 0.4 / (1.0 / 3), DifferencePoints: 100 * (0.4 - 1.0/3)}},
		// 60% (odds 3/2) against 40% (odds 2/3): OR 9/4, RR 3/2, +20 points.
		{"60%", "40%", odds.Comparison{OddsRatio: 2.25, RiskRatio: 1.5, DifferencePoints: 20}},
		{"40%", "60%", odds.Comparison{OddsRatio: 4.0 / 9, RiskRatio: 2.0 / 3, DifferencePoints: -20}},
		// The same chance in two notations.
		{"3/2", "0.4", odds.Comparison{OddsRatio: 1, RiskRatio: 1, DifferencePoints: 0}},
		// 1% against 2% (odds 1/99 and 2/98): OR = 98/198.
		{"1%", "2%", odds.Comparison{OddsRatio: 98.0 / 198, RiskRatio: 0.5, DifferencePoints: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			got, err := odds.Compare(mustParse(t, tt.a, odds.Auto), mustParse(t, tt.b, odds.Auto))
			if err != nil {
				t.Fatalf("Compare(%q, %q): %v", tt.a, tt.b, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-12, 1e-12)); diff != "" {
				t.Errorf("Compare(%q, %q) mismatch (-want +got):\n%s", tt.a, tt.b, diff)
			}
		})
	}
}

func TestCompareInexact(t *testing.T) {
	a, b := mustFromProbability(t, 0.6), mustFromProbability(t, 0.4)
	got, err := odds.Compare(a, b)
	want := odds.Comparison{OddsRatio: 2.25, RiskRatio: 1.5, DifferencePoints: 20}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 1e-12)); diff != "" {
		t.Errorf("Compare(0.6, 0.4) mismatch (-want +got):\n%s", diff)
	}
}

func TestCompareErrors(t *testing.T) {
	certain, _ := odds.Parse("100%", odds.Auto)
	ok := mustParse(t, "0.5", odds.Auto)
	for _, tt := range []struct {
		name string
		a, b odds.Value
		want error
	}{
		{"certain a", certain, ok, odds.ErrCertain},
		{"certain b", ok, certain, odds.ErrCertain},
		{"zero value", odds.Value{}, ok, odds.ErrCertain},
		{"out of range", odds.Value{P: 2}, ok, odds.ErrRange},
		{"overflow", mustParse(t, "1e-300", odds.Auto), mustParse(t, "0.9999999999999999", odds.Auto), nil},
		{"overflow", mustParse(t, "0.9999999999999999", odds.Auto), mustParse(t, "1e-300", odds.Auto), odds.ErrRange},
	} {
		_, err := odds.Compare(tt.a, tt.b)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: Compare error = %v, want %v", tt.name, err, tt.want)
		}
		var pe *odds.Error
		if tt.want != nil && !errors.As(err, &pe) {
			t.Errorf("%s: Compare error %T is not an *odds.Error", tt.name, err)
		}
	}
}
