package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/scoring"
)

// Outcome is how a question resolved, as a client sends it: "yes", "no",
// "1", "0", the numbers 1 and 0, or true and false.
type Outcome struct {
	text string
	kind jsontext.Kind // '"', '0' or 't' (true and false alike); 0 if not sent
}

// UnmarshalJSONFrom accepts a string, a number or a boolean.
func (o *Outcome) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	text, kind, err := readScalar(dec, `"0tf`)
	if kind == 'f' {
		kind = 't'
	}
	*o = Outcome{text: text, kind: kind}
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
		Description: `how the question resolved: "yes" or "no" (also "1", "0", "true", "false", 1, 0, true, false); case and surrounding spaces are ignored`,
		AnyOf: []*jsonschema.Schema{
			{Type: "string", Pattern: `^\s*([Yy][Ee][Ss]|[Nn][Oo]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)\s*$`},
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
	Edges     string      `json:"edges,omitempty" jsonschema:"which edge of a calibration bin is closed: left (a forecast on an inner edge goes to the bin above; the default) or right (the bin below, as scikit-learn's calibration_curve)"`
}

type scoreOutput struct {
	Bins        int                  `json:"bins" jsonschema:"number of calibration bins"`
	ReadAs      []string             `json:"read_as" jsonschema:"how each forecast's p was read, in order: probability (a fraction) or percent"`
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
			"The log score clips p to [0.1%, 99.9%] first (a note says how many were clipped); it is minus scikit-learn's log_loss computed with that clipping (log_loss clips at about 1e-15). " +
			"Calibration bins are equal-width; edges: left (default) puts a forecast on an inner edge into the bin above, g[i] ≤ p < g[i+1] with p = 1 in the last bin; " +
			"edges: right into the bin below, as scikit-learn's calibration_curve. " +
			"Each p is the probability given to yes. " + probRule + " " +
			"outcome is yes or no, also 1/0 and true/false; case and surrounding spaces are ignored.",
	},
		[]Limit{
			{Field: "forecasts", MinItems: 1, MaxItems: 200},
			{Field: "forecasts[].who", MaxLength: 40},
			{Field: "bins", Minimum: num(2), Maximum: num(20), Default: 10},
			{Field: "edges", Enum: []string{"left", "right"}, Default: "left"},
		},
		`{"forecasts":[{"who":"agent:scout","p":0.8,"outcome":"yes"},{"who":"agent:scout","p":0.3,"outcome":"no"},{"who":"person","p":"60%","outcome":"no"}],"bins":5}`,
		runScore)
}

func runScore(_ context.Context, in *scoreInput, r *Reply) (scoreOutput, error) {
	fs := make([]scoring.Forecast, len(in.Forecasts))
	ps := make([]Prob, len(in.Forecasts))
	for i, f := range in.Forecasts {
		ps[i] = f.P
	}
	rs, notes, err := readGroup(ps, func(i int) string { return fmt.Sprintf("forecasts[%d].p", i) })
	if err != nil {
		return scoreOutput{}, err
	}
	r.Notes = append(r.Notes, notes...)
	readAs := make([]string, len(rs))
	for i, f := range in.Forecasts {
		p := rs[i].P
		readAs[i] = string(rs[i].ReadAs)
		o, err := f.Outcome.Read()
		if err != nil {
			return scoreOutput{}, fieldError(fmt.Sprintf("forecasts[%d].outcome", i), err, `use "yes" or "no"`)
		}
		fs[i] = scoring.Forecast{Who: f.Who, P: p, Outcome: o}
	}
	opt := scoring.Options{Bins: scoring.DefaultBins, RightClosed: in.Edges == "right"}
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
	return scoreOutput{Bins: res.Bins, ReadAs: readAs, Overall: res.Overall, Forecasters: res.Forecasters}, nil
}
