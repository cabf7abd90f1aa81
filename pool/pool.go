package pool

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Method names one way of pooling forecasts. The string values are the ones
// the tools accept and return.
type Method string

// The pooling methods. The zero value "" of [Method] means [GeoOdds].
const (
	GeoOdds Method = "geo_odds" // geometric mean of odds (weighted mean of log-odds)
	Mean    Method = "mean"     // weighted arithmetic mean of probabilities
	Median  Method = "median"   // weighted median of probabilities
	Recency Method = "recency"  // Metaculus's community prediction: recency-weighted median
	Skill   Method = "skill"    // log-odds weighted by recency and skill, extremized
)

// Methods returns the pooling methods in the order the tools list them.
func Methods() []Method { return []Method{GeoOdds, Mean, Median, Recency, Skill} }

// ParseMethod reads a method name, ignoring case and surrounding spaces. An
// empty string gives [GeoOdds]. Anything else wraps [ErrMethod].
func ParseMethod(s string) (Method, error) {
	m := Method(strings.ToLower(strings.TrimSpace(s)))
	if m == "" {
		return GeoOdds, nil
	}
	if slices.Contains(Methods(), m) {
		return m, nil
	}
	return "", fmt.Errorf("%w %q: use geo_odds, mean, median, recency or skill", ErrMethod, s)
}

// Clipping bounds for probabilities where odds are needed (DECISIONS.md:
// [0.1%, 99.9%]).
const (
	ClipLow  = 0.001
	ClipHigh = 0.999
)

// DefaultDisagreePts is the disagreement threshold, in percentage points,
// used when [Options.DisagreePts] is nil.
const DefaultDisagreePts = 20.0

// Forecast is one forecaster's probability for the question.
type Forecast struct {
	// Who made the forecast; optional, used only in notes and errors.
	Who string `json:"who,omitempty"`
	// P is the probability of yes, in [0, 1].
	P float64 `json:"p"`
	// Weight is the forecast's relative weight. nil means 1; 0 leaves the
	// forecast out; negative is an error.
	Weight *float64 `json:"weight,omitempty"`
	// At is when the forecast was made; [Recency] and [Skill] order the
	// forecasts by it (the zero time is the earliest; ties keep the
	// order of the slice). The other methods ignore it.
	At time.Time `json:"at,omitzero"`
	// Skill is the forecaster's skill known when pooling, in peer-score
	// points per question (package scoring's Skill.Estimate);
	// nil means 0, no evidence. Only [Skill] uses it. Its magnitude must
	// be at most [MaxSkill].
	Skill *float64 `json:"skill,omitempty"`
}

// Options tune [Combine]. The zero value pools by geometric mean of odds,
// without extremizing, with a disagreement threshold of 20 points.
type Options struct {
	// Method chooses the leading result, copied to [Result.P]. "" means
	// [GeoOdds]. All five results are computed whatever it says.
	Method Method
	// Extremize multiplies the pooled log-odds of every result; it must
	// be at least 1. 0 (the zero value) and 1 mean no extremizing. The
	// [Skill] pool's own factor, [SkillExtremize], applies first.
	Extremize float64
	// DisagreePts is the spread, in percentage points, above which
	// [Result.Disagree] is set. nil means [DefaultDisagreePts]; a pointer
	// to 0 flags any spread. Negative or NaN is an error.
	DisagreePts *float64
}

// Result is the pooled forecast. Every probability is in [0, 1]; no field
// is NaN or infinite.
type Result struct {
	// GeoOdds is the geometric mean of odds as a probability.
	GeoOdds float64 `json:"geo_odds"`
	// Mean is the weighted mean of the probabilities.
	Mean float64 `json:"mean"`
	// Median is the weighted median of the probabilities.
	Median float64 `json:"median"`
	// Recency is Metaculus's community prediction: the median weighted by
	// recency (see the package documentation).
	Recency float64 `json:"recency"`
	// Skill is the mean of the log-odds weighted by recency and skill,
	// extremized (see the package documentation).
	Skill float64 `json:"skill"`
	// Method is the leading method; P is its result.
	Method Method  `json:"method"`
	P      float64 `json:"p"`
	// Extremize is the factor applied (1 when none).
	Extremize float64 `json:"extremize"`
	// Low and High are the lowest and highest included probabilities.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// SpreadPts is High − Low in percentage points (rounded to 9 decimals).
	SpreadPts float64 `json:"spread_pts"`
	// DisagreePts is the threshold used; Disagree is SpreadPts > DisagreePts.
	DisagreePts float64 `json:"disagree_pts"`
	Disagree    bool    `json:"disagree"`
	// N counts the forecasts included (weight > 0); Excluded those with
	// weight 0.
	N        int `json:"n"`
	Excluded int `json:"excluded"`
	// Notes name clipped and excluded forecasts. Never nil.
	Notes []string `json:"notes"`
}

// Errors returned by [Combine] and [ParseMethod]; test with errors.Is.
var (
	ErrNoForecasts = errors.New("pool: no forecasts: give at least one forecast")
	ErrProbability = errors.New("pool: probability outside [0, 1]")
	ErrWeight      = errors.New("pool: weight is negative or not a number")
	ErrAllExcluded = errors.New("pool: every weight is 0: give at least one forecast a weight above 0")
	ErrMethod      = errors.New("pool: unknown method")
	ErrExtremize   = errors.New("pool: extremize must be at least 1 (0 or 1 for none)")
	ErrDisagreePts = errors.New("pool: disagree_pts must be 0 or more")
	ErrSkill       = errors.New("pool: skill is not a finite number within the bound")
)

// ForecastError reports a bad forecast. Index is its 0-based position in
// the slice given to [Combine] (-1 from [Standing.Set]); Field is "p",
// "weight" or "skill"; Err is [ErrProbability], [ErrWeight] or [ErrSkill].
type ForecastError struct {
	Index int
	Who   string
	Field string
	Value float64
	Err   error
}

// Error names the forecast, says what is wrong and how to fix it.
func (e *ForecastError) Error() string {
	which := fmt.Sprintf("forecasts[%d]%s", e.Index, whoSuffix(e.Who))
	if e.Index < 0 { // from Standing.Set, which has no slice
		which = fmt.Sprintf("forecast of %q", e.Who)
	}
	switch {
	case errors.Is(e.Err, ErrProbability):
		return fmt.Sprintf("pool: %s: p = %v is not a probability in [0, 1]: write 70%% as 0.7", which, e.Value)
	case errors.Is(e.Err, ErrWeight):
		return fmt.Sprintf("pool: %s: weight = %v must be a finite number, 0 or more (0 leaves the forecast out)", which, e.Value)
	case errors.Is(e.Err, ErrSkill):
		return fmt.Sprintf("pool: %s: skill = %v must be a finite number from %v to %v (peer-score points per question; leave it out for no evidence)", which, e.Value, -MaxSkill, MaxSkill)
	}
	return fmt.Sprintf("pool: %s: %s = %v: %v", which, e.Field, e.Value, e.Err)
}

// Unwrap returns Err, so that errors.Is(err, ErrProbability) and the like hold.
func (e *ForecastError) Unwrap() error { return e.Err }

// item is an included forecast with its normalised weight, its time and
// its forecaster's skill.
type item struct {
	p, w  float64
	at    time.Time
	skill float64
}

// halfTol is the relative tolerance within which a cumulative weight counts
// as hitting exactly half the total in the weighted median.
const halfTol = 1e-12

// Combine pools forecasts by every method and reports the spread. See the
// package documentation for the rules. Errors: [ErrNoForecasts],
// [*ForecastError] (wrapping [ErrProbability], [ErrWeight] or [ErrSkill]),
// [ErrAllExcluded], [ErrMethod], [ErrExtremize], [ErrDisagreePts].
func Combine(forecasts []Forecast, opt Options) (Result, error) {
	method, err := ParseMethod(string(opt.Method))
	if err != nil {
		return Result{}, err
	}
	k := opt.Extremize
	if k == 0 {
		k = 1
	}
	if math.IsNaN(k) || math.IsInf(k, 0) || k < 1 {
		return Result{}, fmt.Errorf("%w: got %v; try 1.5", ErrExtremize, opt.Extremize)
	}
	threshold := DefaultDisagreePts
	if opt.DisagreePts != nil {
		threshold = *opt.DisagreePts
		if math.IsNaN(threshold) || threshold < 0 {
			return Result{}, fmt.Errorf("%w: got %v; try 20", ErrDisagreePts, threshold)
		}
	}
	if len(forecasts) == 0 {
		return Result{}, ErrNoForecasts
	}

	// Validate everything first, so the first bad forecast is reported
	// whatever the weights.
	maxW := 0.0
	for i, f := range forecasts {
		if math.IsNaN(f.P) || f.P < 0 || f.P > 1 {
			return Result{}, &ForecastError{Index: i, Who: f.Who, Field: "p", Value: f.P, Err: ErrProbability}
		}
		w := 1.0
		if f.Weight != nil {
			w = *f.Weight
		}
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return Result{}, &ForecastError{Index: i, Who: f.Who, Field: "weight", Value: w, Err: ErrWeight}
		}
		if f.Skill != nil && !(math.Abs(*f.Skill) <= MaxSkill) {
			return Result{}, &ForecastError{Index: i, Who: f.Who, Field: "skill", Value: *f.Skill, Err: ErrSkill}
		}
		maxW = max(maxW, w)
	}
	if maxW == 0 {
		return Result{}, ErrAllExcluded
	}

	res := Result{Method: method, Extremize: k, DisagreePts: threshold, Notes: []string{}}
	items := make([]item, 0, len(forecasts))
	var sumW, sumWP, sumWL float64
	low, high := math.Inf(1), math.Inf(-1)
	for i, f := range forecasts {
		w := 1.0
		if f.Weight != nil {
			w = *f.Weight
		}
		if w == 0 {
			res.Excluded++
			res.Notes = append(res.Notes, fmt.Sprintf("forecasts[%d]%s has weight 0 and was left out", i, whoSuffix(f.Who)))
			continue
		}
		// Dividing by the largest weight keeps sums finite for huge weights.
		w /= maxW
		if w == 0 { // underflow of a tiny positive weight: keep it, barely.
			w = math.SmallestNonzeroFloat64
		}
		it := item{p: f.P, w: w, at: f.At}
		if f.Skill != nil {
			it.skill = *f.Skill
		}
		items = append(items, it)
		sumW += w
		sumWP += w * f.P
		c := clip(f.P)
		if c != f.P {
			res.Notes = append(res.Notes, fmt.Sprintf("forecasts[%d]%s: p = %v clipped to %v for the geometric mean of odds (odds of 0 or 1 are infinite)", i, whoSuffix(f.Who), f.P, c))
		}
		sumWL += w * logit(c)
		low, high = min(low, f.P), max(high, f.P)
	}
	res.N = len(items)
	res.Low, res.High = low, high

	res.GeoOdds = extremize(logistic(sumWL/sumW), k)
	res.Mean = extremize(clamp01(sumWP/sumW), k)
	// Recency and Skill before the median: weightedMedian sorts items in
	// place, and the two take the slice order for forecasts made at the
	// same time.
	res.Recency = extremize(recency(items), k)
	res.Skill = extremize(skillPool(items), k)
	res.Median = extremize(weightedMedian(items, sumW), k)
	if same := items[0].p; allEqual(items) {
		// Pooling identical forecasts returns that forecast exactly, by
		// every method (the sums above round: ten of 0.01 gave
		// 0.009999999999999941); extremizing still applies.
		res.GeoOdds = extremize(clip(same), k)
		res.Mean = extremize(same, k)
		res.Median = extremize(same, k)
		res.Recency = extremize(same, k)
		res.Skill = extremize(extremize(clip(same), skillExtremize(len(items))), k)
	}
	switch method {
	case Mean:
		res.P = res.Mean
	case Median:
		res.P = res.Median
	case Recency:
		res.P = res.Recency
	case Skill:
		res.P = res.Skill
	default:
		res.P = res.GeoOdds
	}
	if k != 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("every pooled result extremized: log-odds multiplied by %v", k))
	}

	res.SpreadPts = math.Round((high-low)*100*1e9) / 1e9
	res.Disagree = res.SpreadPts > threshold
	return res, nil
}

func whoSuffix(who string) string {
	if who == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", who)
}

// weightedMedian implements the Metaculus rule described in the package
// documentation. items must be non-empty with positive weights summing to
// total; it is sorted in place.
func weightedMedian(items []item, total float64) float64 {
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.p < b.p:
			return -1
		case a.p > b.p:
			return 1
		}
		return 0
	})
	half := total / 2
	tol := total * halfTol
	lowIdx, highIdx := -1, len(items)-1
	cum := 0.0
	for i, it := range items {
		cum += it.w
		if lowIdx < 0 && cum >= half-tol {
			lowIdx = i
		}
		if cum > half+tol {
			highIdx = i
			break
		}
	}
	if lowIdx < 0 { // unreachable with positive weights; be safe
		lowIdx = len(items) - 1
	}
	// Halving is exact, so the sum of the halves is the midpoint rounded
	// once; (a + b) / 2 would round the sum first.
	return items[lowIdx].p/2 + items[highIdx].p/2
}

// allEqual reports whether every item has the same p.
func allEqual(items []item) bool {
	for _, it := range items[1:] {
		if it.p != items[0].p {
			return false
		}
	}
	return true
}

// logit is the natural log-odds; p must be in (0, 1). Next to 1/2 it is
// log1p((2p-1)/(1-p)), where 2p-1 is exact for p >= 1/4 (Sterbenz), so the
// relative error stays a few ulps where log(p/(1-p)) loses every digit
// (0.5000000001 gave 4.00000033e-10 for 4.0e-10).
func logit(p float64) float64 {
	if p >= 0.25 && p <= 0.75 {
		return math.Log1p((2*p - 1) / (1 - p))
	}
	return math.Log(p) - math.Log1p(-p)
}

// logistic is the inverse of logit; ±Inf map to 1 and 0.
func logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// extremize multiplies the log-odds of p by k; 0 and 1 stay fixed.
func extremize(p, k float64) float64 {
	if k == 1 || p <= 0 || p >= 1 {
		return p
	}
	return logistic(k * logit(p))
}

func clamp01(p float64) float64 { return min(max(p, 0), 1) }
