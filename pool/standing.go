package pool

import (
	"fmt"
	"math"
	"slices"
)

// Standing pools the standing forecasts of one question as they change:
// one forecast per forecaster, equal weights, no extremizing and the
// default disagreement threshold, which is what a board pools after every
// forecast. [Standing.Set] replaces a forecaster's forecast and
// [Standing.Result] pools the current set, each in time that does not
// grow with the number of forecasters but for moving one value in a
// sorted slice, so pooling after each of n forecasts costs about n steps
// instead of the n² of calling [Combine] on the whole set each time.
//
// Result is Combine's result on the same forecasts in any order, up to
// rounding, but for [Result.Recency] and [Result.Skill]: those need the
// forecasts' times and the forecasters' skills, which a Standing does not
// keep, so they are left 0 (call Combine with them for those pools). The
// median, the lowest and highest forecasts, the spread, the
// disagreement flag and N are exactly Combine's; the mean and the
// geometric mean of odds come from running sums (Neumaier's compensated
// summation, so they do not drift as forecasts are replaced) and may
// differ from Combine's, whose sums round in the order of its input, in
// the last bits. A store that keeps a pooled value which must equal
// Combine's exactly calls Combine once on the final set.
//
// The zero value is an empty pool, ready to use. A Standing is not safe
// for concurrent use.
type Standing struct {
	byWho   map[string]float64
	sorted  []float64 // the forecasts, ascending
	sumP    kahan     // Σ p
	sumL    kahan     // Σ logit(clip(p))
	clipped int       // forecasts of p outside [ClipLow, ClipHigh]
}

// Set makes p the standing forecast of who, replacing who's earlier one.
// A p outside [0, 1] (or NaN) is a *[ForecastError] wrapping
// [ErrProbability], with Index -1, and changes nothing.
func (s *Standing) Set(who string, p float64) error {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return &ForecastError{Index: -1, Who: who, Field: "p", Value: p, Err: ErrProbability}
	}
	if s.byWho == nil {
		s.byWho = map[string]float64{}
	}
	if old, ok := s.byWho[who]; ok {
		if old == p {
			return nil
		}
		i, _ := slices.BinarySearch(s.sorted, old)
		s.sorted = slices.Delete(s.sorted, i, i+1)
		s.sumP.add(-old)
		s.sumL.add(-logit(clip(old)))
		if clip(old) != old {
			s.clipped--
		}
	}
	s.byWho[who] = p
	i, _ := slices.BinarySearch(s.sorted, p)
	s.sorted = slices.Insert(s.sorted, i, p)
	s.sumP.add(p)
	s.sumL.add(logit(clip(p)))
	if clip(p) != p {
		s.clipped++
	}
	return nil
}

// Len returns the number of forecasters with a standing forecast.
func (s *Standing) Len() int { return len(s.sorted) }

// Result pools the standing forecasts as [Combine] with the zero
// [Options] does (see [Standing] for how exactly). Its notes say how many
// forecasts were clipped for the geometric mean of odds, without naming
// them. An empty pool is [ErrNoForecasts].
func (s *Standing) Result() (Result, error) {
	n := len(s.sorted)
	if n == 0 {
		return Result{}, ErrNoForecasts
	}
	low, high := s.sorted[0], s.sorted[n-1]
	res := Result{Method: GeoOdds, Extremize: 1, DisagreePts: DefaultDisagreePts, N: n, Low: low, High: high, Notes: []string{}}
	if low == high {
		// Identical forecasts pool to that forecast exactly, as in Combine.
		res.GeoOdds, res.Mean, res.Median = clip(low), low, low
	} else {
		res.GeoOdds = logistic(s.sumL.sum() / float64(n))
		res.Mean = clamp01(s.sumP.sum() / float64(n))
		// Equal weights: the middle value, or the two middle values
		// halved and added (as weightedMedian rounds them).
		res.Median = s.sorted[(n-1)/2]/2 + s.sorted[n/2]/2
	}
	res.P = res.GeoOdds
	if s.clipped > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d forecast(s) of 0 or 1 clipped into [%v, %v] for the geometric mean of odds (odds of 0 or 1 are infinite)", s.clipped, ClipLow, ClipHigh))
	}
	res.SpreadPts = math.Round((high-low)*100*1e9) / 1e9
	res.Disagree = res.SpreadPts > DefaultDisagreePts
	return res, nil
}

func clip(p float64) float64 { return min(max(p, ClipLow), ClipHigh) }

// kahan is a running sum with Neumaier's compensation (Neumaier 1974,
// "Rundungsfehleranalyse einiger Verfahren zur Summation endlicher
// Summen"): the rounding error of each addition is kept apart and added
// back at the end, so that adding and taking away the same values leaves
// no drift.
type kahan struct{ s, c float64 }

func (k *kahan) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }
