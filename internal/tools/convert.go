package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/odds"
)

// OddsText is an odds or probability value as a client sends it: a string
// in any notation ("+150", "3/2", "40%") or, for convenience, a JSON number
// (read as its text: 2.5, 0.4).
type OddsText string

// UnmarshalJSONFrom accepts a string or a number.
func (o *OddsText) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	text, _, err := readScalar(dec, `"0`)
	*o = OddsText(text)
	return err
}

func oddsTextSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: `odds or a probability in any notation: 0.4, "40%", 2.5 (decimal), "3/2" or "evens" (fractional), "+150" or "-200" (American), "2:3" (odds for)`,
		AnyOf:       []*jsonschema.Schema{{Type: "string"}, {Type: "number"}},
	}
}

var notationEnum = func() []string {
	var s []string
	for _, n := range odds.InputNotations {
		s = append(s, string(n))
	}
	return s
}()

type convertInput struct {
	Value     OddsText `json:"value"`
	From      string   `json:"from,omitempty" jsonschema:"the notation of value and compare_to; auto guesses it from the shape"`
	CompareTo OddsText `json:"compare_to,omitempty"`
}

type convertOutput struct {
	Input   string           `json:"input" jsonschema:"the value as given"`
	ReadAs  odds.Notation    `json:"read_as" jsonschema:"the notation value was read as"`
	Formats odds.Formats     `json:"formats" jsonschema:"the value in every notation"`
	Compare *convertCompared `json:"compare,omitempty" jsonschema:"present when compare_to is given"`
}

type convertCompared struct {
	Input   string        `json:"input"`
	ReadAs  odds.Notation `json:"read_as"`
	Formats odds.Formats  `json:"formats"`
	odds.Comparison
}

func convertOdds() *Tool {
	return define(Tool{
		Name:    "convert_odds",
		Title:   "Convert odds",
		Summary: "convert odds or a probability between every notation, and compare two values",
		Description: "Convert one value between probability, percent, decimal odds, fractional odds, American odds, odds for and log-odds. " +
			"from names the notation (auto, the default, guesses it from the shape: a trailing % is a percent, a/b or evens fractional, a:b odds for, a leading + or - American, " +
			"a number between 0 and 1 a probability, a number above 1 decimal odds; a note says how a bare number was read; write a percent with %, as \"62%\"). " +
			"With compare_to, also returns the odds ratio, the risk ratio and the difference in percentage points between the two. " +
			"Probabilities of exactly 0 or 1 have no finite odds and are refused.",
	},
		[]Limit{
			{Field: "value", MinLength: 1, MaxLength: 40},
			{Field: "from", Enum: notationEnum, Default: "auto"},
			{Field: "compare_to", MinLength: 1, MaxLength: 40},
		},
		`{"value":"+150","from":"auto","compare_to":"40%"}`,
		runConvert)
}

func runConvert(_ context.Context, in *convertInput, r *Reply) (convertOutput, error) {
	from, err := odds.ParseNotation(in.From)
	if err != nil {
		return convertOutput{}, fieldError("from", err, "use one of: "+strings.Join(notationEnum, ", "))
	}
	v, err := odds.Parse(string(in.Value), from)
	if err != nil {
		return convertOutput{}, fieldError("value", err, `send odds such as "+150", "3/2", 2.5 or "40%"`)
	}
	out := convertOutput{Input: string(in.Value), ReadAs: v.ReadAs, Formats: v.Formats()}
	if from == odds.Auto {
		switch v.ReadAs {
		case odds.Decimal, odds.Probability:
			// A bare number: say which reading auto chose and how to ask
			// for the other (DECISIONS.md, convert_odds).
			r.Note("value %q was read as %s (auto reads a bare number between 0 and 1 as a probability and one above 1 as decimal odds); for a percent, write %q",
				in.Value, v.ReadAs, strings.TrimSpace(string(in.Value))+"%")
		default:
			r.Note("value %q was read as %s", in.Value, v.ReadAs)
		}
	}
	f := out.Formats
	r.Summary = fmt.Sprintf("%s read as %s is a probability of %s: decimal %s, fractional %s, American %s, odds for %s.",
		in.Value, v.ReadAs, f.PercentText, f.DecimalText, f.Fractional, f.AmericanText, f.OddsFor)
	if in.CompareTo != "" {
		c, err := odds.Parse(string(in.CompareTo), from)
		if err != nil {
			return convertOutput{}, fieldError("compare_to", err, `send odds such as "+150", "3/2", 2.5 or "40%"`)
		}
		cmp, err := odds.Compare(v, c)
		if err != nil {
			return convertOutput{}, fieldError("compare_to", err, "compare two chances strictly between 0% and 100%")
		}
		out.Compare = &convertCompared{Input: string(in.CompareTo), ReadAs: c.ReadAs, Formats: c.Formats(), Comparison: cmp}
		r.Summary += fmt.Sprintf(" Against %s: odds ratio %.3g, risk ratio %.3g, %+.1f points.",
			in.CompareTo, cmp.OddsRatio, cmp.RiskRatio, cmp.DifferencePoints)
	}
	return out, nil
}
