package pool

import "math"

// The board's disagreement flag: the measure a board that pools its
// agents' standing forecasts uses to mark a question as divided. [Combine]
// and the tools keep their own flag ([Result.Disagree], the highest minus
// the lowest forecast against [Options.DisagreePts], as DECISIONS.md
// says), since their caller chooses the threshold for a handful of
// forecasts it knows.
const (
	// MiddleDisagreePts is the spread of the middle half, in percentage
	// points, above which [MiddleDisagree] flags a question.
	MiddleDisagreePts = 20.0
	// MiddleMinForecasts is the fewest standing forecasts [MiddleDisagree]
	// flags: with three or fewer, each quartile lies between an extreme
	// forecast and its neighbour, so one outlier decides the flag, which
	// is the fault of the highest-minus-lowest rule this measure replaces.
	MiddleMinForecasts = 4
)

// MiddleSpreadPts returns the spread of the middle half of the forecasts
// sorted (ascending, as [slices.Sort] leaves them), in percentage points:
// the interquartile range Q3 − Q1, each quartile by linear interpolation
// between the order statistics (Hyndman and Fan 1996, "Sample quantiles
// in statistical packages", definition 7; R's and NumPy's default): with
// h = q·(n−1), Q(q) = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]), counting
// from 0. It is rounded to 9 decimal places, as [Result.SpreadPts] is, so
// that float noise does not cross a threshold. Fewer than two forecasts
// have a spread of 0. Unsorted input gives a meaningless number.
func MiddleSpreadPts(sorted []float64) float64 {
	n := len(sorted)
	if n < 2 {
		return 0
	}
	quantile := func(q float64) float64 {
		h := q * float64(n-1) // exact: q is 1/4 or 3/4 and n small
		i := int(h)
		if i >= n-1 {
			return sorted[n-1]
		}
		return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
	}
	return math.Round((quantile(0.75)-quantile(0.25))*100*1e9) / 1e9
}

// MiddleDisagree is the board's disagreement flag over the standing
// forecasts sorted (ascending): at least [MiddleMinForecasts] of them, and
// their middle half ([MiddleSpreadPts]) spanning strictly more than
// [MiddleDisagreePts] points. The highest minus the lowest, which
// [Combine] flags above 20 points, marks nearly every question once a few
// forecasters sit at the ends (one forecast of 5% among ten near 60% is a
// spread of 55 points); the middle half leaves out the quarter at each end,
// so it marks a question only when the bulk of its forecasters are split.
func MiddleDisagree(sorted []float64) bool {
	return len(sorted) >= MiddleMinForecasts && MiddleSpreadPts(sorted) > MiddleDisagreePts
}

// MiddleSpreadPts is [MiddleSpreadPts] of the standing forecasts, kept
// sorted by [Standing.Set], so it costs a few steps whatever their number.
func (s *Standing) MiddleSpreadPts() float64 { return MiddleSpreadPts(s.sorted) }

// MiddleDisagree is [MiddleDisagree] of the standing forecasts.
func (s *Standing) MiddleDisagree() bool { return MiddleDisagree(s.sorted) }
