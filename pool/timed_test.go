package pool_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/pool"
)

// The recency weights e^(√n − √N) of the n-th of N forecasts, oldest
// first, that the expected values below are worked with:
//
//	N = 3: e^(1−√3) ≈ 0.4809, e^(√2−√3) ≈ 0.7277, 1; total ≈ 2.2086, half ≈ 1.1043
//	N = 4: e^(1−2) ≈ 0.3679, e^(√2−2) ≈ 0.5567, e^(√3−2) ≈ 0.7649, 1; total ≈ 2.6895, half ≈ 1.3447
//
// With N ≤ 2 every recency weight is 1.
var (
	r31, r32 = math.Exp(1 - math.Sqrt(3)), math.Exp(math.Sqrt(2) - math.Sqrt(3))
	ln4, ln9 = math.Log(4), math.Log(9) // −logit(0.2) and logit(0.9)
)

// t0 is the first moment of the tests' forecasts; at(m) is m minutes later.
var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

func at(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }

// logistic is 1 / (1 + e^−x), written out here so that the expected values
// do not use the package's own.
func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// timedCase is a pool and the value that Recency or Skill must give it,
// worked by hand.
type timedCase struct {
	name string
	fs   []pool.Forecast
	opt  pool.Options
	want float64
}

// checkTimed pools each case with method leading (on top of the case's
// options) and compares value(result), which must also be P, with want.
func checkTimed(t *testing.T, method pool.Method, value func(pool.Result) float64, tests []timedCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := tt.opt
			opt.Method = method
			res, err := pool.Combine(tt.fs, opt)
			if err != nil {
				t.Fatalf("Combine: %v", err)
			}
			got := value(res)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", method, diff)
			}
			if res.Method != method || res.P != got {
				t.Errorf("lead = %s %v, want %s %v", res.Method, res.P, method, got)
			}
		})
	}
}

// TestRecency checks Metaculus's Community Prediction against weighted
// medians worked by hand: the forecasts sorted by probability, each with
// its weight times its recency weight, and the first whose cumulative
// weight passes half the total.
func TestRecency(t *testing.T) {
	tests := []timedCase{
		{"one forecast", []pool.Forecast{{P: 0.3, At: at(0)}}, pool.Options{}, 0.3},
		{
			// N = 2: unweighted, so the median of the two, (0.2 + 0.6)/2,
			// not the newer 0.6.
			"two are unweighted",
			[]pool.Forecast{{P: 0.6, At: at(5)}, {P: 0.2, At: at(0)}}, pool.Options{}, 0.4,
		},
		{
			// By time: 0.1 (weight 2), 0.5, 0.9. Weights 2·0.4809 = 0.9618,
			// 0.7277, 1; half 1.3448. Sorted: 0.1 reaches 0.9618, 0.5
			// 1.6896 > half: 0.5. Without recency, 0.1 holds exactly half
			// of 2+1+1 and the median would be (0.1 + 0.5)/2 = 0.3.
			"three with weights",
			[]pool.Forecast{{P: 0.9, At: at(2)}, {P: 0.1, At: at(0), Weight: new(2.0)}, {P: 0.5, At: at(1)}}, pool.Options{}, 0.5,
		},
		{
			// By time: 0.1, 0.2, 0.8, 0.9. Sorted by p the cumulative
			// weights are 0.3679, 0.9246, 1.6895 > 1.3447: 0.8. The
			// plain median is (0.2 + 0.8)/2 = 0.5.
			"four: the newer forecasts win",
			[]pool.Forecast{{P: 0.8, At: at(2)}, {P: 0.1, At: at(0)}, {P: 0.9, At: at(3)}, {P: 0.2, At: at(1)}}, pool.Options{}, 0.8,
		},
		{
			// By time: 0.9, 0.8, 0.2, 0.1. Sorted: 0.1 weighs 1, 0.2
			// brings 1.7649 > 1.3447: 0.2.
			"four, the other way in time",
			[]pool.Forecast{{P: 0.1, At: at(3)}, {P: 0.9, At: at(0)}, {P: 0.2, At: at(2)}, {P: 0.8, At: at(1)}}, pool.Options{}, 0.2,
		},
		{
			// The same time: slice order is time order, as in "four: the
			// newer forecasts win".
			"ties in time keep the slice order",
			[]pool.Forecast{{P: 0.1, At: at(7)}, {P: 0.2, At: at(7)}, {P: 0.8, At: at(7)}, {P: 0.9, At: at(7)}}, pool.Options{}, 0.8,
		},
		{
			// No times: slice order, as in "four, the other way in time".
			"no times keep the slice order",
			[]pool.Forecast{{P: 0.9}, {P: 0.8}, {P: 0.2}, {P: 0.1}}, pool.Options{}, 0.2,
		},
		{
			// The forecast without a time is the oldest: by time 0.1,
			// 0.2, 0.8, 0.9, so 0.8. Were it the newest, 0.1 would weigh
			// 1 and 0.2 bring 1.3679 > 1.3447: 0.2.
			"the zero time is the oldest",
			[]pool.Forecast{{P: 0.2, At: at(0)}, {P: 0.8, At: at(1)}, {P: 0.1}, {P: 0.9, At: at(2)}}, pool.Options{}, 0.8,
		},
		{
			// The forecast of weight 0 is left out before numbering: N =
			// 2, unweighted, (0.1 + 0.9)/2. Counted as the 2nd of 3, the
			// weights of 0.1 and 0.9 would be 0.4809 and 1, median 0.9.
			"weight 0 is not numbered",
			[]pool.Forecast{{P: 0.1, At: at(0)}, {P: 0.5, At: at(1), Weight: new(0.0)}, {P: 0.9, At: at(2)}}, pool.Options{}, 0.5,
		},
		{
			// Not clipped: by time 0, 1, 1; sorted, 0 weighs 0.4809 and
			// the first 1 brings 1.2086 > 1.1043: exactly 1.
			"0 and 1 as given",
			[]pool.Forecast{{P: 0, At: at(0)}, {P: 1, At: at(1)}, {P: 1, At: at(2)}}, pool.Options{}, 1,
		},
		{
			"equal forecasts",
			[]pool.Forecast{{P: 0.35, At: at(0)}, {P: 0.35, At: at(1)}, {P: 0.35, At: at(2)}}, pool.Options{}, 0.35,
		},
		{
			// 0.8 as in "four: the newer forecasts win"; odds 4, squared
			// 16: 16/17.
			"extremize on top",
			[]pool.Forecast{{P: 0.8, At: at(2)}, {P: 0.1, At: at(0)}, {P: 0.9, At: at(3)}, {P: 0.2, At: at(1)}}, pool.Options{Extremize: 2}, 16.0 / 17,
		},
	}
	checkTimed(t, pool.Recency, func(r pool.Result) float64 { return r.Recency }, tests)
}

// TestSkill checks the skill pool against values worked by hand: the
// log-odds of the clipped probabilities averaged with weights Weight ·
// e^(√n − √N) · e^(8·skill/100), times 1.2 from 3 forecasts on.
func TestSkill(t *testing.T) {
	// L3 is the mean log-odds of 0.2, 0.5, 0.9, in that order in time,
	// with skills 0, 0 and 10: weights 0.4809, 0.7277, e^0.8 ≈ 2.2255;
	// L3 ≈ (−0.6667 + 0 + 4.8900)/3.4341 ≈ 1.2298.
	e8 := math.Exp(0.8)
	l3 := (-r31*ln4 + e8*ln9) / (r31 + r32 + e8)
	// L0 is the same without skills: (−0.4809·ln 4 + ln 9)/2.2086 ≈ 0.6930.
	l0 := (-r31*ln4 + ln9) / (r31 + r32 + 1)
	tests := []timedCase{
		{"one forecast", []pool.Forecast{{P: 0.7, At: at(0), Skill: new(50.0)}}, pool.Options{}, 0.7},
		{
			// N = 2: no recency weights and no extremizing; skills 0 and
			// 10 weigh 1 and e^0.8: (−ln 4 + e^0.8·ln 1.5)/(1 + e^0.8) ≈
			// −0.1500, p ≈ 0.4626.
			"two: skill weighs, not time",
			[]pool.Forecast{{P: 0.6, At: at(1), Skill: new(10.0)}, {P: 0.2, At: at(0)}}, pool.Options{},
			logistic((-ln4 + e8*math.Log(1.5)) / (1 + e8)),
		},
		{
			// 1.2·L3 ≈ 1.4758: p ≈ 0.8139.
			"three: recency, skill, extremized",
			[]pool.Forecast{{P: 0.9, At: at(2), Skill: new(10.0)}, {P: 0.2, At: at(0)}, {P: 0.5, At: at(1), Skill: new(0.0)}}, pool.Options{},
			logistic(1.2 * l3),
		},
		{
			"skill 0 is no skill",
			[]pool.Forecast{{P: 0.9, At: at(2), Skill: new(10.0)}, {P: 0.2, At: at(0), Skill: new(0.0)}, {P: 0.5, At: at(1)}}, pool.Options{},
			logistic(1.2 * l3),
		},
		{
			// 1.2·L0 ≈ 0.8316: p ≈ 0.6967.
			"no skills: recency alone",
			[]pool.Forecast{{P: 0.2, At: at(0)}, {P: 0.5, At: at(1)}, {P: 0.9, At: at(2)}}, pool.Options{},
			logistic(1.2 * l0),
		},
		{
			// The same skill for all cancels out, even at the bound, with
			// tiny weights: e^(−80) · 1e-300 each, as no skills.
			"equal skills at the bound, tiny weights",
			[]pool.Forecast{
				{P: 0.2, At: at(0), Skill: new(-pool.MaxSkill), Weight: new(1e-300)},
				{P: 0.5, At: at(1), Skill: new(-pool.MaxSkill), Weight: new(1e-300)},
				{P: 0.9, At: at(2), Skill: new(-pool.MaxSkill), Weight: new(1e-300)},
			}, pool.Options{},
			logistic(1.2 * l0),
		},
		{
			// Skills ±1000 weigh e^±80: the others weigh e^−160 of the
			// newest, nothing at this precision: 9^1.2/(1 + 9^1.2).
			"huge skill on the newest",
			[]pool.Forecast{{P: 0.2, At: at(0), Skill: new(-1000.0)}, {P: 0.5, At: at(1), Skill: new(-1000.0)}, {P: 0.9, At: at(2), Skill: new(1000.0)}}, pool.Options{},
			math.Pow(9, 1.2) / (1 + math.Pow(9, 1.2)),
		},
		{
			// The oldest, with e^(1−√3) of the recency weight, still
			// outweighs by e^160: (1/4)^1.2/(1 + (1/4)^1.2).
			"huge skill on the oldest",
			[]pool.Forecast{{P: 0.2, At: at(0), Skill: new(1000.0)}, {P: 0.5, At: at(1), Skill: new(-1000.0)}, {P: 0.9, At: at(2), Skill: new(-1000.0)}}, pool.Options{},
			math.Pow(0.25, 1.2) / (1 + math.Pow(0.25, 1.2)),
		},
		{
			// A weight of 1e-300 and skill −1000 against weight 1 and
			// skill 1000: the first weighs e^(−690.8−160), which
			// underflows and is kept as the smallest positive float.
			"underflowing weight",
			[]pool.Forecast{{P: 0.2, At: at(0), Skill: new(-1000.0), Weight: new(1e-300)}, {P: 0.9, At: at(1), Skill: new(1000.0)}}, pool.Options{},
			0.9,
		},
		{
			// Same time: slice order, as in "no skills: recency alone".
			"ties in time keep the slice order",
			[]pool.Forecast{{P: 0.2, At: at(3)}, {P: 0.5, At: at(3)}, {P: 0.9, At: at(3)}}, pool.Options{},
			logistic(1.2 * l0),
		},
		{
			// Slice order 0.9, 0.5, 0.2: weights 0.4809, 0.7277, 1;
			// (0.4809·ln 9 − ln 4)/2.2086 ≈ −0.1884, times 1.2: p ≈ 0.4436.
			"no times keep the slice order",
			[]pool.Forecast{{P: 0.9}, {P: 0.5}, {P: 0.2}}, pool.Options{},
			logistic(1.2 * (r31*ln9 - ln4) / (r31 + r32 + 1)),
		},
		{
			// Clipped to 0.001, 0.001, 0.999: log-odds −ln 999, −ln 999,
			// ln 999; (1 − 0.4809 − 0.7277)·ln 999/2.2086 ≈ −0.6525,
			// times 1.2: p ≈ 0.3137.
			"0 and 1 clipped",
			[]pool.Forecast{{P: 0, At: at(0)}, {P: 0, At: at(1)}, {P: 1, At: at(2)}}, pool.Options{},
			logistic(1.2 * (1 - r31 - r32) * math.Log(999) / (r31 + r32 + 1)),
		},
		{
			// N = 2 once the weight-0 forecast is left out: unweighted,
			// not extremized; (−ln 4 + ln 9)/2 = ln 1.5: exactly 0.6.
			"weight 0 is not numbered",
			[]pool.Forecast{{P: 0.2, At: at(0)}, {P: 0.5, At: at(1), Weight: new(0.0), Skill: new(90.0)}, {P: 0.9, At: at(2)}}, pool.Options{},
			0.6,
		},
		{
			// The weight multiplies: 3·0.4809 for the oldest.
			"weights multiply",
			[]pool.Forecast{{P: 0.2, At: at(0), Weight: new(3.0)}, {P: 0.5, At: at(1)}, {P: 0.9, At: at(2)}}, pool.Options{},
			logistic(1.2 * (-3*r31*ln4 + ln9) / (3*r31 + r32 + 1)),
		},
		{
			// Odds 7/13, to the power 1.2.
			"equal forecasts",
			[]pool.Forecast{{P: 0.35, At: at(0)}, {P: 0.35, At: at(1)}, {P: 0.35, At: at(2)}}, pool.Options{},
			math.Pow(7.0/13, 1.2) / (1 + math.Pow(7.0/13, 1.2)),
		},
		{
			// Extremize 1.5 after the pool's own 1.2: 1.8·L3, p ≈ 0.9015.
			"extremize on top",
			[]pool.Forecast{{P: 0.9, At: at(2), Skill: new(10.0)}, {P: 0.2, At: at(0)}, {P: 0.5, At: at(1)}}, pool.Options{Extremize: 1.5},
			logistic(1.5 * 1.2 * l3),
		},
	}
	checkTimed(t, pool.Skill, func(r pool.Result) float64 { return r.Skill }, tests)
}

func TestTimedErrors(t *testing.T) {
	tests := []struct {
		name  string
		fs    []pool.Forecast
		want  error
		index int // of the *ForecastError; -1 when none
		text  string
	}{
		{"no forecasts, recency", nil, pool.ErrNoForecasts, -1, ""},
		{"skill beyond the bound", []pool.Forecast{{P: 0.5}, {Who: "bob", P: 0.6, Skill: new(1000.5)}}, pool.ErrSkill, 1,
			`pool: forecasts[1] ("bob"): skill = 1000.5 must be a finite number from -1000 to 1000 (peer-score points per question; leave it out for no evidence)`},
		{"skill below the bound", []pool.Forecast{{P: 0.5, Skill: new(-1e9)}}, pool.ErrSkill, 0, ""},
		{"skill NaN", []pool.Forecast{{P: 0.5}, {P: 0.5}, {P: 0.5, Skill: new(math.NaN())}}, pool.ErrSkill, 2, ""},
		{"skill +Inf", []pool.Forecast{{P: 0.5, Skill: new(math.Inf(1))}}, pool.ErrSkill, 0, ""},
		{"skill -Inf", []pool.Forecast{{P: 0.5, Skill: new(math.Inf(-1))}}, pool.ErrSkill, 0, ""},
		// Every forecast is checked, those left out too.
		{"skill of a forecast of weight 0", []pool.Forecast{{P: 0.5}, {P: 0.5, Weight: new(0.0), Skill: new(2000.0)}}, pool.ErrSkill, 1, ""},
	}
	for _, method := range []pool.Method{pool.Recency, pool.Skill} {
		for _, tt := range tests {
			t.Run(string(method)+"/"+tt.name, func(t *testing.T) {
				_, err := pool.Combine(tt.fs, pool.Options{Method: method})
				if !errors.Is(err, tt.want) {
					t.Fatalf("Combine error = %v, want %v", err, tt.want)
				}
				var fe *pool.ForecastError
				if errors.As(err, &fe) != (tt.index >= 0) {
					t.Fatalf("Combine error %T %v: ForecastError wanted = %v", err, err, tt.index >= 0)
				}
				if fe != nil && (fe.Index != tt.index || fe.Field != "skill") {
					t.Errorf("ForecastError index, field = %d, %q; want %d, \"skill\"", fe.Index, fe.Field, tt.index)
				}
				if tt.text != "" && err.Error() != tt.text {
					t.Errorf("error = %s\nwant    %s", err, tt.text)
				}
			})
		}
	}
}

// TestTimedPoolsPermutation: forecasts each with a time of its own pool
// to the same Recency and Skill in any order of the slice.
func TestTimedPoolsPermutation(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for trial := range 300 {
		n := 1 + r.IntN(30)
		fs := make([]pool.Forecast, n)
		for i, m := range r.Perm(n) {
			fs[i] = pool.Forecast{P: r.Float64(), At: at(m)}
			if r.IntN(3) == 0 {
				fs[i].P = float64(r.IntN(2))
			}
			if r.IntN(2) == 0 {
				fs[i].Weight = new(float64(r.IntN(4)))
			}
			if r.IntN(2) == 0 {
				fs[i].Skill = new(40*r.Float64() - 20)
			}
		}
		want, err := pool.Combine(fs, pool.Options{})
		if errors.Is(err, pool.ErrAllExcluded) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		r.Shuffle(n, func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
		got, err := pool.Combine(fs, pool.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Recency != want.Recency || got.Skill != want.Skill {
			t.Fatalf("trial %d: shuffled Recency, Skill = %v, %v; want %v, %v", trial, got.Recency, got.Skill, want.Recency, want.Skill)
		}
	}
}

// A Standing keeps neither times nor skills: its Recency and Skill are 0.
func TestStandingLeavesTimedPoolsZero(t *testing.T) {
	var s pool.Standing
	for who, p := range map[string]float64{"a": 0.2, "b": 0.5, "c": 0.9} {
		if err := s.Set(who, p); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Recency != 0 || res.Skill != 0 {
		t.Errorf("Standing's Recency, Skill = %v, %v; want 0, 0", res.Recency, res.Skill)
	}
}

// FuzzTimedPools: whatever the probabilities, weights, skills, times and
// extremizing, Recency and Skill are numbers in [0, 1] (Recency between
// the lowest and highest forecast), and the errors are the package's own.
func FuzzTimedPools(f *testing.F) {
	f.Add(0.2, 0.5, 0.9, 1.0, 0.0, 10.0, -10.0, int64(0), int64(60), int64(-60), 1.0)
	f.Add(0.0, 1.0, 1.0, 1e-300, 1000.0, -1000.0, 1000.0, int64(5), int64(5), int64(5), 3.0)
	f.Add(1.0, 0.0, 0.5, math.MaxFloat64, -1000.0, 1000.0, 0.0, int64(math.MinInt64), int64(math.MaxInt64), int64(0), 1.2)
	f.Add(0.5, 0.5, math.NaN(), -1.0, math.Inf(1), math.NaN(), 1e308, int64(1), int64(2), int64(3), 0.5)
	f.Fuzz(func(t *testing.T, p1, p2, p3, w1, s1, s2, s3 float64, d1, d2, d3 int64, k float64) {
		fs := []pool.Forecast{
			{P: p1, Weight: new(w1), Skill: new(s1), At: t0.Add(time.Duration(d1))},
			{P: p2, Skill: new(s2), At: t0.Add(time.Duration(d2))},
			{P: p3, Skill: new(s3), At: t0.Add(time.Duration(d3))},
		}
		for _, method := range []pool.Method{pool.Recency, pool.Skill} {
			res, err := pool.Combine(fs, pool.Options{Method: method, Extremize: k})
			if err != nil {
				for _, e := range []error{pool.ErrProbability, pool.ErrWeight, pool.ErrSkill, pool.ErrExtremize} {
					if errors.Is(err, e) {
						return
					}
				}
				t.Fatalf("unexpected error %v", err)
			}
			for _, v := range []float64{res.Recency, res.Skill, res.P} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
					t.Fatalf("%s: result not in [0, 1]: %+v", method, res)
				}
			}
			if k <= 1 && (res.Recency < res.Low || res.Recency > res.High) {
				t.Fatalf("recency %v outside [%v, %v]", res.Recency, res.Low, res.High)
			}
		}
	})
}
