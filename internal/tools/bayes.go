package tools

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/predictions-md/predictions/bayes"
)

type bayesInput struct {
	Prior    Prob             `json:"prior"`
	Evidence []bayes.Evidence `json:"evidence" jsonschema:"the evidence, applied in order; each piece gives lr, or p_if_yes and p_if_no"`
}

type bayesOutput struct {
	Prior         float64      `json:"prior" jsonschema:"the prior as a fraction"`
	PriorReadAs   string       `json:"prior_read_as" jsonschema:"how prior was read: probability (a fraction) or percent"`
	PriorOdds     float64      `json:"prior_odds"`
	Steps         []bayes.Step `json:"steps" jsonschema:"one step per piece of evidence"`
	TotalLR       *float64     `json:"total_lr" jsonschema:"product of the likelihood ratios; null when infinite"`
	PosteriorOdds *float64     `json:"posterior_odds" jsonschema:"null when infinite (yes is certain)"`
	Posterior     float64      `json:"posterior" jsonschema:"the final probability as a fraction"`
	ChangePts     float64      `json:"change_pts" jsonschema:"posterior minus prior in percentage points"`
}

func bayesUpdate() *Tool {
	return define(Tool{
		Name:    "bayes_update",
		Title:   "Bayes update",
		Summary: "update a probability with evidence, step by step, by Bayes' rule in odds form",
		Description: "Update a forecast with evidence using Bayes' rule: posterior odds = prior odds × likelihood ratio, one piece of evidence at a time, in order. " +
			"prior stands alone: " + loneRule + "; 0% and 100% cannot be updated. The update runs on the prior's odds computed from its exact digits. " +
			"Each piece of evidence gives lr (the likelihood ratio P(E|yes)/P(E|no)) or the pair p_if_yes = P(E|yes) and p_if_no = P(E|no), each a fraction from 0 to 1 " +
			"(the pair is read on one scale, and its limit of 1 makes that fractions: 1 means certain); subnormal numbers (below 2.2e-308) are refused; " +
			"when both are sent, lr wins and a note says so. Every step is reported.",
	},
		[]Limit{
			{Field: "evidence", MinItems: 1, MaxItems: 50},
			{Field: "evidence[].label", MaxLength: 80},
			{Field: "evidence[].lr", Minimum: num(0)},
			{Field: "evidence[].p_if_yes", Minimum: num(0), Maximum: num(1)},
			{Field: "evidence[].p_if_no", Minimum: num(0), Maximum: num(1)},
		},
		`{"prior":"30%","evidence":[{"label":"poll lead","lr":2},{"label":"endorsement","p_if_yes":0.6,"p_if_no":0.3}]}`,
		runBayes)
}

func runBayes(_ context.Context, in *bayesInput, r *Reply) (bayesOutput, error) {
	pr, notes, err := readLone(in.Prior, "prior")
	if err != nil {
		return bayesOutput{}, err
	}
	r.Notes = append(r.Notes, notes...)
	prior, as := pr.P, string(pr.ReadAs)
	var res bayes.Result
	if prior > 0 && prior < 1 {
		res, err = bayes.UpdateOdds(prior, pr.Odds(), in.Evidence)
	} else {
		res, err = bayes.Update(prior, in.Evidence)
	}
	if err != nil {
		var ee *bayes.EvidenceError
		switch {
		case errors.As(err, &ee):
			return bayesOutput{}, fieldError(fmt.Sprintf("evidence[%d].%s", ee.Index, ee.Field), err,
				"give lr (0 or more), or p_if_yes and p_if_no from 0 to 1, not both 0")
		case errors.Is(err, bayes.ErrPrior):
			return bayesOutput{}, fieldError("prior", err, "use a prior strictly between 0% and 100%, such as 0.1% or 99.9% for near-certainty")
		case errors.Is(err, bayes.ErrNoEvidence):
			return bayesOutput{}, fieldError("evidence", err, `send at least one piece, for example {"lr": 2}`)
		}
		return bayesOutput{}, err
	}
	r.Notes = append(r.Notes, res.Notes...)
	r.Summary = bayesSummary(pct(res.Prior), plural(len(res.Steps), "piece of evidence", "pieces of evidence"), pct(res.Posterior), res.ChangePts)
	return bayesOutput{
		Prior: res.Prior, PriorReadAs: as, PriorOdds: res.PriorOdds, Steps: res.Steps, TotalLR: res.TotalLR,
		PosteriorOdds: res.PosteriorOdds, Posterior: res.Posterior, ChangePts: res.ChangePts,
	}, nil
}

// bayesSummary says how the evidence moved the forecast from prior to
// posterior, by change percentage points, shown to a tenth: a change
// that shows as 0.0 (never "+0.0") is said in words.
func bayesSummary(prior, evidence, posterior string, change float64) string {
	switch {
	case change == 0:
		return fmt.Sprintf("From a prior of %s, %s left the forecast at %s.", prior, evidence, posterior)
	case math.Abs(change) < 0.05:
		return fmt.Sprintf("From a prior of %s, %s moved the forecast by less than 0.1 points, to %s.", prior, evidence, posterior)
	}
	return fmt.Sprintf("From a prior of %s, %s moved the forecast to %s (%+.1f points).", prior, evidence, posterior, change)
}
