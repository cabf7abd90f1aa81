// Package pool combines several forecasts of one yes/no question into a
// single probability.
//
// [Combine] always computes five pools and reports all of them; the
// [Options.Method] field only says which one leads ([Result.P]):
//
//   - [GeoOdds]: the geometric mean of odds, that is the weighted mean of the
//     log-odds mapped back to a probability (Satopää et al. 2014; Sevilla,
//     "When pooling forecasts, use the geometric mean of odds", EA Forum 2021).
//     This is the default.
//   - [Mean]: the weighted arithmetic mean of the probabilities.
//   - [Median]: the weighted median of the probabilities, by the rule of the
//     Metaculus community prediction.
//   - [Recency]: Metaculus's Community Prediction, the weighted median with
//     the newer forecasts weighing more (see Recency below).
//   - [Skill]: the weighted mean of the log-odds with each forecast
//     weighing by its age and its forecaster's skill, extremized (see
//     Skill below).
//
// The first three ignore when a forecast was made and who made it;
// Recency and Skill read [Forecast.At] and Skill also [Forecast.Skill].
//
// A program that pools a team's three forecasts and checks whether they
// disagree:
//
//	package main
//
//	import (
//		"fmt"
//		"log"
//
//		"github.com/predictions-md/predictions/pool"
//	)
//
//	func main() {
//		res, err := pool.Combine([]pool.Forecast{
//			{Who: "agent:scout", P: 0.62},
//			{Who: "agent:skeptic", P: 0.30},
//			{Who: "person", P: 0.45},
//		}, pool.Options{}) // geometric mean of odds; flag above 20 points
//		if err != nil {
//			log.Fatal(err) // for example a *pool.ForecastError naming the forecast
//		}
//		fmt.Printf("pooled %.3f (mean %.3f, median %.3f)\n", res.P, res.Mean, res.Median)
//		fmt.Printf("spread %.0f points, disagree %v\n", res.SpreadPts, res.Disagree)
//	}
//
// It prints:
//
//	pooled 0.454 (mean 0.457, median 0.450)
//	spread 32 points, disagree true
//
// [Combine] is the one entry point; [Options] tune it and [Result] holds
// every pool, the spread and the notes. [Standing] keeps the pool of one
// question's standing forecasts up to date as forecasters add and replace
// theirs, for a store that pools after every forecast: Combine's result
// on the set, up to rounding in the last bits of the two means, at about
// one step a change instead of one a forecaster. The runnable program examples/pool
// in the repository reads forecasts from its arguments.
//
// # Weights
//
// [Forecast.Weight] is a pointer so that its zero value (nil) means weight 1:
// a plain []Forecast pools with equal weights. Weight 0 leaves the forecast
// out (it is counted in [Result.Excluded] and named in the notes), a negative,
// NaN or infinite weight is an error ([ErrWeight]), and all weights 0 is an
// error ([ErrAllExcluded]). Weights are relative: {1, 3} and {0.25, 0.75}
// give the same pool. In Go 1.26, new(2.0) makes a weight pointer inline.
// A forecast left out is not counted among the N forecasts that Recency
// and Skill number by time.
//
// # Weighted median
//
// The included forecasts are sorted by probability and their weights
// accumulated. With half the total weight W/2, the median is the mean of the
// first value whose cumulative weight is at least W/2 and the first value
// whose cumulative weight is more than W/2. When no cumulative weight hits
// W/2 exactly these are the same value; when one does (an even number of
// equal weights, for instance) the two middle values are averaged, so equal
// weights give the ordinary median. This is the weighted_median of the
// Metaculus community prediction (ilow: first cmf >= wmid; ihigh: first
// cmf > wmid; result 0.5*(x[ilow]+x[ihigh])), as published in the public R
// and Julia ports of that Python function. Cumulative weights within 1e-12
// (relative to W) of W/2 count as hitting it, so that decimal weights such as
// 0.1 and 0.2 behave as they read.
//
// # Recency
//
// [Result.Recency] is Metaculus's Community Prediction of a binary
// question (Metaculus/metaculus, utils/the_math/aggregations.py: the
// recency weighting, generate_recency_weights in earlier versions, and
// the weighted median of utils/the_math/measures.py; the Metaculus FAQ,
// "How is the Community Prediction calculated?"). Give it each
// forecaster's latest forecast. The N included forecasts are ordered by
// [Forecast.At], oldest first (forecasts at the same time, or all without
// a time, keep their order in the slice; the zero time is the oldest),
// and the n-th of them, n = 1..N, weighs
//
//	w_n = Weight · exp(√n − √N)
//
// so the newest weighs its own weight and the oldest e^(1−√N) of it. With
// N ≤ 2 the recency weights are all 1, as Metaculus has them. The result
// is the weighted median of the probabilities under these weights, by
// the rule of the Weighted median section below. Three forecasts, oldest
// first, have recency weights e^(1−√3) ≈ 0.481, e^(√2−√3) ≈ 0.728 and 1.
// Probabilities are used as given: a forecast of 0 or 1 is not clipped,
// and the result may be 0 or 1.
//
// # Skill
//
// [Result.Skill] weighs each forecast by its own weight, by its recency
// (the weight of Recency above) and by its forecaster's skill s, the
// [Forecast.Skill] known when pooling in peer-score points per question
// (package scoring's Skill.Estimate; nil counts as 0), and averages the
// log-odds of the clipped probabilities:
//
//	w_n = Weight · exp(√n − √N) · exp(SkillBeta · s / 100)
//	L   = Σ w_n · logit(clip(p_n)) / Σ w_n
//	Skill = logistic(SkillExtremize · L)   when N ≥ SkillExtremizeMin
//	Skill = logistic(L)                    otherwise
//
// with [SkillBeta] = 8, so 10 points of skill weigh e^0.8 ≈ 2.2 times
// none, and [SkillExtremize] = 1.2 from [SkillExtremizeMin] = 3 forecasts
// on: forecasters who share part of their evidence each under-use what
// the others know, so the plain pool is too timid (Satopää et al.,
// "Combining multiple probability predictions using a simple logit
// model", International Journal of Forecasting 30 (2014) 344–356; Baron
// et al., "Two reasons to make aggregated probability forecasts more
// extreme", Decision Analysis 11 (2014) 133–145). The constants were
// chosen on the earlier half of PredictionBook's resolved questions
// only; docs/POOLS.md in the repository gives the evaluation.
//
// |s| must be at most [MaxSkill] ([ErrSkill]). The log-weights are
// shifted by the largest before they are exponentiated, so no skill or
// weight within bounds overflows or turns the result into NaN; a weight
// that still underflows is kept as the smallest positive float.
// [Options.Extremize], when given, applies on top of SkillExtremize.
//
// # Extremizing
//
// [Options.Extremize] multiplies the pooled log-odds by a factor k >= 1
// (p' = logistic(k*logit(p)), Satopää et al. 2014); it is applied to each of
// the five results (to Skill after its own factor). 0 and 1 mean no
// extremizing. A pooled value of exactly 0 or 1 stays where it is.
//
// # Clipping
//
// A probability of 0 or 1 has infinite log-odds. For the geometric mean of
// odds and for Skill, every probability is clipped into [0.001, 0.999]
// ([ClipLow], [ClipHigh]) and each clipped forecast is named in
// [Result.Notes]. The mean, the median, Recency and the spread use the
// probabilities as given. No result field is ever NaN or infinite.
//
// # Spread and disagreement
//
// [Result.SpreadPts] is the highest minus the lowest included probability in
// percentage points, rounded to 9 decimal places so that float noise (0.5 -
// 0.3 = 0.20000000000000004) does not trip the flag. [Result.Disagree] is set
// when the spread is strictly greater than the threshold
// [Options.DisagreePts]: nil means [DefaultDisagreePts] (20 points), and a
// pointer to 0 flags any spread at all.
//
// A board flags its questions by another measure, [MiddleDisagree]: the
// middle half of at least [MiddleMinForecasts] standing forecasts (the
// interquartile range, [MiddleSpreadPts]) spans more than
// [MiddleDisagreePts] points. The highest minus the lowest flags nearly
// every question that a few forecasters at the ends have reached; the
// tools keep it, since their caller picks the threshold.
//
// # Errors
//
// [Combine] returns [ErrNoForecasts] for an empty slice, a [*ForecastError]
// wrapping [ErrProbability], [ErrWeight] or [ErrSkill] for a bad forecast
// (its Index is the position in the slice and its Field names the field:
// p, weight or skill), [ErrAllExcluded] when every weight is 0, and
// [ErrMethod], [ErrExtremize] or [ErrDisagreePts] for bad options. Test with
// errors.Is and errors.As.
package pool
