// Package bayes updates the probability of a yes/no question through pieces
// of evidence, one at a time, with Bayes' rule in odds form:
//
//	posterior odds = prior odds × likelihood ratio
//
// [Update] reports every step (prior, likelihood ratio, prior and posterior
// odds, posterior probability, change in percentage points), the product of
// all likelihood ratios and the final posterior.
//
// A program that updates a 1% prior with a positive test and then with a
// second, independent piece of evidence given as a likelihood ratio:
//
//	package main
//
//	import (
//		"fmt"
//		"log"
//
//		"github.com/predictions-md/predictions/bayes"
//	)
//
//	func main() {
//		res, err := bayes.Update(0.01, []bayes.Evidence{
//			bayes.Pair("positive test", 0.8, 0.096), // P(positive|sick), P(positive|healthy)
//			bayes.Ratio("symptoms", 3),              // 3 times likelier if sick
//		})
//		if err != nil {
//			log.Fatal(err) // for example a *bayes.EvidenceError naming the piece
//		}
//		for _, s := range res.Steps {
//			fmt.Printf("%s: LR %.2f, %.2f%% -> %.2f%%\n", s.Label, *s.LR, 100*s.Prior, 100*s.Posterior)
//		}
//	}
//
// It prints:
//
//	positive test: LR 8.33, 1.00% -> 7.76%
//	symptoms: LR 3.00, 7.76% -> 20.16%
//
// [Update] is the one entry point; [Pair] and [Ratio] build [Evidence], and
// the [Result] lists every [Step]. (Step.LR is nil only for evidence that
// rules an answer out.) The runnable program examples/bayes in the
// repository prints each step in full.
//
// # Evidence
//
// A piece of [Evidence] gives either a likelihood ratio LR = P(E|yes)/P(E|no)
// or the pair P(E|yes), P(E|no). Its fields are pointers so that "not given"
// differs from 0; [Ratio] and [Pair] build the two usual shapes. The JSON
// names are those of the bayes_update tool: label, lr, p_if_yes, p_if_no.
//
//   - When a piece carries both lr and the pair, lr is used. A note says the
//     pair was ignored, unless its ratio agrees with lr within 0.1% (relative).
//     All given fields are still checked, so an invalid pair is an error even
//     next to an lr.
//   - lr = 0, or p_if_yes = 0 with p_if_no > 0, rules yes out: the posterior
//     becomes 0, with a note.
//   - p_if_no = 0 with p_if_yes > 0 rules no out: the posterior becomes 1 and
//     the likelihood ratio is infinite. Infinite values never appear in a
//     result: [Step.LR], [Step.PriorOdds], [Step.PosteriorOdds],
//     [Result.TotalLR] and [Result.PosteriorOdds] are pointers, and nil means
//     infinite (or, for absurdly strong evidence, beyond the float64 range);
//     a note says so. In JSON they are null.
//   - Once the posterior is 0 or 1, later pieces cannot move it; each such
//     piece gets a note. A piece that rules yes out together with one that
//     rules no out is a contradiction and an error ([ErrContradiction]),
//     whatever their order, so the final posterior never depends on the
//     order of the evidence.
//
// The arithmetic is carried out in log-odds, so long chains of strong
// evidence neither overflow nor lose the way back from near-certainty.
//
// # Prior
//
// [UpdateOdds] takes the prior's odds computed from its exact digits, so
// that a prior near 0 or 1 keeps them. A subnormal lr, p_if_yes or p_if_no
// (below 2.2e-308, such as 5e-324) is refused with [ErrRange], not flushed
// to 0: subnormals carry few digits.
//
// The prior must lie in the open interval (0, 1): a prior of 0 or 1 cannot
// be moved by any evidence, so it is an error ([ErrPrior]) whose text
// suggests 0.001 or 0.999 instead. Percent input (30 for 30%) is the
// adapter's business; here 30 is an error.
//
// # Errors
//
// [Update] returns an error wrapping [ErrPrior] for a bad prior,
// [ErrNoEvidence] for an empty list, and an [*EvidenceError] (Index is the
// 0-based position) wrapping [ErrMissing], [ErrRange], [ErrImpossible] or
// [ErrContradiction] for a bad piece. Test with errors.Is and errors.As.
package bayes
