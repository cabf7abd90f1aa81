package pool

import (
	"math"
	"slices"
)

// The constants of the [Skill] pool. They were chosen on the earlier half
// of PredictionBook's resolved questions only (the evaluation in
// docs/POOLS.md gives the command and its output); the later half is kept
// to check them.
const (
	// SkillBeta scales a forecaster's skill into its weight:
	// exp(SkillBeta · skill / 100), so a skill of +10 peer-score points per
	// question weighs e^0.8 ≈ 2.2 times a forecaster with none.
	SkillBeta = 8.0
	// SkillExtremize multiplies the pooled log-odds once at least
	// [SkillExtremizeMin] forecasts are pooled: forecasters who share
	// evidence each under-use what the others know, so their pool is too
	// timid (Satopää et al. 2014; Baron et al. 2014).
	SkillExtremize = 1.2
	// SkillExtremizeMin is the fewest forecasts the pool extremizes; with
	// one or two there is no crowd to correct for.
	SkillExtremizeMin = 3
	// MaxSkill bounds |Forecast.Skill|: a peer score is at most about 690
	// points on one question (100 · ln(0.999/0.001)), so a skill estimate
	// never comes near it.
	MaxSkill = 1000.0
)

// byTime returns the items ordered by At, ties keeping their order.
func byTime(items []item) []item {
	o := slices.Clone(items)
	slices.SortStableFunc(o, func(a, b item) int { return a.at.Compare(b.at) })
	return o
}

// recencyLogWeight is the log of Metaculus's recency weight of the n-th of
// N forecasts in time order (n from 1): √n − √N, and 0 (equal weights)
// when N ≤ 2 (Metaculus/metaculus, utils/the_math/aggregations.py,
// generate_recency_weights).
func recencyLogWeight(n, total int) float64 {
	if total <= 2 {
		return 0
	}
	return math.Sqrt(float64(n)) - math.Sqrt(float64(total))
}

// recency is Metaculus's community prediction of items: the weighted
// median (weightedMedian) with each item's weight times its recency
// weight.
func recency(items []item) float64 {
	o := byTime(items)
	logs := make([]float64, len(o))
	for i, it := range o {
		logs[i] = math.Log(it.w) + recencyLogWeight(i+1, len(o))
	}
	total := normalise(o, logs)
	return weightedMedian(o, total)
}

// skillPool is the [Skill] pool of items: the mean of the clipped
// log-odds, each weighted by its weight, its recency weight and
// exp(SkillBeta · skill / 100), multiplied by skillExtremize.
func skillPool(items []item) float64 {
	o := byTime(items)
	logs := make([]float64, len(o))
	for i, it := range o {
		logs[i] = math.Log(it.w) + recencyLogWeight(i+1, len(o)) + SkillBeta*it.skill/100
	}
	total := normalise(o, logs)
	var sum float64
	for _, it := range o {
		sum += it.w * logit(clip(it.p))
	}
	return extremize(logistic(sum/total), skillExtremize(len(o)))
}

// skillExtremize is the factor the [Skill] pool applies to n forecasts.
func skillExtremize(n int) float64 {
	if n < SkillExtremizeMin {
		return 1
	}
	return SkillExtremize
}

// normalise sets each item's weight to exp(logs[i] − max(logs)), so the
// largest is 1 and none overflows, and returns their sum.
func normalise(items []item, logs []float64) float64 {
	top := slices.Max(logs)
	var total float64
	for i := range items {
		items[i].w = math.Exp(logs[i] - top)
		if items[i].w == 0 { // underflow: keep it, barely, as Combine does
			items[i].w = math.SmallestNonzeroFloat64
		}
		total += items[i].w
	}
	return total
}
