package scoring_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/scoring"
)

// sumsOf keeps fs's calibration table as running sums, one forecast at a
// time, as a store does.
func sumsOf(t *testing.T, fs []scoring.Forecast, bins int) []scoring.BinSums {
	t.Helper()
	k := bins
	if k == 0 {
		k = scoring.DefaultBins
	}
	sums := make([]scoring.BinSums, k)
	for _, f := range fs {
		i, err := scoring.CalibrationBin(f.P, bins)
		if err != nil {
			t.Fatalf("CalibrationBin(%v, %d): %v", f.P, bins, err)
		}
		sums[i].Count++
		sums[i].SumP += f.P
		if f.Outcome {
			sums[i].Yes++
		}
	}
	return sums
}

func TestCalibrationFromSumsMatchesCalibration(t *testing.T) {
	edges := []float64{0, 1, 0.1, 0.2, 0.3, 0.7, 0.9, math.Nextafter(0.3, 0), math.Nextafter(0.7, 0), math.Nextafter(1, 0), 0.5, 0.05, 0.95}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]scoring.Forecast, 5000)
	for i := range random {
		random[i] = scoring.Forecast{P: rng.Float64(), Outcome: rng.IntN(2) == 1}
	}
	var onEdges []scoring.Forecast
	for i, p := range edges {
		onEdges = append(onEdges, scoring.Forecast{P: p, Outcome: i%2 == 0})
	}
	for _, tc := range []struct {
		name string
		fs   []scoring.Forecast
		bins int
	}{
		{"random, default bins", random, 0},
		{"random, 7 bins", random, 7},
		{"random, 1 bin", random, 1},
		{"edges, default bins", onEdges, 0},
		{"edges, 20 bins", onEdges, 20},
		{"edges, 3 bins", onEdges, 3},
		{"one forecast", onEdges[:1], 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := scoring.Calibration(tc.fs, tc.bins)
			if err != nil {
				t.Fatalf("Calibration: %v", err)
			}
			got, err := scoring.CalibrationFromSums(sumsOf(t, tc.fs, tc.bins))
			if err != nil {
				t.Fatalf("CalibrationFromSums: %v", err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("table from sums mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A score taken back leaves the sums as if it had never been added: the
// table of the rest.
func TestCalibrationSumsTakeBack(t *testing.T) {
	fs := []scoring.Forecast{{P: 0.12, Outcome: true}, {P: 0.18}, {P: 0.85, Outcome: true}, {P: 0.15, Outcome: true}}
	sums := sumsOf(t, fs, 0)
	i, err := scoring.CalibrationBin(fs[3].P, 0)
	if err != nil {
		t.Fatal(err)
	}
	sums[i].Count--
	sums[i].Yes--
	sums[i].SumP -= fs[3].P
	want, err := scoring.Calibration(fs[:3], 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := scoring.CalibrationFromSums(sums)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("after taking a score back (-want +got):\n%s", diff)
	}
}

func TestCalibrationSumsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
		want error
	}{
		{"no bins", func() error { _, err := scoring.CalibrationFromSums(nil); return err }, scoring.ErrEmpty},
		{"every bin empty", func() error { _, err := scoring.CalibrationFromSums(make([]scoring.BinSums, 10)); return err }, scoring.ErrEmpty},
		{"too many bins", func() error {
			_, err := scoring.CalibrationFromSums(make([]scoring.BinSums, scoring.MaxBins+1))
			return err
		}, scoring.ErrBins},
		{"bin of a negative count", func() error { _, err := scoring.CalibrationBin(0.5, -1); return err }, scoring.ErrBins},
		{"bin of NaN", func() error { _, err := scoring.CalibrationBin(math.NaN(), 0); return err }, scoring.ErrProbability},
		{"bin of 1.5", func() error { _, err := scoring.CalibrationBin(1.5, 0); return err }, scoring.ErrProbability},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.err(); !errors.Is(err, tc.want) {
				t.Errorf("error = %v, want %v", err, tc.want)
			}
		})
	}
}
