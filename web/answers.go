package web

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/predictions-md/predictions/internal/tools"
)

// answer is a tool's result in the words and units a person reads:
// percents and odds, each with what it means. A result page shows it in
// its result box, above the summary and the full answer.
type answer struct {
	Rows []answerRow
}

// answerRow is one line of an answer: what, how much, and what it means.
type answerRow struct {
	Label, Value, Detail string
}

// answerOf reads a tool's answer from its API body; nil for a tool whose
// page shows its answer another way (build_settings: the install line).
func answerOf(tool string, body []byte) (*answer, error) {
	var a answer
	add := func(label, value, detail string) {
		a.Rows = append(a.Rows, answerRow{Label: label, Value: value, Detail: detail})
	}
	switch tool {
	case "implied_probabilities":
		var out struct {
			Outcomes []struct {
				Label      string  `json:"label"`
				Odds       string  `json:"odds"`
				Normalised float64 `json:"normalised"`
			} `json:"outcomes"`
			OverroundPct float64 `json:"overround_pct"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		for i, o := range out.Outcomes {
			label := o.Label
			if label == "" {
				label = fmt.Sprintf("Outcome %d", i+1)
			}
			add(label, pct(o.Normalised), fmt.Sprintf("odds %s; fair odds without the margin %s", o.Odds, decimalOdds(o.Normalised)))
		}
		add("Bookmaker's margin", strconv.FormatFloat(round2(out.OverroundPct), 'f', -1, 64)+"%",
			"how far the odds' chances add up over 100%; removed above")
	case "convert_odds":
		var out struct {
			Formats struct {
				PercentText  string `json:"percent_text"`
				DecimalText  string `json:"decimal_text"`
				Fractional   string `json:"fractional"`
				AmericanText string `json:"american_text"`
			} `json:"formats"`
			Compare *struct {
				Input   string `json:"input"`
				Formats struct {
					PercentText string `json:"percent_text"`
				} `json:"formats"`
				DifferencePoints float64 `json:"difference_points"`
				OddsRatio        float64 `json:"odds_ratio"`
			} `json:"compare"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		f := out.Formats
		add("Chance", f.PercentText, "the probability the odds stand for")
		add("Decimal odds", f.DecimalText, "the return on a stake of 1, stake included")
		add("Fractional odds", f.Fractional, "the win on a stake")
		add("American odds", f.AmericanText, "+ is the win on 100, − the stake to win 100")
		if c := out.Compare; c != nil {
			add("Compared with "+c.Input, signed1(c.DifferencePoints)+" points",
				fmt.Sprintf("%s against %s; odds ratio %.3g", f.PercentText, c.Formats.PercentText, c.OddsRatio))
		}
	case "combine_forecasts":
		var out struct {
			P         float64 `json:"p"`
			Method    string  `json:"method"`
			Low       float64 `json:"low"`
			High      float64 `json:"high"`
			SpreadPts float64 `json:"spread_pts"`
			Disagree  bool    `json:"disagree"`
			N         int     `json:"n"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		add("Combined forecast", pct(out.P), fmt.Sprintf("%s pooled by the %s; fair odds %s", tools.Count(out.N, "forecast"), methodName(out.Method), decimalOdds(out.P)))
		verdict := "they roughly agree"
		if out.Disagree {
			verdict = "they disagree"
		}
		add("Spread", fmt.Sprintf("%.0f points", out.SpreadPts), fmt.Sprintf("from %s to %s: %s", pct(out.Low), pct(out.High), verdict))
	case "bayes_update":
		var out struct {
			Prior     float64 `json:"prior"`
			Posterior float64 `json:"posterior"`
			ChangePts float64 `json:"change_pts"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		add("After the evidence", pct(out.Posterior), fmt.Sprintf("from %s before it: %s points; fair odds %s", pct(out.Prior), signed1(out.ChangePts), decimalOdds(out.Posterior)))
	case "score_forecasts":
		var out struct {
			Overall struct {
				N        int     `json:"n"`
				Brier    float64 `json:"brier"`
				LogScore float64 `json:"log_score"`
				BaseRate float64 `json:"base_rate"`
			} `json:"overall"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		o := out.Overall
		add("Brier score", num(o.Brier), "0 is perfect, 0.25 is always saying 50%: lower is better")
		add("Log score", num(o.LogScore), "0 is perfect, −0.693 is always saying 50%: higher is better")
		add("Came true", pct(o.BaseRate), "of "+tools.Count(o.N, "forecast"))
	case "check_forecast_md":
		var out struct {
			OK        bool              `json:"ok"`
			Questions int               `json:"questions"`
			Open      int               `json:"open"`
			Resolved  int               `json:"resolved"`
			Void      int               `json:"void"`
			Forecasts int               `json:"forecasts"`
			Findings  []json.RawMessage `json:"findings"`
			Warnings  []json.RawMessage `json:"warnings"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		verdict := "the file follows the format"
		if !out.OK {
			verdict = "the file breaks the format: see the findings below"
		}
		add("Problems", strconv.Itoa(len(out.Findings)), verdict)
		add("Advice", strconv.Itoa(len(out.Warnings)), "warnings worth a look; they do not break the format")
		add("Questions", strconv.Itoa(out.Questions), fmt.Sprintf("%d open, %d resolved, %d void; %s", out.Open, out.Resolved, out.Void, tools.Count(out.Forecasts, "forecast")))
	default:
		return nil, nil
	}
	return &a, nil
}

// decimalOdds writes the fair decimal odds of a probability, 1/p, to two
// decimals; "—" when p is 0.
func decimalOdds(p float64) string {
	if p <= 0 {
		return "—"
	}
	return strconv.FormatFloat(1/p, 'f', 2, 64)
}

// signed1 writes a change with one decimal and its sign ("+2.5",
// "-1.0"); one that rounds to zero is "0.0".
func signed1(x float64) string {
	s := score1(x)
	if s != "0.0" && x > 0 {
		return "+" + s
	}
	return s
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
