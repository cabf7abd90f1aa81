package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/scoring"
)

// Outcome is how a question resolved, as a client sends it: "yes", "no",
// "1", "0", the numbers 1 and 0, or true and false.
type Outcome struct {
	text string
}

// UnmarshalJSON accepts a string, a number or a boolean.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	s, _, err := scalarText(b)
	o.text = s
	return err
}

// Read returns true for yes and false for no.
func (o Outcome) Read() (bool, error) {
	switch strings.ToLower(strings.TrimSpace(o.text)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return scoring.ParseOutcome(o.text)
}

func outcomeSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: `how the question resolved: "yes" or "no" (also "1", "0", 1, 0, true, false)`,
		AnyOf: []*jsonschema.Schema{
			{Type: "string", Enum: []any{"yes", "no", "1", "0"}},
			{Type: "integer", Enum: []any{0, 1}},
			{Type: "boolean"},
		},
	}
}

type scoreItem struct {
	Who     string  `json:"who,omitempty" jsonschema:"who made the forecast; scores are also given per forecaster"`
	P       Prob    `json:"p"`
	Outcome Outcome `json:"outcome"`
}

type scoreInput struct {
	Forecasts []scoreItem `json:"forecasts" jsonschema:"resolved forecasts: each a probability of yes and how the question resolved"`
	Bins      *int        `json:"bins,omitempty" jsonschema:"number of equal-width bins of the calibration table"`
}

type scoreOutput struct {
	Bins        int                  `json:"bins" jsonschema:"number of calibration bins"`
	Overall     scoring.Summary      `json:"overall" jsonschema:"scores of all forecasts together"`
	Forecasters []scoring.Forecaster `json:"forecasters" jsonschema:"the same scores per forecaster, sorted by who"`
}

func scoreForecasts() *Tool {
	return define(Tool{
		Name:    "score_forecasts",
		Title:   "Score forecasts",
		Summary: "score resolved forecasts: Brier and log scores, skill, calibration table, per forecaster",
		Description: "Score resolved yes/no forecasts, overall and per forecaster: Brier score (mean squared error, lower is better), " +
			"log score (mean natural log of the probability given to what happened, at most 0, higher is better), base rate, " +
			"Brier skill against always forecasting the base rate, a calibration table and the Murphy decomposition. " +
			"Each p is the probability given to yes: a number below 1 is a fraction (0.62), from 1 to 100 a percent (62), a string ending in % a percent. " +
			"outcome is yes or no (or 1/0).",
	},
		[]Limit{
			{Field: "forecasts", MinItems: 1, MaxItems: 200},
			{Field: "forecasts[].who", MaxLength: 40},
			{Field: "bins", Minimum: num(2), Maximum: num(20), Default: 10},
		},
		`{"forecasts":[{"who":"agent:scout","p":0.8,"outcome":"yes"},{"who":"agent:scout","p":0.3,"outcome":"no"},{"who":"person","p":"60%","outcome":"no"}],"bins":5}`,
		runScore)
}

func runScore(_ context.Context, in *scoreInput, r *Reply) (scoreOutput, error) {
	fs := make([]scoring.Forecast, len(in.Forecasts))
	for i, f := range in.Forecasts {
		p, _, err := f.P.Read()
		if err != nil {
			return scoreOutput{}, fieldError(fmt.Sprintf("forecasts[%d].p", i), err, probHint)
		}
		o, err := f.Outcome.Read()
		if err != nil {
			return scoreOutput{}, fieldError(fmt.Sprintf("forecasts[%d].outcome", i), err, `use "yes" or "no"`)
		}
		fs[i] = scoring.Forecast{Who: f.Who, P: p, Outcome: o}
	}
	opt := scoring.Options{Bins: scoring.DefaultBins}
	if in.Bins != nil {
		opt.Bins = *in.Bins
	}
	res, err := scoring.Score(fs, opt)
	if err != nil {
		var fe *scoring.ForecastError
		if errors.As(err, &fe) {
			return scoreOutput{}, fieldError(fmt.Sprintf("forecasts[%d].p", fe.Index), err, probHint)
		}
		return scoreOutput{}, err
	}
	o := res.Overall
	r.Summary = fmt.Sprintf("%s scored: Brier %.3f (lower is better), log score %.3f (higher is better), base rate %s.",
		plural(o.N, "forecast", "forecasts"), o.Brier, o.LogScore, pct(o.BaseRate))
	return scoreOutput{Bins: res.Bins, Overall: res.Overall, Forecasters: res.Forecasters}, nil
}
