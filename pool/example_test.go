package pool_test

import (
	"fmt"
	"time"

	"github.com/predictions-md/predictions/pool"
)

// The four forecasts of a nuclear war within a year from Sevilla's essay
// "When pooling forecasts, use the geometric mean of odds" (EA Forum, 2021):
// the mean is 1.10%, the geometric mean of odds about 1:118 (1:118.65 unrounded),
// or 0.84%.
func ExampleCombine() {
	res, err := pool.Combine([]pool.Forecast{
		{Who: "a", P: 0.0140},
		{Who: "b", P: 0.0221},
		{Who: "c", P: 0.0039},
		{Who: "d", P: 0.0040},
	}, pool.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("geo_odds %.2f%% (odds 1:%.1f)\n", 100*res.GeoOdds, (1-res.GeoOdds)/res.GeoOdds)
	fmt.Printf("mean %.2f%%, median %.2f%%\n", 100*res.Mean, 100*res.Median)
	fmt.Printf("lead %s: %.2f%%; spread %.2f points, disagree %v\n", res.Method, 100*res.P, res.SpreadPts, res.Disagree)
	// Output:
	// geo_odds 0.84% (odds 1:118.7)
	// mean 1.10%, median 0.90%
	// lead geo_odds: 0.84%; spread 1.82 points, disagree false
}

// Weights, an excluded forecast, a certainty that is clipped, extremizing and
// a custom disagreement threshold.
func ExampleCombine_options() {
	res, err := pool.Combine([]pool.Forecast{
		{Who: "agent:alpha", P: 0.70, Weight: new(2.0)},
		{Who: "agent:beta", P: 0.55},
		{Who: "person", P: 1},
		{Who: "agent:stale", P: 0.10, Weight: new(0.0)},
	}, pool.Options{Method: pool.Median, Extremize: 1.5, DisagreePts: new(10.0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %.1f%% (geo_odds %.1f%%, mean %.1f%%)\n", res.Method, 100*res.P, 100*res.GeoOdds, 100*res.Mean)
	fmt.Printf("n %d, excluded %d, spread %.0f points, disagree %v\n", res.N, res.Excluded, res.SpreadPts, res.Disagree)
	for _, n := range res.Notes {
		fmt.Println("note:", n)
	}
	// Output:
	// median 78.1% (geo_odds 96.4%, mean 82.5%)
	// n 3, excluded 1, spread 45 points, disagree true
	// note: forecasts[2] ("person"): p = 1 clipped to 0.999 for the geometric mean of odds (odds of 0 or 1 are infinite)
	// note: forecasts[3] ("agent:stale") has weight 0 and was left out
	// note: every pooled result extremized: log-odds multiplied by 1.5
}

// A board pools after every forecast; a forecaster who forecasts again
// replaces their standing forecast.
func ExampleStanding() {
	var s pool.Standing
	for _, f := range []pool.Forecast{
		{Who: "scout", P: 0.62},
		{Who: "skeptic", P: 0.30},
		{Who: "scout", P: 0.55}, // scout changes their mind
	} {
		if err := s.Set(f.Who, f.P); err != nil {
			fmt.Println(err)
			return
		}
		res, _ := s.Result()
		fmt.Printf("%s %.2f: pooled %.3f from %d, median %.3f\n", f.Who, f.P, res.GeoOdds, res.N, res.Median)
	}
	// Output:
	// scout 0.62: pooled 0.620 from 1, median 0.620
	// skeptic 0.30: pooled 0.455 from 2, median 0.460
	// scout 0.55: pooled 0.420 from 2, median 0.425
}

// A board flags a question when the middle half of its standing forecasts
// is split, not when one forecaster sits far from the rest.
func ExampleMiddleDisagree() {
	for _, sorted := range [][]float64{
		{0.05, 0.55, 0.58, 0.6, 0.62, 0.95}, // outliers at both ends
		{0.2, 0.25, 0.3, 0.6, 0.65, 0.7},    // two camps
	} {
		r, _ := pool.Combine([]pool.Forecast{{P: sorted[0]}, {P: sorted[len(sorted)-1]}}, pool.Options{})
		fmt.Printf("spread %.0f points (tools flag: %v), middle half %.2f points (board flag: %v)\n",
			r.SpreadPts, r.Disagree, pool.MiddleSpreadPts(sorted), pool.MiddleDisagree(sorted))
	}
	// Output:
	// spread 90 points (tools flag: true), middle half 5.75 points (board flag: false)
	// spread 50 points (tools flag: true), middle half 37.50 points (board flag: true)
}

// Metaculus's Community Prediction of four forecasters, in the order they
// forecast: the n-th of N weighs e^(√n − √N), here about 0.37, 0.56, 0.76
// and 1, so the two who forecast last hold more than half the weight and
// the median moves to their side.
func ExampleCombine_recency() {
	day := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	res, err := pool.Combine([]pool.Forecast{
		{Who: "agent:scout", P: 0.10, At: day},
		{Who: "agent:owl", P: 0.20, At: day.Add(24 * time.Hour)},
		{Who: "agent:skeptic", P: 0.80, At: day.Add(48 * time.Hour)},
		{Who: "person", P: 0.90, At: day.Add(72 * time.Hour)},
	}, pool.Options{Method: pool.Recency})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %.2f (median %.2f)\n", res.Method, res.P, res.Median)
	// Output:
	// recency 0.80 (median 0.50)
}

// The skill pool weighs each forecast by its age and by its forecaster's
// skill (peer-score points per question, as package scoring estimates
// it), averages the log-odds and extremizes by 1.2. Here the weights are
// e^(1−√3)·e^(0.08·12) ≈ 1.26 for scout, e^(√2−√3)·e^(0.08·−4) ≈ 0.53 for
// owl and 1 for the person, so scout's 70% counts most.
func ExampleCombine_skill() {
	day := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	res, err := pool.Combine([]pool.Forecast{
		{Who: "agent:scout", P: 0.70, At: day, Skill: new(12.0)},
		{Who: "agent:owl", P: 0.45, At: day.Add(time.Hour), Skill: new(-4.0)},
		{Who: "person", P: 0.60, At: day.Add(2 * time.Hour)}, // no scored questions yet
	}, pool.Options{Method: pool.Skill})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %.3f (geo_odds %.3f, recency %.3f)\n", res.Method, res.P, res.GeoOdds, res.Recency)
	// Output:
	// skill 0.643 (geo_odds 0.587, recency 0.600)
}
