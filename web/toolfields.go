package web

import "strings"

// fieldText is a tool form control's plain label and the hint shown with
// it; the parameter name is shown beside them for people who also use
// the API.
type fieldText struct{ Label, Hint string }

// fieldTexts are the controls of the tool forms, by "tool.field". A field
// of a tool's input that is not here has no control (the settings of
// build_settings are listed from the catalog instead); an error about it
// is shown above the form.
var fieldTexts = map[string]fieldText{
	"convert_odds.value":             {"Odds or probability", "such as +150, 3/2, 2.5 or 40%"},
	"convert_odds.from":              {"Notation", "how the value is written; auto guesses"},
	"convert_odds.compare_to":        {"Compare with", "optional: a second value"},
	"implied_probabilities.outcomes": {"Outcomes", ""},
	"implied_probabilities.from":     {"Notation", "of every odds value"},
	"implied_probabilities.method":   {"Margin removal", "how to remove the bookmaker's margin"},
	"combine_forecasts.forecasts":    {"Forecasts", ""},
	"combine_forecasts.method":       {"Pooling method", "which pooled value leads"},
	"combine_forecasts.extremize":    {"Extremize", "1 to 3; 1 means none"},
	"combine_forecasts.disagree_pts": {"Disagreement threshold", "flag a spread above this many points"},
	"bayes_update.prior":             {"Prior probability", "such as 0.3, 30 or 30%"},
	"bayes_update.evidence":          {"Evidence", ""},
	"score_forecasts.forecasts":      {"Resolved forecasts", ""},
	"score_forecasts.bins":           {"Calibration bins", "2 to 20"},
	"check_forecast_md.text":         {"Forecast file", "the Markdown text"},
	"check_forecast_md.today":        {"Today's date", "YYYY-MM-DD; empty means today"},
	"build_settings.preset":          {"Preset", "applied first"},
	"build_settings.format":          {"Output", "the settings section or the whole skill file"},
}

// Label is the plain label of the form's control for field.
func (f toolForm) Label(field string) string {
	if t, ok := fieldTexts[f.Tool.Name+"."+field]; ok {
		return t.Label
	}
	return humanName(field)
}

// Hint is the hint shown with the control for field ("" for none).
func (f toolForm) Hint(field string) string { return fieldTexts[f.Tool.Name+"."+field].Hint }

// HasControl reports whether the form has a control for field, next to
// which its error is shown.
func (f toolForm) HasControl(field string) bool {
	if _, ok := fieldTexts[f.Tool.Name+"."+field]; ok {
		return true
	}
	for _, s := range f.Settings {
		if s.Name == field {
			return true
		}
	}
	return false
}

// humanName turns a parameter name into words: "disagree_pts" → "Disagree pts".
func humanName(name string) string { return sentence(strings.ReplaceAll(name, "_", " ")) }

// placeholders are examples shown in empty inputs, by "tool.field".
var placeholders = map[string]string{
	"convert_odds.value":             "+150, 3/2, 2.5 or 40%",
	"convert_odds.compare_to":        "40%",
	"combine_forecasts.extremize":    "1",
	"combine_forecasts.disagree_pts": "20",
	"bayes_update.prior":             "30%",
	"score_forecasts.bins":           "10",
	"check_forecast_md.today":        "2026-11-22",
}

// Placeholder is the example shown in the empty input for field.
func (f toolForm) Placeholder(field string) string { return placeholders[f.Tool.Name+"."+field] }

// InputMode is the input's inputmode: the keyboard a phone shows.
func (f toolForm) InputMode(field string) string {
	switch f.Tool.Name + "." + field {
	case "combine_forecasts.extremize", "combine_forecasts.disagree_pts":
		return "decimal"
	case "score_forecasts.bins":
		return "numeric"
	}
	return ""
}

// plainLeads say what each tool does in a few plain words, for the top
// of its page; the API reference (the tool's description, its route)
// sits one click below.
var plainLeads = map[string]string{
	"convert_odds":          "Turn odds into a chance, or a chance into odds, in every common way of writing them; give a second value to compare the two.",
	"implied_probabilities": "Turn a bookmaker's odds on every outcome of one event into the chance of each, with the bookmaker's margin taken out.",
	"combine_forecasts":     "Combine several people's or agents' forecasts of one question into one, and see how far apart they are.",
	"bayes_update":          "Start from a chance and see how each piece of evidence moves it.",
	"score_forecasts":       "Score forecasts of questions that have resolved: how close they came, and whether their 70%s came true 70% of the time.",
	"check_forecast_md":     "Check a forecast file against its format, and see its latest forecasts and scores.",
	"build_settings":        "Choose how your agents forecast and get their skill file with those settings written in.",
}

// Lead is the tool's plain description for its page.
func (f toolForm) Lead() string { return cmpOr(plainLeads[f.Tool.Name], sentence(f.Tool.Summary)+".") }
