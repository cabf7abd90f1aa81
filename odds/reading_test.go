package odds_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/odds"
)

func bare(xs ...string) []odds.Sent {
	s := make([]odds.Sent, len(xs))
	for i, x := range xs {
		s[i] = odds.Sent{Text: x, Quoted: strings.HasSuffix(x, "%")}
	}
	return s
}

func itemName(i int) string { return fmt.Sprintf("forecasts[%d].p", i) }

func TestReadGroup(t *testing.T) {
	tests := []struct {
		in    []string
		want  []float64
		as    []odds.Notation
		notes int
	}{
		// Groups whose numbers change meaning when each is read alone.
		{[]string{"0.1", "0.5", "1.0"}, []float64{0.1, 0.5, 1}, []odds.Notation{"probability", "probability", "probability"}, 0},
		{[]string{"0", "1", "0.7", "0.2"}, []float64{0, 1, 0.7, 0.2}, []odds.Notation{"probability", "probability", "probability", "probability"}, 0},
		{[]string{"0.9", "1"}, []float64{0.9, 1}, []odds.Notation{"probability", "probability"}, 0},
		{[]string{"1", "0"}, []float64{1, 0}, []odds.Notation{"probability", "probability"}, 0},
		{[]string{"62", "1", "0"}, []float64{0.62, 0.01, 0}, []odds.Notation{"percent", "percent", "percent"}, 1},
		{[]string{"99.9", "50"}, []float64{0.999, 0.5}, []odds.Notation{"percent", "percent"}, 1},
		{[]string{"0.62", "35%"}, []float64{0.62, 0.35}, []odds.Notation{"probability", "percent"}, 0},
		{[]string{"99.9%"}, []float64{0.999}, []odds.Notation{"percent"}, 0},
		{[]string{"1e-3", "100"}, nil, nil, 0},
	}
	for _, tt := range tests {
		rs, notes, err := odds.ReadGroup(bare(tt.in...), itemName)
		if tt.want == nil {
			var se *odds.ScaleError
			if !errors.As(err, &se) || !strings.Contains(se.Error(), "forecasts[0].p = 1e-3") || !strings.Contains(se.Hint(), `"0.1%"`) {
				t.Errorf("ReadGroup(%v) error = %v, want a ScaleError naming forecasts[0].p", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ReadGroup(%v): %v", tt.in, err)
		}
		var got []float64
		var as []odds.Notation
		for _, r := range rs {
			got = append(got, r.P)
			as = append(as, r.ReadAs)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ReadGroup(%v) P (-want +got):\n%s", tt.in, diff)
		}
		if diff := cmp.Diff(tt.as, as); diff != "" {
			t.Errorf("ReadGroup(%v) ReadAs (-want +got):\n%s", tt.in, diff)
		}
		if len(notes) != tt.notes {
			t.Errorf("ReadGroup(%v) notes = %q, want %d", tt.in, notes, tt.notes)
		}
	}
	for _, in := range [][]string{{"-0.1"}, {"101"}, {"101%"}, {"abc"}, {"1e-301"}, {"0.5", "x"}} {
		if _, _, err := odds.ReadGroup(bare(in...), itemName); err == nil {
			t.Errorf("ReadGroup(%v) = nil error, want one", in)
		}
	}
}

func TestReadLoneAndFraction(t *testing.T) {
	if _, _, err := odds.ReadLone(odds.Sent{Text: "1"}, "prior"); !errors.Is(err, odds.ErrCertain) ||
		!strings.Contains(err.Error(), `"1%"`) || !strings.Contains(err.Error(), "0.01") || !strings.Contains(err.Error(), "0.999") {
		t.Errorf(`ReadLone(1) error = %v, want ErrCertain offering "1%%", 0.01 and 0.999`, err)
	}
	for _, tt := range []struct {
		in    odds.Sent
		want  float64
		as    odds.Notation
		notes int
	}{
		{odds.Sent{Text: "0.3"}, 0.3, odds.Probability, 0},
		{odds.Sent{Text: "30"}, 0.3, odds.Percent, 1},
		{odds.Sent{Text: "1%", Quoted: true}, 0.01, odds.Percent, 0},
		{odds.Sent{Text: "0"}, 0, odds.Probability, 0},
	} {
		r, notes, err := odds.ReadLone(tt.in, "prior")
		if err != nil || r.P != tt.want || r.ReadAs != tt.as || len(notes) != tt.notes {
			t.Errorf("ReadLone(%+v) = %v, %q, %q, %v; want %v, %q, %d notes", tt.in, r.P, r.ReadAs, notes, err, tt.want, tt.as, tt.notes)
		}
	}
	if _, err := odds.ReadFraction(odds.Sent{Text: "75"}, "confidence"); !errors.Is(err, odds.ErrRange) ||
		!strings.Contains(err.Error(), "0.75") || !strings.Contains(err.Error(), `"75%"`) {
		t.Errorf(`ReadFraction(75) error = %v, want ErrRange offering 0.75 or "75%%"`, err)
	}
	for _, tt := range []struct {
		in   odds.Sent
		want float64
	}{{odds.Sent{Text: "1"}, 1}, {odds.Sent{Text: "0.75"}, 0.75}, {odds.Sent{Text: "75%", Quoted: true}, 0.75}} {
		if r, err := odds.ReadFraction(tt.in, "confidence"); err != nil || r.P != tt.want {
			t.Errorf("ReadFraction(%+v) = %v, %v; want %v", tt.in, r.P, err, tt.want)
		}
	}
	// A prior near 1 keeps the digits of 1 - p in its odds.
	r, _, _ := odds.ReadLone(odds.Sent{Text: "0.999999999999"}, "prior")
	if o := r.Odds(); o != 999999999999 {
		t.Errorf("ReadLone(0.999999999999).Odds() = %v, want 999999999999", o)
	}
}

// FuzzReadGroup checks the rule's promise: a value never changes meaning
// when its neighbours change scale, except through an error. Each bare
// value is read alone, in a group of fractions and in a group of percents;
// where the groups are accepted, a value strictly between 0 and 1 or above
// 1 keeps its reading, and 0 and 1 follow the group.
func FuzzReadGroup(f *testing.F) {
	f.Add("0.1", "0.5", "1")
	f.Add("0", "1", "0.7")
	f.Add("62", "1", "35%")
	f.Add("99.9", "0.3", "1e-3")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		in := bare(a, b, c)
		rs, _, err := odds.ReadGroup(in, itemName)
		if err != nil {
			return
		}
		for i, s := range in {
			r := rs[i]
			if !(r.P >= 0 && r.P <= 1) {
				t.Fatalf("ReadGroup(%q)[%d].P = %v, outside [0, 1]", []string{a, b, c}, i, r.P)
			}
			for _, nb := range []string{"0.5", "50", "50%"} {
				group := append([]odds.Sent{s}, bare(nb, nb)...)
				rs2, _, err := odds.ReadGroup(group, itemName)
				if err != nil {
					continue // a 400, not a silent change
				}
				x, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s.Text), "%"), 64)
				neutral := !s.Quoted && (x == 0 || x == 1)
				if rs2[0].P != r.P && !neutral {
					t.Fatalf("%q reads as %v next to %q but %v in %q", s.Text, rs2[0].P, nb, r.P, []string{a, b, c})
				}
				if neutral && nb == "50" && rs2[0].ReadAs != odds.Percent || neutral && nb == "0.5" && rs2[0].ReadAs != odds.Probability {
					t.Fatalf("%q next to %q reads as %q", s.Text, nb, rs2[0].ReadAs)
				}
			}
			if math.IsNaN(r.P) {
				t.Fatal("NaN")
			}
		}
	})
}

// TestReadingTexts pins the texts the readers write a number in: the
// other scale of a ScaleError's items, the exact value in ReadLone's note
// and in ReadFraction's hint (a decimal's digits with the point moved, or
// the float's text past MaxLen places).
func TestReadingTexts(t *testing.T) {
	for _, tc := range []struct {
		in          []odds.Sent
		error, hint string
	}{
		{[]odds.Sent{{Text: "1e-3"}, {Text: "100"}, {Text: "0"}, {Text: "25%", Quoted: true}},
			"probabilities mix fractions and percents: forecasts[0].p = 1e-3 read as fractions but forecasts[1].p = 100 as percents",
			`write all as fractions (0.001, 1, 0) or all as percent strings ("0.1%", "100%", "0%")`},
		{[]odds.Sent{{Text: "1e-200"}, {Text: "50"}},
			"probabilities mix fractions and percents: forecasts[0].p = 1e-200 read as fractions but forecasts[1].p = 50 as percents",
			`write all as fractions (1e-200, 0.5) or all as percent strings ("1e-198%", "50%")`},
	} {
		_, _, err := odds.ReadGroup(tc.in, itemName)
		var se *odds.ScaleError
		if !errors.As(err, &se) {
			t.Fatalf("ReadGroup(%+v) error = %v, want a ScaleError", tc.in, err)
		}
		if diff := cmp.Diff([]string{tc.error, tc.hint}, []string{se.Error(), se.Hint()}); diff != "" {
			t.Errorf("ReadGroup(%+v) error and hint (-want +got):\n%s", tc.in, diff)
		}
	}
	_, notes, _ := odds.ReadLone(odds.Sent{Text: "75"}, "prior")
	if diff := cmp.Diff([]string{`prior = 75 was read as a percent (75%), because it is above 1; send 0.75 or "75%" to be explicit`}, notes); diff != "" {
		t.Errorf("ReadLone(75) notes (-want +got):\n%s", diff)
	}
	_, err := odds.ReadFraction(odds.Sent{Text: "62.5"}, "confidence")
	var e *odds.Error
	if !errors.As(err, &e) || e.Hint != `confidence is a fraction, not a percent: 0.625 means 62.5%; send 0.625 or "62.5%" for 62.5%` {
		t.Errorf("ReadFraction(62.5) error = %#v", err)
	}
}
