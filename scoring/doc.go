// Package scoring scores resolved yes/no forecasts: the Brier score, the
// log score, the base rate, the Brier skill score, a calibration table and
// the Murphy decomposition of the Brier score, over all forecasts and per
// forecaster; and Metaculus's time-averaged baseline and peer scores of
// the forecasters on one question ([TimeAveraged]).
//
// It imports only the standard library; the score_forecasts tool (HTTP and
// MCP), the forecast-file checker and the agent board call it.
//
// A program that scores three resolved forecasts by two forecasters and
// prints the non-empty rows of the calibration table:
//
//	package main
//
//	import (
//		"fmt"
//		"log"
//
//		"github.com/predictions-md/predictions/scoring"
//	)
//
//	func main() {
//		res, err := scoring.Score([]scoring.Forecast{
//			{Who: "agent:ann", P: 0.8, Outcome: true},
//			{Who: "agent:ann", P: 0.3, Outcome: false},
//			{Who: "agent:bob", P: 0.6, Outcome: false},
//		}, scoring.Options{Bins: 5})
//		if err != nil {
//			log.Fatal(err) // for example a *scoring.ForecastError naming the forecast
//		}
//		for _, f := range res.Forecasters {
//			fmt.Printf("%s: Brier %.3f over %d\n", f.Who, f.Brier, f.N)
//		}
//		for _, b := range res.Overall.Calibration {
//			if b.Count > 0 {
//				fmt.Printf("%.0f-%.0f%%: %d forecast(s), %d yes\n", 100*b.Lo, 100*b.Hi, b.Count, b.Yes)
//			}
//		}
//	}
//
// It prints:
//
//	agent:ann: Brier 0.065 over 2
//	agent:bob: Brier 0.360 over 1
//	20-40%: 1 forecast(s), 0 yes
//	60-80%: 1 forecast(s), 0 yes
//	80-100%: 1 forecast(s), 1 yes
//
// [Score] does everything in one pass. [Brier], [Log], [Calibration] and
// [Decompose] compute one thing each. [ParseOutcome] reads "yes", "no",
// "1" and "0". [TimeAveraged] scores every forecast made over a question's
// life, each for the time it stood. [SkillOf] and [SkillFromSums] turn a
// forecaster's peer scores into its [Skill], [Trust] maps a skill to a
// score between 0 and 1, and [History] answers what was known of a
// skill at a given moment. The runnable program examples/score in the
// repository scores a forecast file and prints its calibration table.
//
// # Errors
//
// The functions return [ErrEmpty] for no forecasts, a *[ForecastError]
// wrapping [ErrProbability] for the first forecast whose P is outside
// [0, 1] or NaN, and an error wrapping [ErrBins] for a bad number of bins;
// [ParseOutcome] returns an *[OutcomeError] wrapping [ErrOutcome];
// [TimeAveraged] returns an error wrapping [ErrLife] for a life without
// its open or actual close. Test with errors.Is and errors.As.
//
// # Formulas
//
// For n forecasts p_i with outcomes o_i (1 = yes, 0 = no):
//
//   - Brier score = (1/n) Σ (p_i − o_i)², from 0 (best) to 1.
//     Brier, "Verification of forecasts expressed in terms of
//     probability", Monthly Weather Review 78 (1950) 1–3.
//   - Log score = (1/n) Σ ln q_i, where q_i = p_i if o_i = 1 and 1 − p_i
//     otherwise: the probability given to what happened. At most 0, higher
//     is better; in bits divide by ln 2. It is the negative of
//     scikit-learn's log_loss. Good, "Rational decisions", J. Royal
//     Statistical Society B 14 (1952) 107–114. Before taking the logarithm
//     p is clipped to [ClipLow, ClipHigh] = [0.001, 0.999] (as the project
//     decided for every tool that needs odds), so a forecast of 0% or 100%
//     on the wrong side costs ln 0.001 ≈ −6.9 instead of minus infinity;
//     [Summary.Clipped] counts them and a note says so.
//   - Base rate ō = (1/n) Σ o_i.
//   - Brier skill score = 1 − Brier / (ō (1 − ō)): the reference forecast
//     is the sample base rate ("climatology"), whose Brier score is
//     ō (1 − ō). Above 0 beats it, 1 is perfect. When every outcome is the
//     same the reference is perfect and the ratio undefined: the skill is
//     nil (JSON null) with a note. Wilks, Statistical Methods in the
//     Atmospheric Sciences, chapter "Forecast verification" (skill scores).
//   - Calibration table (reliability diagram): K equal-width bins; bin k
//     holds the forecasts with k/K ≤ p < (k+1)/K, and the last bin also
//     p = 1. Each row gives its range, count, how many resolved yes, the
//     mean forecast p̄_k and the observed frequency ō_k. Empty bins are
//     kept, with count 0 and null means, so tables always have K rows and
//     line up across forecasters and plots. (scikit-learn's
//     calibration_curve drops empty bins; otherwise its "uniform" strategy
//     gives the same means, except that it puts a p lying exactly on an
//     inner edge in the lower bin.)
//   - Murphy decomposition over the same bins, with n_k forecasts in bin k:
//     reliability REL = (1/n) Σ_k n_k (p̄_k − ō_k)²,
//     resolution RES = (1/n) Σ_k n_k (ō_k − ō)²,
//     uncertainty UNC = ō (1 − ō). Murphy, "A new vector partition of the
//     probability score", J. Applied Meteorology 12 (1973) 595–600.
//     Brier = REL − RES + UNC holds exactly only when all forecasts in a
//     bin are equal. Binned forecasts add two terms (Stephenson, Coelho
//     and Jolliffe, "Two extra components in the Brier score
//     decomposition", Weather and Forecasting 23 (2008) 752–757):
//     within-bin variance WBV = (1/n) Σ_k Σ_{i∈k} (p_i − p̄_k)² and
//     within-bin covariance WBC = (2/n) Σ_k Σ_{i∈k} (p_i − p̄_k)(o_i − ō_k),
//     so that Brier = REL − RES + UNC + WBV − WBC exactly. This package
//     reports all five terms ([Murphy]) rather than grouping by distinct
//     forecast value, which would need memory per distinct value.
//   - Time-averaged scores ([TimeAveraged]), Metaculus's exactly
//     (scoring/score_math.py in Metaculus's repository, and its scores
//     FAQ, https://www.metaculus.com/help/scores-faq/): with q the
//     probability a forecast gave to what happened, limited to
//     [0.1%, 99.9%], the baseline score of a moment is 100 · log2(2q) and
//     the peer score 100 · N/(N−1) · ln(q / G), G the geometric mean of
//     the q of the N forecasters present (0 when N = 1); both are
//     integrated up to the actual close and divided by the scheduled
//     length of the question, so that a forecaster present for part of
//     the life has a coverage below 1. docs/SCORES.md in the repository
//     works an example through.
//
// # Skill and trust
//
// A forecaster's [Skill] is measured against the others on the same
// questions, not against the outcome alone: it is made of the
// forecaster's time-averaged peer scores ([TimeAveraged]), one per
// scored question. A peer score is 0 for matching the others, so
// forecasting only questions whose answer everyone knows earns about
// nothing, however good the Brier score of such forecasts is.
//
//   - Mean and interval. [Skill.MeanPeer] is the mean peer score per
//     question, and [Skill.Low] and [Skill.High] bound its 95% interval
//     by Student's t over questions: mean ± t(0.975, n−1) · s/√n, with n
//     the number of scored questions and s the sample standard
//     deviation of their peer scores. Each question is one observation;
//     the t interval is the standard one for the mean of a few of them,
//     exact for normal scores and close for others as n grows, and it is
//     deterministic: the same record gives the same interval in a store,
//     in a test and on every replica, and a store that keeps three
//     running sums ([SkillFromSums]) computes it in constant time. A
//     bootstrap over questions would need a random seed and thousands of
//     resamples at every change, and its interval would move with the
//     seed. t(0.975, df) comes from a table for df below 10 and from the
//     Cornish–Fisher expansion (Abramowitz and Stegun 26.7.5) from 10 on,
//     within 1e-5. With fewer than 2 questions there is no interval
//     ([Skill.HasInterval]) and Low and High equal the mean.
//   - Estimate. [Skill.Estimate] = Σ peer / ([SkillPrior] + Σ coverage),
//     SkillPrior = 30: Metaculus's reputation (Metaculus/metaculus
//     scoring/reputation.py, reputation_value), as if every forecaster
//     started with 30 questions of full coverage scored 0. It stays near
//     0 until the evidence outweighs that prior and tends to the mean
//     per question of full coverage after many, so one lucky question
//     moves it little. Metaculus floors its reputation at 1e-6 because it
//     weighs forecasts by it directly; here the estimate keeps its sign,
//     and package pool's skill pool turns it into a weight by an
//     exponential. Leaderboards rank by the estimate.
//   - Ranking. A forecaster with fewer than [MinRanked] = 10 scored
//     questions is unranked ([Skill.Ranked]): with 10 the 95% interval
//     is still ±0.72 standard deviations of one question's peer score.
//   - Trust. [Trust] maps the estimate e to a score in (0, 1):
//     trust = 0.5 + 0.5 · e / (|e| + [TrustScale]), TrustScale = 10. No
//     evidence, or no better than the others, is 0.5; e = 10 points per
//     question is 0.75 and e = −10 is 0.25; it rises with e and never
//     reaches 0 or 1 for any estimate a peer score can give.
//   - Time. [History] keeps each forecaster's scored questions with the
//     time their resolution was recorded; [History.At] gives the skill
//     known at a moment t from the questions resolved strictly before t
//     (one resolved exactly at t is not yet known), so that whatever is
//     computed at t uses only what was known at t.
//
// # Decisions
//
//   - Forecasts with an empty Who are scored as the forecaster "" (the
//     empty string, not a label that could clash with a real name). Who is
//     compared exactly; forecasters are listed sorted by Who in byte order.
//   - Options.Bins = 0 means 10; a negative value or one above [MaxBins]
//     is an error ([ErrBins]). The tools limit it further, to 2..20.
//   - P must be in [0, 1] and not NaN; the first bad forecast is reported
//     by index ([ForecastError]). Percent input is the adapters' job.
//   - No result holds NaN or Inf: the log score is clipped, the skill is
//     nil when undefined, and empty bins have nil means.
//
// # Cost
//
// [Score] reads the forecasts once, with one accumulator per forecaster;
// the overall scores are the sum of the forecasters' accumulators. Time is
// O(n) plus sorting the forecasters, and memory O(forecasters × bins),
// independent of n. [TimeAveraged] sorts the n forecasts of a question and
// then does constant work per forecast (two running integrals replace a
// pass over the forecasters present at each moment): O(n log n) time and
// O(n) memory.
package scoring
