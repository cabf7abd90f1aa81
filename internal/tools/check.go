package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/scoring"
)

// MaxForecastFile is the longest forecast file check_forecast_md reads, in
// characters (spec section 8).
const MaxForecastFile = 60000

type checkInput struct {
	Text  string `json:"text" jsonschema:"the forecast file: Markdown with one H1 question per heading, key: value bullets and a ## Forecasts section"`
	Today string `json:"today,omitempty" jsonschema:"the date to check overdue questions against, YYYY-MM-DD; default today in UTC"`
}

type checkOutput struct {
	OK            bool                          `json:"ok" jsonschema:"true when there are no findings (warnings are advice)"`
	Today         forecastfile.Date             `json:"today"`
	FormatVersion int                           `json:"format_version"`
	Updated       forecastfile.Date             `json:"updated,omitzero"`
	Questions     int                           `json:"questions"`
	Open          int                           `json:"open"`
	Resolved      int                           `json:"resolved"`
	Void          int                           `json:"void"`
	Forecasts     int                           `json:"forecasts"`
	Findings      []forecastfile.Diagnostic     `json:"findings" jsonschema:"errors against the format (rules 1 to 3)"`
	Warnings      []forecastfile.Diagnostic     `json:"warnings" jsonschema:"advice (rules 4 to 8)"`
	Rules         map[string]string             `json:"rules" jsonschema:"the rules by number"`
	Items         []forecastfile.QuestionReport `json:"items" jsonschema:"each question: latest forecasts, combined forecast, scores (Brier, log, and Metaculus's time-averaged baseline and peer scores with coverage)"`
	Scores        *scoring.Result               `json:"scores" jsonschema:"scores of the resolved questions' forecasts; null when none"`
}

func dateSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Format: "date", Description: "a date, YYYY-MM-DD"}
}

func timeSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Format: "date-time", Description: "a time in UTC, RFC 3339"}
}

func checkForecastMD() *Tool {
	return define(Tool{
		Name:    "check_forecast_md",
		Title:   "Check a forecast file",
		Summary: "check a Markdown forecast file against its format, with latest and combined forecasts and scores",
		Description: "Check a Markdown forecast file against the format: every question says how it resolves and by when; forecasts are dated, " +
			"carry a probability and say who made them; resolved questions have an outcome (findings); and warnings for 0% or 100%, certainty language, " +
			"overdue questions, forecasts dated after the resolve date and text that reads like instructions to an agent. " +
			"Also returns each question's latest forecast per forecaster, their combined forecast (geometric mean of odds) and scores for resolved questions: " +
			"Brier and log scores, and Metaculus's time-averaged baseline and peer scores with coverage over the question's life (the keys opens_at, close_at and closed_at, or times assumed and noted). " +
			"Every finding and warning carries its rule, the question id and the line number.",
	},
		[]Limit{
			{Field: "text", MinLength: 1, MaxLength: MaxForecastFile},
		},
		`{"text":"---\npredictions: 1\nupdated: 2026-11-20\n---\n\n# Will the launch happen by 2026-12-31?\n\n- id: launch-2026\n- resolves: yes if the vendor's status page reports the launch\n- resolve_by: 2026-12-31\n- status: open\n\n## Forecasts\n\n- 2026-11-20 · agent:scout · 62% · base rate from past launches\n","today":"2026-11-22"}`,
		runCheck)
}

func runCheck(_ context.Context, in *checkInput, r *Reply) (checkOutput, error) {
	opt := forecastfile.Options{}
	if in.Today != "" {
		d, err := forecastfile.ParseDate(in.Today)
		if err != nil {
			return checkOutput{}, fieldError("today", err, "write the date as YYYY-MM-DD, for example 2026-11-22")
		}
		t := time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC)
		opt.Now = func() time.Time { return t }
	}
	f, err := forecastfile.Parse([]byte(in.Text))
	if err != nil {
		var pe *forecastfile.ParseError
		if errors.As(err, &pe) || errors.Is(err, forecastfile.ErrInvalidUTF8) {
			return checkOutput{}, fieldError("text", err, "send the forecast file as UTF-8 Markdown text")
		}
		return checkOutput{}, fieldError("text", err, "send the forecast file as Markdown text")
	}
	rep, err := f.Report(opt)
	if err != nil {
		return checkOutput{}, fmt.Errorf("check_forecast_md: report: %w", err)
	}
	r.Summary = rep.Summary
	r.Notes = append(r.Notes, rep.Notes...)
	return checkOutput{
		OK: rep.OK, Today: rep.Today, FormatVersion: rep.FormatVersion, Updated: rep.Updated,
		Questions: rep.Questions, Open: rep.Open, Resolved: rep.Resolved, Void: rep.Void, Forecasts: rep.Forecasts,
		Findings: rep.Findings, Warnings: rep.Warnings, Rules: rep.Rules, Items: rep.Items, Scores: rep.Scores,
	}, nil
}
