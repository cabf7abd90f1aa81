package bayes_test

import (
	"fmt"

	"github.com/predictions-md/predictions/bayes"
)

// The mammography problem: 1% prior, P(positive | cancer) = 0.8,
// P(positive | no cancer) = 0.096; the posterior is about 7.8%
// (Yudkowsky, "An Intuitive Explanation of Bayes' Theorem").
func ExampleUpdate() {
	res, err := bayes.Update(0.01, []bayes.Evidence{
		bayes.Pair("positive mammography", 0.8, 0.096),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Steps[0]
	fmt.Printf("%s: LR %.3f, odds %.4f -> %.4f, %.2f%% -> %.2f%% (%+.2f points)\n",
		s.Label, *s.LR, *s.PriorOdds, *s.PosteriorOdds, 100*s.Prior, 100*s.Posterior, s.ChangePts)
	// Output:
	// positive mammography: LR 8.333, odds 0.0101 -> 0.0842, 1.00% -> 7.76% (+6.76 points)
}

// Several pieces in order; the second gives both lr and a pair, so lr is used
// and a note says so.
func ExampleUpdate_steps() {
	res, err := bayes.Update(0.30, []bayes.Evidence{
		bayes.Ratio("insider report", 3),
		{Label: "poll", LR: new(0.5), PIfYes: new(0.2), PIfNo: new(0.3)},
		bayes.Pair("second poll", 0.6, 0.4),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Steps {
		fmt.Printf("%-15s LR %.2f  %.1f%% -> %.1f%%\n", s.Label, *s.LR, 100*s.Prior, 100*s.Posterior)
	}
	fmt.Printf("total LR %.2f, posterior %.1f%%\n", *res.TotalLR, 100*res.Posterior)
	for _, n := range res.Notes {
		fmt.Println("note:", n)
	}
	// Output:
	// insider report  LR 3.00  30.0% -> 56.2%
	// poll            LR 0.50  56.2% -> 39.1%
	// second poll     LR 1.50  39.1% -> 49.1%
	// total LR 2.25, posterior 49.1%
	// note: evidence[1] ("poll"): lr = 0.5 used; the pair p_if_yes = 0.2, p_if_no = 0.3 (ratio 0.6667) was ignored
}

// Evidence that cannot happen if the answer is no makes yes certain. The
// infinite likelihood ratio and odds are nil (null in JSON), never +Inf.
func ExampleUpdate_certain() {
	res, err := bayes.Update(0.2, []bayes.Evidence{bayes.Pair("signed contract seen", 0.9, 0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Posterior, res.Steps[0].LR == nil, res.TotalLR == nil)
	fmt.Println(res.Notes[0])
	// Output:
	// 1 true true
	// evidence[0] ("signed contract seen") rules no out (p_if_no = 0: this evidence cannot happen if the answer is no): the posterior is 1 from here on; the likelihood ratio and the odds are infinite and shown as null
}
