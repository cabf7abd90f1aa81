package odds_test

import (
	"errors"
	"math"
	"testing"

	"github.com/predictions-md/predictions/odds"
)

// FuzzParse checks, for any text in any notation: no panic; every error is
// an *odds.Error wrapping ErrSyntax, ErrRange or ErrCertain; a value has
// 0 < P < 1 and finite formats; and writing it back in the notation it was
// read as (Value.Format) reads back, in that notation and in Auto, to the
// same notation and a probability within 1e-12.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0.4", "40%", "2.5", "3/2", "+150", "-150", "2:3", "evens", "EVS", "1.91",
		"0", "1", "1.0", "+0", "-99", "5/0", "0:5", "100%", "1e-3", "1e-300", "+1e330", ".5", "5.", "1,91",
		"3 to 2", "5-2", "−110", " 7 / 4 ", "0.9999999999999999", "1e-100/1e100", "abc", ""} {
		for n := range len(odds.InputNotations) {
			f.Add(s, uint8(n))
		}
	}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		from := odds.InputNotations[int(which)%len(odds.InputNotations)]
		v, err := odds.Parse(s, from)
		if err != nil {
			var pe *odds.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q, %q) error %T %v is not an *odds.Error", s, from, err, err)
			}
			if !errors.Is(err, odds.ErrSyntax) && !errors.Is(err, odds.ErrRange) && !errors.Is(err, odds.ErrCertain) {
				t.Fatalf("Parse(%q, %q) error %v wraps no parse sentinel", s, from, err)
			}
			if pe.Reason == "" || pe.Hint == "" {
				t.Fatalf("Parse(%q, %q) error %q lacks a reason or a hint", s, from, err)
			}
			if errors.Is(err, odds.ErrCertain) && v.P != 0 && v.P != 1 {
				t.Fatalf("Parse(%q, %q) with ErrCertain returned P = %v", s, from, v.P)
			}
			checkFinite(t, s, v.Formats())
			return
		}
		if !(v.P > 0 && v.P < 1) {
			t.Fatalf("Parse(%q, %q).P = %v, want 0 < P < 1", s, from, v.P)
		}
		if from != odds.Auto && v.ReadAs != from {
			t.Fatalf("Parse(%q, %q).ReadAs = %q", s, from, v.ReadAs)
		}
		checkFinite(t, s, v.Formats())

		text := v.Format(v.ReadAs)
		for _, n := range []odds.Notation{v.ReadAs, odds.Auto} {
			back, err := odds.Parse(text, n)
			if err != nil {
				t.Fatalf("Parse(%q, %q) = %v; Format = %q; Parse(%q, %q): %v", s, from, v.P, text, text, n, err)
			}
			if back.ReadAs != v.ReadAs || math.Abs(back.P-v.P) > 1e-12 {
				t.Fatalf("Parse(%q, %q) = %v as %q; Format = %q reads back as %v as %q (from %q)",
					s, from, v.P, v.ReadAs, text, back.P, back.ReadAs, n)
			}
		}
		if _, err := odds.Compare(v, v); err != nil {
			t.Fatalf("Compare(%q, itself): %v", s, err)
		}
	})
}

func checkFinite(t *testing.T, s string, f odds.Formats) {
	t.Helper()
	for _, x := range []float64{f.Probability, f.Percent, f.Decimal, f.American, f.LogOdds} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("Formats of %q has a non-finite number: %+v", s, f)
		}
	}
}
