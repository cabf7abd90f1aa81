package scoring_test

import (
	"fmt"
	"time"

	"github.com/predictions-md/predictions/scoring"
)

func ExampleScore() {
	fs := []scoring.Forecast{
		{Who: "agent:ann", P: 0.8, Outcome: true},
		{Who: "agent:ann", P: 0.3, Outcome: false},
		{Who: "person", P: 0.6, Outcome: false},
		{Who: "person", P: 0.9, Outcome: true},
	}
	res, err := scoring.Score(fs, scoring.Options{Bins: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	o := res.Overall
	fmt.Printf("overall: n=%d brier=%.4f log=%.4f base rate=%.2f skill=%.2f\n",
		o.N, o.Brier, o.LogScore, o.BaseRate, *o.BrierSkill)
	for _, f := range res.Forecasters {
		fmt.Printf("%s: brier=%.4f log=%.4f bits\n", f.Who, f.Brier, f.LogScoreBits)
	}
	for _, b := range o.Calibration {
		if b.Count == 0 {
			fmt.Printf("[%.1f, %.1f) empty\n", b.Lo, b.Hi)
			continue
		}
		fmt.Printf("[%.1f, %.1f) n=%d forecast %.2f observed %.2f\n", b.Lo, b.Hi, b.Count, *b.MeanForecast, *b.ObservedFrequency)
	}
	// Output:
	// overall: n=4 brier=0.1250 log=-0.4004 base rate=0.50 skill=0.50
	// agent:ann: brier=0.0650 log=-0.4183 bits
	// person: brier=0.1850 log=-0.7370 bits
	// [0.0, 0.2) empty
	// [0.2, 0.4) n=1 forecast 0.30 observed 0.00
	// [0.4, 0.6) empty
	// [0.6, 0.8) n=1 forecast 0.60 observed 0.00
	// [0.8, 1.0) n=2 forecast 0.85 observed 1.00
}

// The example of scikit-learn's brier_score_loss.
func ExampleBrier() {
	fs := []scoring.Forecast{
		{P: 0.1, Outcome: false},
		{P: 0.9, Outcome: true},
		{P: 0.8, Outcome: true},
		{P: 0.3, Outcome: false},
	}
	b, err := scoring.Brier(fs)
	fmt.Printf("%.4f %v\n", b, err)
	// Output: 0.0375 <nil>
}

// The example of scikit-learn's log_loss ("spam" = yes); the log score is
// minus the log loss.
func ExampleLog() {
	fs := []scoring.Forecast{
		{P: 0.9, Outcome: true},
		{P: 0.1, Outcome: false},
		{P: 0.2, Outcome: false},
		{P: 0.65, Outcome: true},
	}
	s, clipped, err := scoring.Log(fs)
	fmt.Printf("%.5f clipped=%d %v\n", s, clipped, err)
	// Output: -0.21616 clipped=0 <nil>
}

// The example of scikit-learn's calibration_curve, with n_bins=3.
func ExampleCalibration() {
	ps := []float64{0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1}
	var fs []scoring.Forecast
	for i, p := range ps {
		fs = append(fs, scoring.Forecast{P: p, Outcome: i >= 4})
	}
	rows, err := scoring.Calibration(fs, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Printf("[%.2f, %.2f] n=%d mean forecast %.3f observed %.1f\n", r.Lo, r.Hi, r.Count, *r.MeanForecast, *r.ObservedFrequency)
	}
	// Output:
	// [0.00, 0.33] n=3 mean forecast 0.200 observed 0.0
	// [0.33, 0.67] n=2 mean forecast 0.525 observed 0.5
	// [0.67, 1.00] n=4 mean forecast 0.850 observed 1.0
}

// Forecasts that use only a few values: the within-bin terms vanish and
// Brier = reliability − resolution + uncertainty.
func ExampleDecompose() {
	var fs []scoring.Forecast
	for i := range 10 {
		fs = append(fs, scoring.Forecast{P: 0.3, Outcome: i < 2}) // 30%, 2 of 10 yes
		fs = append(fs, scoring.Forecast{P: 0.7, Outcome: i < 8}) // 70%, 8 of 10 yes
	}
	m, err := scoring.Decompose(fs, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := scoring.Brier(fs)
	fmt.Printf("REL %.3f RES %.3f UNC %.3f WBV %.3f WBC %.3f\n",
		m.Reliability, m.Resolution, m.Uncertainty, m.WithinBinVariance, m.WithinBinCovariance)
	fmt.Printf("REL − RES + UNC = %.3f, Brier = %.3f\n", m.Reliability-m.Resolution+m.Uncertainty, b)
	// Output:
	// REL 0.010 RES 0.090 UNC 0.250 WBV 0.000 WBC 0.000
	// REL − RES + UNC = 0.170, Brier = 0.170
}

func ExampleParseOutcome() {
	for _, s := range []string{"yes", "0", "void"} {
		yes, err := scoring.ParseOutcome(s)
		fmt.Println(yes, err)
	}
	// Output:
	// true <nil>
	// false <nil>
	// false scoring: outcome "void" is not one of yes, no, 1, 0; send yes (or 1) if the question resolved yes, no (or 0) if it resolved no; void questions are not scored
}

// Three forecasters on a question open from January 1 and scheduled to
// close on January 11, resolved yes early, on January 9: the worked
// example of docs/SCORES.md.
func ExampleTimeAveraged() {
	day := func(d int) time.Time { return time.Date(2026, 1, 1+d, 0, 0, 0, 0, time.UTC) }
	fs := []scoring.TimedForecast{
		{Who: "ann", P: 0.6, At: day(0)},
		{Who: "bob", P: 0.3, At: day(2)},
		{Who: "ann", P: 0.8, At: day(4)},
		{Who: "cy", P: 0.5, At: day(6)},
	}
	scores, err := scoring.TimeAveraged(fs, scoring.Life{Open: day(0), Close: day(10), ActualClose: day(8)}, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range scores {
		fmt.Printf("%s: baseline %.2f, peer %.2f, coverage %.0f%%\n", s.Who, s.Baseline, s.Peer, 100*s.Coverage)
	}
	// Output:
	// ann: baseline 37.64, peer 47.99, coverage 80%
	// bob: baseline -44.22, peer -48.40, coverage 60%
	// cy: baseline 0.00, peer 0.41, coverage 20%
}

// A forecaster's skill from its peer scores on three questions (the third
// joined for half the question's life): the mean per question with its
// 95% interval, and the estimate shrunk toward 0, 12 / (30 + 2.5).
func ExampleSkillOf() {
	s := scoring.SkillOf([]float64{10, -4, 6}, []float64{1, 1, 0.5})
	fmt.Printf("%d questions: mean peer %.1f, 95%% interval %.1f to %.1f\n", s.Questions, s.MeanPeer, s.Low, s.High)
	fmt.Printf("estimate %.3f, trust %.3f, ranked %v\n", s.Estimate, scoring.Trust(s.Estimate), s.Ranked())
	// Output:
	// 3 questions: mean peer 4.0, 95% interval -13.9 to 21.9
	// estimate 0.369, trust 0.518, ranked false
}

// What was known of a forecaster's skill at a moment counts only the
// questions resolved before it.
func ExampleHistory_At() {
	var h scoring.History
	march := func(d int) time.Time { return time.Date(2026, 3, d, 12, 0, 0, 0, time.UTC) }
	h.Add("agent:ann", march(10), 25, 1)
	h.Add("agent:ann", march(2), -5, 1) // added late, resolved earlier
	for _, d := range []int{1, 2, 3, 11} {
		s := h.At("agent:ann", march(d))
		fmt.Printf("March %d: %d question(s), estimate %.3f\n", d, s.Questions, s.Estimate)
	}
	// Output:
	// March 1: 0 question(s), estimate 0.000
	// March 2: 0 question(s), estimate 0.000
	// March 3: 1 question(s), estimate -0.161
	// March 11: 2 question(s), estimate 0.625
}
