package pool_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/pool"
)

// TestStandingMatchesCombine replaces forecasts at random, ties, 0 and 1
// among them, and compares each Result with Combine on the standing set
// (in forecaster order, as a store reads it): the median, low, high,
// spread, flag and N exactly, the two means to 1e-12; and the board's
// measure (MiddleSpreadPts, MiddleDisagree) against the functions'.
func TestStandingMatchesCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2026))
	for trial := range 200 {
		var s pool.Standing
		set := map[string]float64{}
		forecasters := 1 + rng.IntN(40)
		for step := range 60 {
			who := fmt.Sprintf("agent-%02d", rng.IntN(forecasters))
			p := float64(rng.IntN(1001)) / 1000
			if rng.IntN(10) == 0 {
				p = rng.Float64()
			}
			if err := s.Set(who, p); err != nil {
				t.Fatalf("trial %d step %d: Set(%q, %v): %v", trial, step, who, p, err)
			}
			set[who] = p
			names := make([]string, 0, len(set))
			for w := range set {
				names = append(names, w)
			}
			slices.Sort(names)
			fs := make([]pool.Forecast, len(names))
			for i, w := range names {
				fs[i] = pool.Forecast{Who: w, P: set[w]}
			}
			want, err := pool.Combine(fs, pool.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Result()
			if err != nil {
				t.Fatalf("trial %d step %d: Result: %v", trial, step, err)
			}
			if s.Len() != len(set) {
				t.Fatalf("trial %d step %d: Len = %d, want %d", trial, step, s.Len(), len(set))
			}
			// The board's measure, kept on the sorted slice, is the
			// function's on the set sorted afresh.
			ps := make([]float64, len(fs))
			for i, f := range fs {
				ps[i] = f.P
			}
			slices.Sort(ps)
			if s.MiddleSpreadPts() != pool.MiddleSpreadPts(ps) || s.MiddleDisagree() != pool.MiddleDisagree(ps) {
				t.Fatalf("trial %d step %d: Standing's middle spread %v (%v), want %v (%v) on %v", trial, step,
					s.MiddleSpreadPts(), s.MiddleDisagree(), pool.MiddleSpreadPts(ps), pool.MiddleDisagree(ps), ps)
			}
			opts := cmp.Options{cmpopts.IgnoreFields(pool.Result{}, "Notes", "GeoOdds", "Mean", "P", "Recency", "Skill")}
			if diff := cmp.Diff(want, got, opts); diff != "" {
				t.Fatalf("trial %d step %d: Result mismatch (-want +got):\n%s", trial, step, diff)
			}
			for _, c := range []struct {
				name      string
				want, got float64
			}{{"GeoOdds", want.GeoOdds, got.GeoOdds}, {"Mean", want.Mean, got.Mean}, {"P", want.P, got.P}} {
				if math.Abs(c.want-c.got) > 1e-12 {
					t.Fatalf("trial %d step %d: %s = %v, Combine gives %v", trial, step, c.name, c.got, c.want)
				}
			}
		}
	}
}

// TestStandingNoDrift replaces one forecaster's forecast a million times
// beside a fixed crowd: the running sums come back to the crowd's.
func TestStandingNoDrift(t *testing.T) {
	var s pool.Standing
	var fs []pool.Forecast
	for i := range 100 {
		p := float64(i+1) / 102
		fs = append(fs, pool.Forecast{P: p})
		if err := s.Set(fmt.Sprint(i), p); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		if err := s.Set("mover", rng.Float64()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Set("mover", 0.5); err != nil {
		t.Fatal(err)
	}
	fs = append(fs, pool.Forecast{P: 0.5})
	want, _ := pool.Combine(fs, pool.Options{})
	got, _ := s.Result()
	if math.Abs(want.Mean-got.Mean) > 1e-15 || math.Abs(want.GeoOdds-got.GeoOdds) > 1e-15 {
		t.Errorf("after 10⁶ replacements: mean %v geo %v, Combine gives %v and %v", got.Mean, got.GeoOdds, want.Mean, want.GeoOdds)
	}
}

func TestStandingEdges(t *testing.T) {
	var s pool.Standing
	if _, err := s.Result(); !errors.Is(err, pool.ErrNoForecasts) {
		t.Errorf("empty Result: err = %v, want ErrNoForecasts", err)
	}
	for _, p := range []float64{-0.1, 1.5, math.NaN()} {
		err := s.Set("a", p)
		var fe *pool.ForecastError
		if !errors.As(err, &fe) || !errors.Is(err, pool.ErrProbability) || fe.Who != "a" {
			t.Errorf("Set(a, %v) = %v, want a *ForecastError for a wrapping ErrProbability", p, err)
		}
	}
	if s.Len() != 0 {
		t.Errorf("Len after refused Sets = %d, want 0", s.Len())
	}
	// Ten forecasts of 0.01 pool to 0.01 exactly, as in Combine.
	for i := range 10 {
		if err := s.Set(fmt.Sprint(i), 0.01); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Result()
	want := pool.Result{GeoOdds: 0.01, Mean: 0.01, Median: 0.01, Method: pool.GeoOdds, P: 0.01, Extremize: 1,
		Low: 0.01, High: 0.01, DisagreePts: pool.DefaultDisagreePts, N: 10, Notes: []string{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ten of 0.01 (-want +got):\n%s", diff)
	}
	// A 0 and a 1 are clipped for the geometric mean and counted.
	_ = s.Set("0", 0)
	_ = s.Set("1", 1)
	got, _ = s.Result()
	if len(got.Notes) != 1 || got.Low != 0 || got.High != 1 || !got.Disagree {
		t.Errorf("with a 0 and a 1: notes %q, low %v, high %v, disagree %v; want one note, 0, 1, true", got.Notes, got.Low, got.High, got.Disagree)
	}
}

// BenchmarkStanding sets 16,000 forecasters' forecasts one by one and
// pools after each, against Combine on the whole set after each (n²).
func BenchmarkStanding(b *testing.B) {
	for _, n := range []int{1000, 16000} {
		b.Run(fmt.Sprintf("Standing/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				var s pool.Standing
				for i := range n {
					_ = s.Set(fmt.Sprint(i), float64(i%997+1)/999)
					if _, err := s.Result(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
	b.Run("Combine/n=1000", func(b *testing.B) {
		for b.Loop() {
			var fs []pool.Forecast
			for i := range 1000 {
				fs = append(fs, pool.Forecast{P: float64(i%997+1) / 999})
				if _, err := pool.Combine(fs, pool.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
