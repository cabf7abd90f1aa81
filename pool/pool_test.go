package pool

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var approx = cmpopts.EquateApprox(0, 1e-12)

func ps(p ...float64) []Forecast {
	fs := make([]Forecast, len(p))
	for i, v := range p {
		fs[i] = Forecast{P: v}
	}
	return fs
}

func weighted(p, w []float64) []Forecast {
	fs := make([]Forecast, len(p))
	for i := range p {
		fs[i] = Forecast{P: p[i], Weight: new(w[i])}
	}
	return fs
}

// Sevilla, "When pooling forecasts, use the geometric mean of odds"
// (EA Forum, 3 Sep 2021, https://forum.effectivealtruism.org/posts/sMjcjnnpoAQCcedL2):
// the four nuclear-war forecasts 1.40%, 2.21%, 0.39% and 0.40% (odds 1:70,
// 1:44, 1:255, 1:249) have arithmetic mean 1.10% (odds about 1:91) and a
// geometric mean of odds of about 1:118, a probability of about 0.84%.
func TestCombineSevilla(t *testing.T) {
	res, err := Combine(ps(0.0140, 0.0221, 0.0039, 0.0040), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := math.Round(res.Mean * 1e4); got != 110 {
		t.Errorf("Mean = %v, want 1.10%%", res.Mean)
	}
	if against := (1 - res.Mean) / res.Mean; math.Round(against) != 90 && math.Round(against) != 91 {
		// 1/0.011 − 1 = 89.9: Sevilla writes "about 1:91" for 1 in 91.
		t.Errorf("Mean odds against = %v, want about 90", against)
	}
	against := (1 - res.GeoOdds) / res.GeoOdds
	if against < 118 || against >= 119 {
		t.Errorf("GeoOdds odds = 1:%v, want about 1:118", against)
	}
	if got := math.Round(res.GeoOdds * 1e4); got != 84 {
		t.Errorf("GeoOdds = %v, want about 0.84%%", res.GeoOdds)
	}
	if res.P != res.GeoOdds || res.Method != GeoOdds {
		t.Errorf("lead = %v %v, want geo_odds %v", res.Method, res.P, res.GeoOdds)
	}
	if want := (0.0221 - 0.0039) * 100; math.Abs(res.SpreadPts-want) > 1e-9 {
		t.Errorf("SpreadPts = %v, want %v", res.SpreadPts, want)
	}
}

// The geometric mean of odds, computed directly as (∏ oᵢ^wᵢ)^(1/Σw), equals
// the logistic of the weighted mean logit that Combine computes.
func TestGeoOddsIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + r.IntN(20)
		fs := make([]Forecast, n)
		logProd, sumW := 0.0, 0.0
		for i := range fs {
			p := ClipLow + r.Float64()*(ClipHigh-ClipLow)
			w := r.Float64() + 0.01
			fs[i] = Forecast{P: p, Weight: new(w)}
			logProd += w * math.Log(p/(1-p))
			sumW += w
		}
		o := math.Pow(math.Exp(logProd), 1/sumW)
		want := o / (1 + o)
		res, err := Combine(fs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.GeoOdds-want) > 1e-9 {
			t.Fatalf("trial %d: GeoOdds = %v, direct geometric mean of odds = %v", trial, res.GeoOdds, want)
		}
	}
}

// Metaculus' weighted median: ilow = first cumulative weight >= W/2,
// ihigh = first > W/2, median = (x[ilow]+x[ihigh])/2.
func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		fs   []Forecast
		want float64
	}{
		{"one", ps(0.3), 0.3},
		{"odd count", ps(0.9, 0.1, 0.2), 0.2},
		{"even count averages the middle two", ps(0.4, 0.1, 0.3, 0.2), 0.25},
		{"weight hits half exactly", weighted([]float64{0.1, 0.2, 0.3}, []float64{1, 1, 2}), 0.25},
		{"heavy forecast dominates", weighted([]float64{0.2, 0.8}, []float64{1, 3}), 0.8},
		{"weight just past half", weighted([]float64{0.2, 0.8}, []float64{1.0001, 1}), 0.2},
		// 0.1+0.2 = 0.30000000000000004 in float64; still counts as half of 0.6.
		{"decimal weights", weighted([]float64{0.1, 0.5, 0.9}, []float64{0.1, 0.2, 0.3}), 0.7},
		{"zero weight left out", weighted([]float64{0.1, 0.5, 0.9}, []float64{1, 0, 1}), 0.5},
		{"ties", ps(0.5, 0.5, 0.5, 0.7), 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Combine(tt.fs, Options{Method: Median})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Median, approx); diff != "" {
				t.Errorf("Median (-want +got):\n%s", diff)
			}
			if res.P != res.Median {
				t.Errorf("P = %v, want the median %v", res.P, res.Median)
			}
		})
	}
}

func TestCombine(t *testing.T) {
	tests := []struct {
		name string
		fs   []Forecast
		opt  Options
		want Result
	}{
		{
			// One forecast pools to itself by every method; Skill does
			// not extremize fewer than 3.
			name: "one forecast",
			fs:   []Forecast{{Who: "a", P: 0.7}},
			want: Result{GeoOdds: 0.7, Mean: 0.7, Median: 0.7, Recency: 0.7, Skill: 0.7, Method: GeoOdds, P: 0.7, Extremize: 1,
				Low: 0.7, High: 0.7, DisagreePts: 20, N: 1, Notes: []string{}},
		},
		{
			// Odds 3 and 1/3: geometric mean 1, so 50%; the mean is 50% too.
			// N = 2: Recency is the unweighted median (0.25 + 0.75)/2 and
			// Skill the unweighted mean of ln 3 and −ln 3, not extremized.
			name: "symmetric pair, mean leads",
			fs:   ps(0.75, 0.25),
			opt:  Options{Method: Mean},
			want: Result{GeoOdds: 0.5, Mean: 0.5, Median: 0.5, Recency: 0.5, Skill: 0.5, Method: Mean, P: 0.5, Extremize: 1,
				Low: 0.25, High: 0.75, SpreadPts: 50, DisagreePts: 20, Disagree: true, N: 2, Notes: []string{}},
		},
		{
			// Weights 1 and 3 on odds 1 and 9: geometric mean 9^(3/4) = 3^1.5.
			// N = 2, so no recency weights: Recency is the weighted median
			// (0.5 holds 1 of 4, below half), 0.9; Skill, with skills 0 and
			// no extremizing, is the geometric mean of odds.
			name: "weighted",
			fs:   weighted([]float64{0.5, 0.9}, []float64{1, 3}),
			want: Result{GeoOdds: math.Pow(3, 1.5) / (1 + math.Pow(3, 1.5)), Mean: 0.8, Median: 0.9,
				Recency: 0.9, Skill: math.Pow(3, 1.5) / (1 + math.Pow(3, 1.5)), Method: GeoOdds,
				P: math.Pow(3, 1.5) / (1 + math.Pow(3, 1.5)), Extremize: 1, Low: 0.5, High: 0.9, SpreadPts: 40,
				DisagreePts: 20, Disagree: true, N: 2, Notes: []string{}},
		},
		{
			// Odds 7/3 squared = 49/9, probability 49/58, for every method
			// (Skill's own factor needs 3 forecasts).
			name: "extremize 2",
			fs:   ps(0.7),
			opt:  Options{Extremize: 2},
			want: Result{GeoOdds: 49.0 / 58, Mean: 49.0 / 58, Median: 49.0 / 58, Recency: 49.0 / 58, Skill: 49.0 / 58,
				Method: GeoOdds, P: 49.0 / 58,
				Extremize: 2, Low: 0.7, High: 0.7, DisagreePts: 20, N: 1,
				Notes: []string{"every pooled result extremized: log-odds multiplied by 2"}},
		},
		{
			// Recency, unclipped: (0 + 1)/2. Skill, clipped: the mean of
			// −ln 999 and ln 999 is 0.
			name: "clipped 0 and 1",
			fs:   []Forecast{{Who: "never", P: 0}, {P: 1}},
			want: Result{GeoOdds: 0.5, Mean: 0.5, Median: 0.5, Recency: 0.5, Skill: 0.5, Method: GeoOdds, P: 0.5, Extremize: 1,
				Low: 0, High: 1, SpreadPts: 100, DisagreePts: 20, Disagree: true, N: 2,
				Notes: []string{
					`forecasts[0] ("never"): p = 0 clipped to 0.001 for the geometric mean of odds (odds of 0 or 1 are infinite)`,
					`forecasts[1]: p = 1 clipped to 0.999 for the geometric mean of odds (odds of 0 or 1 are infinite)`,
				}},
		},
		{
			// All at 0: the mean, median and Recency stay 0 even when
			// extremized; the geometric mean of odds and Skill are the clip
			// bound 0.001, odds 1/999, extremized: (1/999)^1.5 / (1 + (1/999)^1.5).
			name: "all zero, extremized",
			fs:   ps(0, 0),
			opt:  Options{Extremize: 1.5, Method: Median},
			want: Result{GeoOdds: math.Pow(999, -1.5) / (1 + math.Pow(999, -1.5)), Mean: 0, Median: 0, Recency: 0,
				Skill: math.Pow(999, -1.5) / (1 + math.Pow(999, -1.5)), Method: Median, P: 0, Extremize: 1.5,
				DisagreePts: 20, N: 2, Notes: []string{
					"forecasts[0]: p = 0 clipped to 0.001 for the geometric mean of odds (odds of 0 or 1 are infinite)",
					"forecasts[1]: p = 0 clipped to 0.001 for the geometric mean of odds (odds of 0 or 1 are infinite)",
					"every pooled result extremized: log-odds multiplied by 1.5",
				}},
		},
		{
			// The two included forecasts are both 0.6; N = 2, so Skill is
			// not extremized.
			name: "weight 0 excluded from everything",
			fs:   []Forecast{{Who: "a", P: 0.6}, {Who: "b", P: 0.01, Weight: new(0.0)}, {Who: "c", P: 0.6}},
			want: Result{GeoOdds: 0.6, Mean: 0.6, Median: 0.6, Recency: 0.6, Skill: 0.6, Method: GeoOdds, P: 0.6, Extremize: 1,
				Low: 0.6, High: 0.6, DisagreePts: 20, N: 2, Excluded: 1,
				Notes: []string{`forecasts[1] ("b") has weight 0 and was left out`}},
		},
		{
			// 0.5 − 0.3 = 0.20000000000000004 in float64: not more than 20.
			// Odds 3/7 and 1: geometric mean √(3/7), p = √3/(√3+√7), which
			// Skill (N = 2, skills 0) equals; Recency (N = 2) is the median.
			name: "spread exactly at the default threshold",
			fs:   ps(0.3, 0.5),
			opt:  Options{Method: "MEAN"},
			want: Result{GeoOdds: math.Sqrt(3) / (math.Sqrt(3) + math.Sqrt(7)), Mean: 0.4, Median: 0.4, Recency: 0.4,
				Skill: math.Sqrt(3) / (math.Sqrt(3) + math.Sqrt(7)), Method: Mean, P: 0.4,
				Extremize: 1, Low: 0.3, High: 0.5, SpreadPts: 20, DisagreePts: 20, N: 2, Notes: []string{}},
		},
		{
			// Odds 1 and 51/49: geometric mean √(51/49), p = √51/(√51+7);
			// Skill (N = 2, skills 0) equals it, Recency is the median.
			name: "threshold 0 flags any spread",
			fs:   ps(0.5, 0.51),
			opt:  Options{DisagreePts: new(0.0)},
			want: Result{GeoOdds: math.Sqrt(51) / (math.Sqrt(51) + 7), Mean: 0.505, Median: 0.505, Recency: 0.505,
				Skill: math.Sqrt(51) / (math.Sqrt(51) + 7), Method: GeoOdds,
				P: math.Sqrt(51) / (math.Sqrt(51) + 7), Extremize: 1, Low: 0.5, High: 0.51, SpreadPts: 1,
				Disagree: true, N: 2, Notes: []string{}},
		},
		{
			name: "threshold 0 and no spread",
			fs:   ps(0.5, 0.5),
			opt:  Options{DisagreePts: new(0.0)},
			want: Result{GeoOdds: 0.5, Mean: 0.5, Median: 0.5, Recency: 0.5, Skill: 0.5, Method: GeoOdds, P: 0.5, Extremize: 1,
				Low: 0.5, High: 0.5, N: 2, Notes: []string{}},
		},
		{
			// Weights are relative and huge ones do not overflow. Odds 1/4
			// and 2/3: geometric mean √(1/6), p = 1/(1+√6); Skill (N = 2)
			// equals it, Recency is the median.
			name: "huge weights",
			fs:   weighted([]float64{0.2, 0.4}, []float64{math.MaxFloat64, math.MaxFloat64}),
			want: Result{GeoOdds: 1 / (1 + math.Sqrt(6)), Mean: 0.3, Median: 0.3, Recency: 0.3, Skill: 1 / (1 + math.Sqrt(6)),
				Method: GeoOdds, P: 1 / (1 + math.Sqrt(6)), Extremize: 1, Low: 0.2, High: 0.4, SpreadPts: 20,
				DisagreePts: 20, N: 2, Notes: []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Combine(tt.fs, tt.opt)
			if err != nil {
				t.Fatalf("Combine: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Combine (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCombineErrors(t *testing.T) {
	tests := []struct {
		name  string
		fs    []Forecast
		opt   Options
		want  error
		index int // for *ForecastError; -1 when none
		field string
	}{
		{"no forecasts", nil, Options{}, ErrNoForecasts, -1, ""},
		{"p above 1", ps(0.5, 70), Options{}, ErrProbability, 1, "p"},
		{"p negative", ps(-0.1), Options{}, ErrProbability, 0, "p"},
		{"p NaN", ps(0.2, 0.3, math.NaN()), Options{}, ErrProbability, 2, "p"},
		{"negative weight", weighted([]float64{0.2, 0.3}, []float64{1, -1}), Options{}, ErrWeight, 1, "weight"},
		{"NaN weight", weighted([]float64{0.2}, []float64{math.NaN()}), Options{}, ErrWeight, 0, "weight"},
		{"infinite weight", weighted([]float64{0.2}, []float64{math.Inf(1)}), Options{}, ErrWeight, 0, "weight"},
		{"all weights 0", weighted([]float64{0.2, 0.3}, []float64{0, 0}), Options{}, ErrAllExcluded, -1, ""},
		{"unknown method", ps(0.2), Options{Method: "mode"}, ErrMethod, -1, ""},
		{"extremize below 1", ps(0.2), Options{Extremize: 0.5}, ErrExtremize, -1, ""},
		{"extremize NaN", ps(0.2), Options{Extremize: math.NaN()}, ErrExtremize, -1, ""},
		{"extremize Inf", ps(0.2), Options{Extremize: math.Inf(1)}, ErrExtremize, -1, ""},
		{"negative threshold", ps(0.2), Options{DisagreePts: new(-1.0)}, ErrDisagreePts, -1, ""},
		{"NaN threshold", ps(0.2), Options{DisagreePts: new(math.NaN())}, ErrDisagreePts, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Combine(tt.fs, tt.opt)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Combine error = %v, want %v", err, tt.want)
			}
			var fe *ForecastError
			if errors.As(err, &fe) != (tt.index >= 0) {
				t.Fatalf("Combine error %T %v: ForecastError wanted = %v", err, err, tt.index >= 0)
			}
			if fe != nil && (fe.Index != tt.index || fe.Field != tt.field) {
				t.Errorf("ForecastError index, field = %d, %q; want %d, %q", fe.Index, fe.Field, tt.index, tt.field)
			}
		})
	}
}

func TestForecastErrorText(t *testing.T) {
	_, err := Combine([]Forecast{{P: 0.5}, {Who: "bob", P: 70}}, Options{})
	want := `pool: forecasts[1] ("bob"): p = 70 is not a probability in [0, 1]: write 70% as 0.7`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestParseMethod(t *testing.T) {
	tests := []struct {
		in   string
		want Method
		err  error
	}{
		{"", GeoOdds, nil},
		{"geo_odds", GeoOdds, nil},
		{" Median ", Median, nil},
		{"MEAN", Mean, nil},
		{"recency", Recency, nil},
		{" Skill", Skill, nil},
		{"geometric", "", ErrMethod},
	}
	for _, tt := range tests {
		got, err := ParseMethod(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ParseMethod(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// Each pooled value lies between the lowest and highest forecast (for the
// geometric mean, of the clipped forecasts; for Skill, of the clipped
// forecasts extremized by Skill's own factor) when not extremized, and
// permuting the forecasts changes nothing but float rounding, but for
// Recency and Skill: without times they take the slice order as the order
// in time (TestTimedPoolsPermutation permutes forecasts with times).
func TestCombineProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := 1 + r.IntN(30)
		fs := make([]Forecast, n)
		for i := range fs {
			fs[i] = Forecast{P: r.Float64()}
			if r.IntN(3) == 0 {
				fs[i].P = float64(r.IntN(2)) // some exact 0s and 1s
			}
			if r.IntN(2) == 0 {
				fs[i].Weight = new(float64(r.IntN(4)))
			}
			if r.IntN(2) == 0 {
				fs[i].Skill = new(40*r.Float64() - 20)
			}
		}
		res, err := Combine(fs, Options{})
		if errors.Is(err, ErrAllExcluded) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]float64{"mean": res.Mean, "median": res.Median, "recency": res.Recency} {
			if v < res.Low-1e-15 || v > res.High+1e-15 {
				t.Fatalf("trial %d: %s %v outside [%v, %v]", trial, name, v, res.Low, res.High)
			}
		}
		lo, hi := min(max(res.Low, ClipLow), ClipHigh), min(max(res.High, ClipLow), ClipHigh)
		if res.GeoOdds < lo-1e-12 || res.GeoOdds > hi+1e-12 {
			t.Fatalf("trial %d: geo_odds %v outside [%v, %v]", trial, res.GeoOdds, lo, hi)
		}
		// Extremizing is increasing, so it keeps the order of the bounds.
		if k := skillExtremize(res.N); res.Skill < extremize(lo, k)-1e-12 || res.Skill > extremize(hi, k)+1e-12 {
			t.Fatalf("trial %d: skill %v outside [%v, %v]", trial, res.Skill, extremize(lo, k), extremize(hi, k))
		}
		shuffled := append([]Forecast(nil), fs...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		res2, err := Combine(shuffled, Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts := cmp.Options{cmpopts.EquateApprox(0, 1e-12), cmpopts.IgnoreFields(Result{}, "Notes", "Recency", "Skill")}
		if diff := cmp.Diff(res, res2, opts); diff != "" {
			t.Fatalf("trial %d: shuffled input changed the result (-orig +shuffled):\n%s", trial, diff)
		}
	}
}

// FuzzCombine: no panic, no NaN or Inf in a result, and errors are the
// package's own.
func FuzzCombine(f *testing.F) {
	f.Add(0.2, 0.8, 1.0, 2.0, 1.5, 20.0)
	f.Add(0.0, 1.0, 0.0, 1e308, 0.0, 0.0)
	f.Add(math.NaN(), 0.5, -1.0, 1.0, 3.0, -1.0)
	f.Fuzz(func(t *testing.T, p1, p2, w1, w2, k, pts float64) {
		fs := []Forecast{{P: p1, Weight: new(w1)}, {P: p2, Weight: new(w2)}, {P: 0.5}}
		res, err := Combine(fs, Options{Extremize: k, DisagreePts: new(pts)})
		if err != nil {
			for _, e := range []error{ErrProbability, ErrWeight, ErrExtremize, ErrDisagreePts} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("unexpected error %v", err)
		}
		for _, v := range []float64{res.GeoOdds, res.Mean, res.Median, res.P, res.SpreadPts, res.Low, res.High} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("result has NaN or Inf: %+v", res)
			}
		}
		for _, v := range []float64{res.GeoOdds, res.Mean, res.Median, res.P} {
			if v < 0 || v > 1 {
				t.Fatalf("result outside [0, 1]: %+v", res)
			}
		}
	})
}

// baseline: one logit per forecast, the least any geometric-mean pool does.
func BenchmarkLogitBaseline(b *testing.B) {
	fs := benchForecasts()
	var sink float64
	for b.Loop() {
		s := 0.0
		for _, f := range fs {
			s += math.Log(f.P / (1 - f.P))
		}
		sink += s
	}
	_ = sink
}

func BenchmarkCombine100(b *testing.B) {
	fs := benchForecasts()
	for b.Loop() {
		if _, err := Combine(fs, Options{Extremize: 1.5}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchForecasts() []Forecast {
	r := rand.New(rand.NewPCG(5, 6))
	fs := make([]Forecast, 100)
	for i := range fs {
		fs[i] = Forecast{P: 0.01 + 0.98*r.Float64(), Weight: new(1 + r.Float64())}
	}
	return fs
}
