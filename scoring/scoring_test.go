package scoring_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/predictions-md/predictions/scoring"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var approx = cmpopts.EquateApprox(0, 1e-12)

func ptr(x float64) *float64 { return &x }

// forecasts builds unnamed forecasts from parallel slices.
func forecasts(ps []float64, yes []int) []scoring.Forecast {
	fs := make([]scoring.Forecast, len(ps))
	for i := range ps {
		fs[i] = scoring.Forecast{P: ps[i], Outcome: yes[i] == 1}
	}
	return fs
}

// repeat returns n copies of a forecast of p, of which yes resolved yes.
func repeat(p float64, n, yes int) []scoring.Forecast {
	fs := make([]scoring.Forecast, n)
	for i := range fs {
		fs[i] = scoring.Forecast{P: p, Outcome: i < yes}
	}
	return fs
}

// TestScikitLearnExamples checks the examples of scikit-learn's docstrings.
func TestScikitLearnExamples(t *testing.T) {
	t.Run("brier_score_loss", func(t *testing.T) {
		// sklearn.metrics.brier_score_loss docstring:
		// y_true [0, 1, 1, 0], y_prob [0.1, 0.9, 0.8, 0.3] -> 0.0375
		// https://scikit-learn.org/stable/modules/generated/sklearn.metrics.brier_score_loss.html
		got, err := scoring.Brier(forecasts([]float64{0.1, 0.9, 0.8, 0.3}, []int{0, 1, 1, 0}))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-0.0375) > 1e-15 {
			t.Errorf("Brier = %v, want 0.0375", got)
		}
	})
	t.Run("log_loss", func(t *testing.T) {
		// sklearn.metrics.log_loss docstring:
		// log_loss(["spam", "ham", "ham", "spam"],
		//          [[.1, .9], [.9, .1], [.8, .2], [.35, .65]]) -> 0.21616...
		// The columns are the labels in sorted order (ham, spam), so with
		// "yes" = spam the forecasts are 0.9, 0.1, 0.2, 0.65 and the
		// outcomes spam, ham, ham, spam. Our log score is minus log_loss.
		// https://scikit-learn.org/stable/modules/generated/sklearn.metrics.log_loss.html
		got, clipped, err := scoring.Log(forecasts([]float64{0.9, 0.1, 0.2, 0.65}, []int{1, 0, 0, 1}))
		if err != nil {
			t.Fatal(err)
		}
		if clipped != 0 {
			t.Errorf("clipped = %d, want 0", clipped)
		}
		if got > -0.21616 || got <= -0.21617 { // 0.21616... truncated
			t.Errorf("Log = %v, want -0.21616...", got)
		}
	})
	t.Run("calibration_curve", func(t *testing.T) {
		// sklearn.calibration.calibration_curve docstring:
		// y_true [0, 0, 0, 0, 1, 1, 1, 1, 1],
		// y_pred [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0], n_bins=3
		// -> prob_true [0, 0.5, 1], prob_pred [0.2, 0.525, 0.85]
		// https://scikit-learn.org/stable/modules/generated/sklearn.calibration.calibration_curve.html
		fs := forecasts([]float64{0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0}, []int{0, 0, 0, 0, 1, 1, 1, 1, 1})
		got, err := scoring.Calibration(fs, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := []scoring.Bin{
			{Lo: 0, Hi: 1.0 / 3, Count: 3, Yes: 0, MeanForecast: ptr(0.2), ObservedFrequency: ptr(0)},
			{Lo: 1.0 / 3, Hi: 2.0 / 3, Count: 2, Yes: 1, MeanForecast: ptr(0.525), ObservedFrequency: ptr(0.5)},
			{Lo: 2.0 / 3, Hi: 1, Count: 4, Yes: 4, MeanForecast: ptr(0.85), ObservedFrequency: ptr(1)},
		}
		if diff := cmp.Diff(want, got, approx); diff != "" {
			t.Errorf("Calibration mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestMurphy checks the decomposition against values worked out by hand
// from the definitions (Murphy 1973; Stephenson, Coelho and Jolliffe 2008).
func TestMurphy(t *testing.T) {
	tests := []struct {
		name  string
		fs    []scoring.Forecast
		bins  int
		brier float64
		want  scoring.Murphy
	}{
		{
			// 0.2 five times (1 yes), 0.8 five times (4 yes): perfectly
			// calibrated. ō = 0.5, UNC = 0.25, REL = 0,
			// RES = (5·0.3² + 5·0.3²)/10 = 0.09, Brier = 0.25 − 0.09 = 0.16
			// (directly: (4·0.04 + 0.64 + 4·0.04 + 0.64)/10 = 0.16).
			name:  "calibrated, two values",
			fs:    slices.Concat(repeat(0.2, 5, 1), repeat(0.8, 5, 4)),
			brier: 0.16,
			want:  scoring.Murphy{Reliability: 0, Resolution: 0.09, Uncertainty: 0.25},
		},
		{
			// 0.3 four times (2 yes), 0.9 six times (3 yes). ō = 0.5,
			// REL = (4·0.2² + 6·0.4²)/10 = 0.112, RES = 0, UNC = 0.25,
			// Brier = 0.362 (directly: (2·0.49 + 2·0.09 + 3·0.01 + 3·0.81)/10).
			name:  "overconfident, two values",
			fs:    slices.Concat(repeat(0.3, 4, 2), repeat(0.9, 6, 3)),
			brier: 0.362,
			want:  scoring.Murphy{Reliability: 0.112, Resolution: 0, Uncertainty: 0.25},
		},
		{
			// 0.1 (no), 0.9 (yes), 0.9 (yes), 0.9 (no) over 10 bins.
			// ō = 0.5; bin 0.1: p̄ 0.1, ō 0; bin 0.9: p̄ 0.9, ō 2/3.
			// REL = (0.01 + 3·(0.9−2/3)²)/4 = (0.01 + 0.1633…)/4,
			// RES = (0.25 + 3·(1/6)²)/4 = 1/12, UNC = 0.25,
			// Brier = (0.01 + 0.01 + 0.01 + 0.81)/4 = 0.21.
			name:  "three of four right",
			fs:    forecasts([]float64{0.1, 0.9, 0.9, 0.9}, []int{0, 1, 1, 0}),
			brier: 0.21,
			want: scoring.Murphy{
				Reliability: (0.01 + 3*(0.9-2.0/3)*(0.9-2.0/3)) / 4,
				Resolution:  1.0 / 12,
				Uncertainty: 0.25,
			},
		},
		{
			// Two bins, two different forecasts in each:
			// [0, 0.5): 0.1 (no), 0.3 (yes); [0.5, 1]: 0.6 (no), 0.8 (yes).
			// ō = 0.5, p̄ = 0.2 and 0.7, ō_k = 0.5 in both.
			// REL = (2·0.3² + 2·0.2²)/4 = 0.065, RES = 0, UNC = 0.25,
			// WBV = (4·0.1²)/4 = 0.01,
			// WBC = 2·(4·0.1·0.5)/4 = 0.1,
			// Brier = (0.01 + 0.49 + 0.36 + 0.04)/4 = 0.225
			//       = 0.065 − 0 + 0.25 + 0.01 − 0.1, while the three-term
			//       sum would give 0.315.
			name:  "within-bin terms",
			fs:    forecasts([]float64{0.1, 0.3, 0.6, 0.8}, []int{0, 1, 0, 1}),
			bins:  2,
			brier: 0.225,
			want: scoring.Murphy{
				Reliability: 0.065, Resolution: 0, Uncertainty: 0.25,
				WithinBinVariance: 0.01, WithinBinCovariance: 0.1,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoring.Decompose(tt.fs, tt.bins)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Decompose mismatch (-want +got):\n%s", diff)
			}
			brier, err := scoring.Brier(tt.fs)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(brier-tt.brier) > 1e-12 {
				t.Errorf("Brier = %v, want %v", brier, tt.brier)
			}
			sum := got.Reliability - got.Resolution + got.Uncertainty + got.WithinBinVariance - got.WithinBinCovariance
			if math.Abs(sum-brier) > 1e-12 {
				t.Errorf("REL − RES + UNC + WBV − WBC = %v, want Brier %v", sum, brier)
			}
		})
	}
}

func TestScoreSummary(t *testing.T) {
	tests := []struct {
		name string
		fs   []scoring.Forecast
		want scoring.Summary // Calibration and Murphy are not compared here
	}{
		{
			// Brier (0.04 + 0.09 + 0.16 + 0.64)/4; log (ln .8 + ln .7 + ln .6 + ln .2)/4.
			name: "mixed",
			fs:   forecasts([]float64{0.8, 0.3, 0.6, 0.8}, []int{1, 0, 1, 0}),
			want: scoring.Summary{
				N: 4, Yes: 2, Brier: 0.2325,
				LogScore:     (math.Log(0.8) + math.Log(0.7) + math.Log(0.6) + math.Log(0.2)) / 4,
				LogScoreBits: (math.Log2(0.8) + math.Log2(0.7) + math.Log2(0.6) + math.Log2(0.2)) / 4,
				BaseRate:     0.5, BrierSkill: ptr(1 - 0.2325/0.25), Notes: []string{},
			},
		},
		{
			// A 100% forecast that resolved no: Brier 1, log ln 0.001.
			name: "certain and wrong, clipped",
			fs:   forecasts([]float64{1, 0.5}, []int{0, 1}),
			want: scoring.Summary{
				N: 2, Yes: 1, Brier: 0.625, Clipped: 1,
				LogScore:     (math.Log(0.001) + math.Log(0.5)) / 2,
				LogScoreBits: (math.Log2(0.001) + math.Log2(0.5)) / 2,
				BaseRate:     0.5, BrierSkill: ptr(1 - 0.625/0.25),
				Notes: []string{"log score: 1 of 2 forecasts were below 0.1% or above 99.9% and were clipped to that range (a forecast of 0% or 100% on the wrong side would score minus infinity); the Brier score and calibration use them as given"},
			},
		},
		{
			name: "every outcome yes",
			fs:   forecasts([]float64{0.9, 0.6}, []int{1, 1}),
			want: scoring.Summary{
				N: 2, Yes: 2, Brier: (0.01 + 0.16) / 2,
				LogScore:     (math.Log(0.9) + math.Log(0.6)) / 2,
				LogScoreBits: (math.Log2(0.9) + math.Log2(0.6)) / 2,
				BaseRate:     1,
				Notes:        []string{"brier_skill is null: every outcome is yes, so always forecasting the base rate scores a perfect 0 and there is nothing to compare against"},
			},
		},
		{
			name: "every outcome no, one forecast",
			fs:   forecasts([]float64{0}, []int{0}),
			want: scoring.Summary{
				N: 1, Brier: 0, Clipped: 1,
				LogScore: math.Log(0.999), LogScoreBits: math.Log2(0.999),
				Notes: []string{
					"log score: 1 of 1 forecasts were below 0.1% or above 99.9% and were clipped to that range (a forecast of 0% or 100% on the wrong side would score minus infinity); the Brier score and calibration use them as given",
					"brier_skill is null: every outcome is no, so always forecasting the base rate scores a perfect 0 and there is nothing to compare against",
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := scoring.Score(tt.fs, scoring.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Overall
			if diff := cmp.Diff(tt.want, got, approx, cmpopts.IgnoreFields(scoring.Summary{}, "Calibration", "Murphy")); diff != "" {
				t.Errorf("Score(%v).Overall mismatch (-want +got):\n%s", tt.fs, diff)
			}
		})
	}
}

// TestBinEdges checks that every bin holds exactly the p with Lo ≤ p < Hi
// (p ≤ 1 in the last), for values on and just below every edge.
func TestBinEdges(t *testing.T) {
	for k := 1; k <= 20; k++ {
		var ps []float64
		for i := 0; i <= k; i++ {
			e := float64(i) / float64(k)
			ps = append(ps, e, math.Nextafter(e, 0), math.Nextafter(e, 1))
			for pct := 0; pct <= 100; pct++ { // percent input turned into fractions
				ps = append(ps, float64(pct)/100)
			}
		}
		for _, p := range ps {
			if p < 0 || p > 1 {
				continue
			}
			rows, err := scoring.Calibration([]scoring.Forecast{{P: p}}, k)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for i, r := range rows {
				if r.Count == 0 {
					continue
				}
				n++
				last := i == len(rows)-1
				if p < r.Lo || p > r.Hi || (p == r.Hi && !last) {
					t.Errorf("bins=%d: p=%v landed in [%v, %v)", k, p, r.Lo, r.Hi)
				}
			}
			if n != 1 {
				t.Errorf("bins=%d: p=%v landed in %d bins, want 1", k, p, n)
			}
		}
	}
	// Spot checks that read naturally.
	for _, tt := range []struct {
		p    float64
		bins int
		want int
	}{
		{0, 10, 0}, {0.1, 10, 1}, {0.3, 10, 3}, {0.7, 10, 7}, {0.99, 10, 9}, {1, 10, 9},
		{0.2, 5, 1}, {0.5, 2, 1}, {0.4999, 2, 0}, {1, 1, 0},
	} {
		rows, err := scoring.Calibration([]scoring.Forecast{{P: tt.p}}, tt.bins)
		if err != nil {
			t.Fatal(err)
		}
		if rows[tt.want].Count != 1 {
			t.Errorf("Calibration(p=%v, bins=%d): not in bin %d: %+v", tt.p, tt.bins, tt.want, rows)
		}
	}
}

func TestErrors(t *testing.T) {
	ok := []scoring.Forecast{{P: 0.5, Outcome: true}}
	tests := []struct {
		name  string
		fs    []scoring.Forecast
		bins  int
		is    error
		index int // for *ForecastError
		text  string
	}{
		{name: "empty", fs: nil, is: scoring.ErrEmpty},
		{name: "NaN", fs: []scoring.Forecast{{P: 0.1}, {Who: "agent:a", P: math.NaN()}}, is: scoring.ErrProbability, index: 1,
			text: `scoring: forecasts[1] (who "agent:a"): p is NaN (not a number); send p as a fraction from 0 to 1, e.g. 0.75 for 75%`},
		{name: "percent", fs: []scoring.Forecast{{P: 75}}, is: scoring.ErrProbability, index: 0,
			text: "scoring: forecasts[0]: p = 75 is outside 0 to 1; send p as a fraction from 0 to 1, e.g. 0.75 for 75%"},
		{name: "negative", fs: []scoring.Forecast{{P: 0.2}, {P: 0.3}, {P: -0.1}}, is: scoring.ErrProbability, index: 2},
		{name: "+Inf", fs: []scoring.Forecast{{P: math.Inf(1)}}, is: scoring.ErrProbability, index: 0},
		{name: "-Inf", fs: []scoring.Forecast{{P: math.Inf(-1)}}, is: scoring.ErrProbability, index: 0},
		{name: "bins negative", fs: ok, bins: -1, is: scoring.ErrBins,
			text: "scoring: bins out of range: bins = -1; use 1 to 1000 (0 means the default, 10)"},
		{name: "bins too many", fs: ok, bins: scoring.MaxBins + 1, is: scoring.ErrBins},
		{name: "bins checked before empty", fs: nil, bins: -5, is: scoring.ErrBins},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scoring.Score(tt.fs, scoring.Options{Bins: tt.bins})
			if !errors.Is(err, tt.is) {
				t.Fatalf("Score error = %v, want %v", err, tt.is)
			}
			if tt.is == scoring.ErrProbability {
				var fe *scoring.ForecastError
				if !errors.As(err, &fe) {
					t.Fatalf("Score error %T is not a *ForecastError", err)
				}
				if fe.Index != tt.index {
					t.Errorf("ForecastError.Index = %d, want %d", fe.Index, tt.index)
				}
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Errorf("error text = %q, want %q", err.Error(), tt.text)
			}
			// The lower-level functions return the same errors.
			_, cerr := scoring.Calibration(tt.fs, tt.bins)
			_, derr := scoring.Decompose(tt.fs, tt.bins)
			if !errors.Is(cerr, tt.is) || !errors.Is(derr, tt.is) {
				t.Errorf("Calibration, Decompose errors = %v, %v; want %v", cerr, derr, tt.is)
			}
			if tt.bins == 0 {
				_, berr := scoring.Brier(tt.fs)
				_, _, lerr := scoring.Log(tt.fs)
				if !errors.Is(berr, tt.is) || !errors.Is(lerr, tt.is) {
					t.Errorf("Brier, Log errors = %v, %v; want %v", berr, lerr, tt.is)
				}
			}
		})
	}
}

func TestForecasters(t *testing.T) {
	fs := []scoring.Forecast{
		{Who: "person", P: 0.7, Outcome: true},
		{Who: "agent:b", P: 0.2, Outcome: false},
		{P: 0.5, Outcome: true},
		{Who: "agent:a", P: 0.9, Outcome: false},
		{Who: "person", P: 0.4, Outcome: false},
		{Who: "agent:b", P: 0.6, Outcome: true},
		{P: 0.1, Outcome: false},
	}
	res, err := scoring.Score(fs, scoring.Options{Bins: 5})
	if err != nil {
		t.Fatal(err)
	}
	var whos []string
	for _, f := range res.Forecasters {
		whos = append(whos, f.Who)
	}
	if diff := cmp.Diff([]string{"", "agent:a", "agent:b", "person"}, whos); diff != "" {
		t.Errorf("forecaster order (-want +got):\n%s", diff)
	}
	// Each forecaster's summary equals the overall summary of its own forecasts.
	for _, f := range res.Forecasters {
		var own []scoring.Forecast
		for _, x := range fs {
			if x.Who == f.Who {
				own = append(own, x)
			}
		}
		alone, err := scoring.Score(own, scoring.Options{Bins: 5})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(alone.Overall, f.Summary, approx); diff != "" {
			t.Errorf("forecaster %q mismatch (-alone +grouped):\n%s", f.Who, diff)
		}
	}
	// The overall summary does not depend on who made the forecasts.
	anon := slices.Clone(fs)
	for i := range anon {
		anon[i].Who = ""
	}
	alone, err := scoring.Score(anon, scoring.Options{Bins: 5})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(alone.Overall, res.Overall, approx); diff != "" {
		t.Errorf("overall mismatch (-anonymous +grouped):\n%s", diff)
	}
}

// reference computes every score from the definitions, in several passes
// and without the one-pass sums Score uses.
func reference(fs []scoring.Forecast, k int) scoring.Summary {
	n := float64(len(fs))
	var s scoring.Summary
	s.N = len(fs)
	o := func(f scoring.Forecast) float64 {
		if f.Outcome {
			return 1
		}
		return 0
	}
	for _, f := range fs {
		s.Yes += int(o(f))
		s.Brier += (f.P - o(f)) * (f.P - o(f)) / n
		q := min(max(f.P, 0.001), 0.999)
		if !f.Outcome {
			q = 1 - q
		}
		s.LogScore += math.Log(q) / n
	}
	s.LogScoreBits = s.LogScore / math.Ln2
	s.BaseRate = float64(s.Yes) / n
	groups := make([][]scoring.Forecast, k)
	for _, f := range fs {
		i := min(int(math.Floor(f.P*float64(k))), k-1)
		groups[i] = append(groups[i], f)
	}
	m := &s.Murphy
	m.Uncertainty = s.BaseRate * (1 - s.BaseRate)
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		var pk, ok float64
		for _, f := range g {
			pk += f.P / float64(len(g))
			ok += o(f) / float64(len(g))
		}
		m.Reliability += float64(len(g)) * (pk - ok) * (pk - ok) / n
		m.Resolution += float64(len(g)) * (ok - s.BaseRate) * (ok - s.BaseRate) / n
		for _, f := range g {
			m.WithinBinVariance += (f.P - pk) * (f.P - pk) / n
			m.WithinBinCovariance += 2 * (f.P - pk) * (o(f) - ok) / n
		}
	}
	return s
}

// TestAgainstReference compares Score with the multi-pass reference on
// random forecasts that avoid bin edges (where floor(p·k) may round).
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 50 {
		k := 1 + r.IntN(20)
		fs := make([]scoring.Forecast, 1+r.IntN(500))
		for i := range fs {
			p := r.Float64()
			if trial%5 == 0 { // forecasts on a 5-point grid, off the edges of odd k
				p = float64(r.IntN(21)) * 0.05
			}
			fs[i] = scoring.Forecast{P: p, Outcome: r.Float64() < p}
		}
		if trial%5 == 0 && k%2 == 0 {
			k++
		}
		res, err := scoring.Score(fs, scoring.Options{Bins: k})
		if err != nil {
			t.Fatal(err)
		}
		want := reference(fs, k)
		if diff := cmp.Diff(want, res.Overall, cmpopts.EquateApprox(0, 1e-9),
			cmpopts.IgnoreFields(scoring.Summary{}, "Clipped", "BrierSkill", "Calibration", "Notes")); diff != "" {
			t.Errorf("trial %d (n=%d, bins=%d) mismatch (-reference +Score):\n%s", trial, len(fs), k, diff)
		}
	}
}

func TestJSONGolden(t *testing.T) {
	fs := []scoring.Forecast{
		{Who: "agent:ann", P: 0.8, Outcome: true},
		{Who: "agent:ann", P: 0.3, Outcome: false},
		{Who: "agent:ann", P: 0.65, Outcome: false},
		{Who: "person", P: 1, Outcome: true},
		{Who: "person", P: 0.9, Outcome: true},
		{P: 0.05, Outcome: false},
	}
	res, err := scoring.Score(fs, scoring.Options{Bins: 4})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "score.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	// Compare decoded values: the last digits of a float may differ
	// between platforms (for example where the compiler fuses x*y+z).
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, g, approx); diff != "" {
		t.Errorf("JSON mismatch with %s (-want +got):\n%s", path, diff)
	}
	// Spot checks on the layout the tools rely on.
	for _, s := range []string{`"log_score_bits"`, `"brier_skill": null`, `"mean_forecast": null`, `"who": ""`, `"within_bin_covariance"`} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("JSON lacks %s", s)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	tests := []struct {
		in      string
		want    bool
		wantErr bool
	}{
		{in: "yes", want: true}, {in: "YES", want: true}, {in: " Yes\n", want: true}, {in: "1", want: true},
		{in: "no"}, {in: "No"}, {in: "0"}, {in: "\t0 "},
		{in: "", wantErr: true}, {in: "void", wantErr: true}, {in: "y", wantErr: true},
		{in: "true", wantErr: true}, {in: "01", wantErr: true}, {in: "1.0", wantErr: true}, {in: "yes!", wantErr: true}, {in: "yeſ", wantErr: true}, {in: "NO", want: false},
	}
	for _, tt := range tests {
		got, err := scoring.ParseOutcome(tt.in)
		if tt.wantErr {
			var oe *scoring.OutcomeError
			if !errors.As(err, &oe) || !errors.Is(err, scoring.ErrOutcome) || oe.Value != tt.in {
				t.Errorf("ParseOutcome(%q) error = %v, want *OutcomeError{%q} wrapping ErrOutcome", tt.in, err, tt.in)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseOutcome(%q) = %v, %v, want %v, nil", tt.in, got, err, tt.want)
		}
	}
	_, err := scoring.ParseOutcome("maybe")
	if want := `scoring: outcome "maybe" is not one of yes, no, 1, 0`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error text = %q, want prefix %q", err, want)
	}
}
