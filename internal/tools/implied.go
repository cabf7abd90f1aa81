package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/odds"
)

type impliedOutcome struct {
	Label string   `json:"label,omitempty" jsonschema:"a name for the outcome"`
	Odds  OddsText `json:"odds"`
}

type impliedInput struct {
	Outcomes []impliedOutcome `json:"outcomes" jsonschema:"the outcomes of one event: mutually exclusive, and one of them must happen"`
	From     string           `json:"from,omitempty" jsonschema:"the notation of every odds value; auto guesses each from its shape"`
	Method   string           `json:"method,omitempty" jsonschema:"how to remove the margin: multiplicative (scale to 100%, the default), additive, power or shin"`
}

type impliedRow struct {
	Label      string        `json:"label,omitempty"`
	Odds       string        `json:"odds" jsonschema:"the odds as given"`
	ReadAs     odds.Notation `json:"read_as"`
	Decimal    float64       `json:"decimal" jsonschema:"decimal odds"`
	Raw        float64       `json:"raw" jsonschema:"implied probability 1/decimal, margin included"`
	Normalised float64       `json:"normalised" jsonschema:"probability with the margin removed; these sum to 1"`
}

type impliedOutput struct {
	Method       odds.Method  `json:"method"`
	Outcomes     []impliedRow `json:"outcomes"`
	Sum          float64      `json:"sum" jsonschema:"sum of the raw implied probabilities"`
	OverroundPct float64      `json:"overround_pct" jsonschema:"how far the total is over 100%, in percent"`
	HoldPct      float64      `json:"hold_pct" jsonschema:"the bookmaker's margin: 1 - 1/sum, in percent"`
	Z            float64      `json:"z,omitempty" jsonschema:"Shin's share of insider money (shin only)"`
	Iterations   int          `json:"iterations,omitempty" jsonschema:"bisection steps that pinned z to adjacent doubles (shin only; Shin 1993, solved as the R package implied states it)"`
	Exponent     float64      `json:"exponent,omitempty" jsonschema:"the power k (power only)"`
}

func methodSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: "the method that removed the margin"}
	for _, m := range methodEnum {
		s.Enum = append(s.Enum, m)
	}
	return s
}

var methodEnum = func() []string {
	var s []string
	for _, m := range odds.Methods {
		s = append(s, m.String())
	}
	return s
}()

func impliedProbabilities() *Tool {
	return define(Tool{
		Name:    "implied_probabilities",
		Title:   "Implied probabilities",
		Summary: "turn a set of odds into probabilities, with the bookmaker's margin and the margin removed",
		Description: "Turn the odds of mutually exclusive outcomes (one must happen, such as the runners of a race) into probabilities. " +
			"Returns each outcome's raw implied probability (1/decimal odds), how far the total is over 100% (the overround) and the bookmaker's hold, " +
			"and the probabilities scaled to sum to exactly 100% by the chosen method (multiplicative by default; also additive, power and Shin's). " +
			"Each odds value may use any notation convert_odds reads.",
	},
		[]Limit{
			{Field: "outcomes", MinItems: 2, MaxItems: 30},
			{Field: "outcomes[].label", MaxLength: 60},
			{Field: "outcomes[].odds", MinLength: 1, MaxLength: 40},
			{Field: "from", Enum: notationEnum, Default: "auto"},
			{Field: "method", Enum: methodEnum, Default: "multiplicative"},
		},
		`{"outcomes":[{"label":"home","odds":"2.10"},{"label":"draw","odds":"3.40"},{"label":"away","odds":"3.60"}],"method":"multiplicative"}`,
		runImplied)
}

func runImplied(_ context.Context, in *impliedInput, r *Reply) (impliedOutput, error) {
	from, err := odds.ParseNotation(in.From)
	if err != nil {
		return impliedOutput{}, fieldError("from", err, "use one of: "+strings.Join(notationEnum, ", "))
	}
	m, err := odds.ParseMethod(in.Method)
	if err != nil {
		return impliedOutput{}, fieldError("method", err, "use one of: "+strings.Join(methodEnum, ", "))
	}
	rows := make([]impliedRow, len(in.Outcomes))
	decimals := make([]float64, len(in.Outcomes))
	values := make([]odds.Value, len(in.Outcomes))
	for i, o := range in.Outcomes {
		v, err := odds.Parse(string(o.Odds), from)
		if err != nil {
			return impliedOutput{}, fieldError(fmt.Sprintf("outcomes[%d].odds", i), err, `send odds such as "2.10", "11/10" or "+110"`)
		}
		decimals[i] = v.Decimal()
		values[i] = v
		rows[i] = impliedRow{Label: o.Label, Odds: string(o.Odds), ReadAs: v.ReadAs, Decimal: decimals[i]}
	}
	book, err := odds.ImpliedValues(values, m)
	if err != nil {
		var oe *odds.OutcomeError
		if errors.As(err, &oe) {
			return impliedOutput{}, fieldError(fmt.Sprintf("outcomes[%d].odds", oe.Index), err, "each outcome needs odds with a chance strictly between 0% and 100%")
		}
		return impliedOutput{}, fieldError("method", err, "try the multiplicative method, which works for any set of odds")
	}
	for i := range rows {
		rows[i].Raw = book.Raw[i]
		rows[i].Normalised = book.Probabilities[i]
	}
	r.Notes = append(r.Notes, book.Notes...)
	r.Summary = fmt.Sprintf("%d outcomes: the odds add up to %s, an overround of %.2f%% (hold %.2f%%); normalised by the %s method to sum to 100%%.",
		len(rows), pct(book.Sum), book.OverroundPct, book.HoldPct, book.Method)
	return impliedOutput{Method: book.Method, Outcomes: rows, Sum: book.Sum, OverroundPct: book.OverroundPct,
		HoldPct: book.HoldPct, Z: book.Z, Iterations: book.Iterations, Exponent: book.Exponent}, nil
}
