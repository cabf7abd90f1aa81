package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/predictions-md/predictions/pool"
)

type combineItem struct {
	Who    string     `json:"who,omitempty" jsonschema:"who made the forecast, such as agent:scout or person"`
	P      Prob       `json:"p"`
	Weight *float64   `json:"weight,omitempty" jsonschema:"relative weight; default 1; 0 leaves the forecast out"`
	At     *time.Time `json:"at,omitempty" jsonschema:"when the forecast was made, an RFC 3339 time such as 2026-11-20T17:05:00Z; recency and skill weigh the newer forecasts more. A forecast without it counts as older than every one with it, and forecasts at the same time keep their order in the list"`
	Skill  *float64   `json:"skill,omitempty" jsonschema:"the forecaster's skill when pooling, in peer-score points per question (the skill estimate of the board's leaderboard); only the skill method uses it; default 0, no evidence"`
}

type combineInput struct {
	Forecasts   []combineItem `json:"forecasts" jsonschema:"the forecasts to pool, one per forecaster: the latest of each"`
	Method      string        `json:"method,omitempty" jsonschema:"which pooled value leads the summary: geo_odds (geometric mean of odds), mean, median, recency (Metaculus's community prediction) or skill (weighted by recency and skill, extremized)"`
	Extremize   *float64      `json:"extremize,omitempty" jsonschema:"factor that pushes the pooled forecast away from 50% by multiplying its log-odds; 1 means none"`
	DisagreePts *float64      `json:"disagree_pts,omitempty" jsonschema:"flag disagreement when the highest and lowest forecasts differ by more than this many percentage points"`
}

// readForecast is a forecast as the tool read it.
type readForecast struct {
	Who    string     `json:"who,omitempty"`
	P      float64    `json:"p" jsonschema:"the probability as a fraction in [0, 1]"`
	ReadAs string     `json:"read_as" jsonschema:"how p was read: probability (a fraction) or percent"`
	Weight float64    `json:"weight"`
	At     *time.Time `json:"at,omitempty" jsonschema:"when the forecast was made, in UTC; absent when not given"`
	Skill  *float64   `json:"skill,omitempty" jsonschema:"the forecaster's skill as given; absent when not given"`
}

type combineOutput struct {
	Method      pool.Method    `json:"method" jsonschema:"the leading method"`
	P           float64        `json:"p" jsonschema:"the leading pooled probability"`
	GeoOdds     float64        `json:"geo_odds" jsonschema:"pooled by geometric mean of odds"`
	Mean        float64        `json:"mean" jsonschema:"pooled by weighted mean of probabilities"`
	Median      float64        `json:"median" jsonschema:"pooled by weighted median"`
	Recency     float64        `json:"recency" jsonschema:"pooled as Metaculus's community prediction: the weighted median, the n-th of N forecasts by time weighing exp(√n − √N) (all alike when N ≤ 2)"`
	Skill       float64        `json:"skill" jsonschema:"pooled by the mean of log-odds weighted by recency and by each forecaster's skill, extremized (see the description)"`
	Extremize   float64        `json:"extremize"`
	Low         float64        `json:"low"`
	High        float64        `json:"high"`
	SpreadPts   float64        `json:"spread_pts" jsonschema:"highest minus lowest forecast, in percentage points"`
	DisagreePts float64        `json:"disagree_pts"`
	Disagree    bool           `json:"disagree" jsonschema:"true when spread_pts is above disagree_pts"`
	N           int            `json:"n" jsonschema:"forecasts included"`
	Excluded    int            `json:"excluded" jsonschema:"forecasts left out by weight 0"`
	Forecasts   []readForecast `json:"forecasts" jsonschema:"the forecasts as read"`
}

func combineForecasts() *Tool {
	return define(Tool{
		Name:    "combine_forecasts",
		Title:   "Combine forecasts",
		Summary: "pool several forecasts of one question into one probability, with spread and a disagreement flag",
		Description: "Pool several forecasts of one yes/no question into one probability. " +
			"Returns the pooled value by all five methods (`method` picks the one that leads), " +
			"the spread between the highest and lowest forecast, and a disagreement flag. " +
			"The methods: geo_odds, the geometric mean of odds; mean; median; " +
			"recency, Metaculus's community prediction: the weighted median with the n-th of N forecasts, ordered by their `at` times, weighing exp(√n − √N) (all alike when N ≤ 2); " +
			fmt.Sprintf("skill, the mean of the log-odds with each forecast weighing its recency weight times exp(%v · `skill`), ", pool.SkillBeta/100) +
			fmt.Sprintf("the forecaster's skill in peer-score points per question, extremized by %v from %d forecasts on. ", pool.SkillExtremize, pool.SkillExtremizeMin) +
			"Give each forecaster's latest forecast; without `at`, forecasts keep the order of the list, oldest first. " +
			probRule + " " +
			"Probabilities of 0 or 1 have infinite odds: the geometric mean of odds and the skill pool clip them to 0.1%/99.9%, with a note.",
	},
		[]Limit{
			{Field: "forecasts", MinItems: 1, MaxItems: 100},
			{Field: "forecasts[].who", MaxLength: 40},
			{Field: "forecasts[].weight", Minimum: num(0)},
			{Field: "forecasts[].skill", Minimum: num(-pool.MaxSkill), Maximum: num(pool.MaxSkill)},
			{Field: "method", Enum: methodNames(), Default: "geo_odds"},
			{Field: "extremize", Minimum: num(1), Maximum: num(3), Default: 1},
			{Field: "disagree_pts", Minimum: num(0), Maximum: num(100), Default: 20},
		},
		`{"forecasts":[{"who":"agent:scout","p":0.62},{"who":"agent:skeptic","p":"35%"},{"who":"person","p":0.55}],"method":"geo_odds"}`,
		runCombine)
}

func runCombine(_ context.Context, in *combineInput, r *Reply) (combineOutput, error) {
	fs := make([]pool.Forecast, len(in.Forecasts))
	read := make([]readForecast, len(in.Forecasts))
	ps := make([]Prob, len(in.Forecasts))
	for i, f := range in.Forecasts {
		ps[i] = f.P
	}
	rs, notes, err := readGroup(ps, func(i int) string { return fmt.Sprintf("forecasts[%d].p", i) })
	if err != nil {
		return combineOutput{}, err
	}
	r.Notes = append(r.Notes, notes...)
	for i, f := range in.Forecasts {
		p := rs[i].P
		fs[i] = pool.Forecast{Who: f.Who, P: p, Weight: f.Weight, Skill: f.Skill}
		w := 1.0
		if f.Weight != nil {
			w = *f.Weight
		}
		read[i] = readForecast{Who: f.Who, P: p, ReadAs: string(rs[i].ReadAs), Weight: w, Skill: f.Skill}
		if f.At != nil {
			fs[i].At = *f.At
			utc := f.At.UTC()
			read[i].At = &utc
		}
	}
	opt := pool.Options{DisagreePts: in.DisagreePts}
	if in.Extremize != nil {
		opt.Extremize = *in.Extremize
	}
	m, err := pool.ParseMethod(in.Method)
	if err != nil {
		return combineOutput{}, fieldError("method", err, "use geo_odds, mean, median, recency or skill")
	}
	opt.Method = m
	res, err := pool.Combine(fs, opt)
	if err != nil {
		return combineOutput{}, combineError(err)
	}
	r.Notes = append(r.Notes, res.Notes...)
	r.Summary = fmt.Sprintf("Pooled forecast %s by %s from %s; spread %s points", pct(res.P), methodName(res.Method),
		plural(res.N, "forecast", "forecasts"), pts(res.SpreadPts))
	if res.Disagree {
		r.Summary += fmt.Sprintf(", more than %s: the forecasters disagree.", pts(res.DisagreePts))
	} else {
		r.Summary += "."
	}
	return combineOutput{
		Method: res.Method, P: res.P, GeoOdds: res.GeoOdds, Mean: res.Mean, Median: res.Median, Recency: res.Recency, Skill: res.Skill,
		Extremize: res.Extremize, Low: res.Low, High: res.High, SpreadPts: res.SpreadPts,
		DisagreePts: res.DisagreePts, Disagree: res.Disagree, N: res.N, Excluded: res.Excluded,
		Forecasts: read,
	}, nil
}

func combineError(err error) error {
	var fe *pool.ForecastError
	switch {
	case errors.As(err, &fe):
		hint := "use a probability from 0 to 1"
		switch fe.Field {
		case "weight":
			hint = "use a weight of 0 or more, or leave weight out (it defaults to 1)"
		case "skill":
			hint = fmt.Sprintf("use a skill from %v to %v peer-score points per question, or leave skill out (no evidence)", -pool.MaxSkill, pool.MaxSkill)
		}
		return fieldError(fmt.Sprintf("forecasts[%d].%s", fe.Index, fe.Field), err, hint)
	case errors.Is(err, pool.ErrAllExcluded):
		return fieldError("forecasts", err, "give at least one forecast a weight above 0, or leave weight out (it defaults to 1)")
	case errors.Is(err, pool.ErrNoForecasts):
		return fieldError("forecasts", err, "send at least one forecast")
	case errors.Is(err, pool.ErrExtremize):
		return fieldError("extremize", err, "use a factor from 1 to 3")
	case errors.Is(err, pool.ErrDisagreePts):
		return fieldError("disagree_pts", err, "use a number of points from 0 to 100")
	}
	return err
}

func methodName(m pool.Method) string {
	switch m {
	case pool.Mean:
		return "mean"
	case pool.Median:
		return "median"
	case pool.Recency:
		return "recency-weighted median (Metaculus's community prediction)"
	case pool.Skill:
		return "skill- and recency-weighted log-odds"
	}
	return "geometric mean of odds"
}

// methodNames lists the values method takes, in package pool's order.
func methodNames() []string {
	var names []string
	for _, m := range pool.Methods() {
		names = append(names, string(m))
	}
	return names
}

const probHint = `send a fraction such as 0.62 or a percent as a string such as "62%"`

// probRule is the reading rule of DECISIONS.md as the tool descriptions
// state it for arrays of forecasts.
const probRule = "All p of one request are read on one scale: a string ending in % is a percent (\"62%\"); " +
	"bare numbers strictly between 0 and 1 say fractions (0.62), numbers above 1 say percents (62), " +
	"and 0 and 1 follow the others (fractions when nothing else says, so [0, 1, 0.7] is certain no, certain yes and 70%). " +
	"An array with both fractions and percents is refused with a 400 naming the items. " +
	"Each forecast's read_as says how it was read, and a note says when bare numbers were read as percents."

// loneRule is the reading rule for a probability that stands alone.
const loneRule = "a bare number below 1 is a fraction (0.3), above 1 a percent (30, with a note), a string ending in % a percent (\"30%\"); " +
	"a bare 1 is refused, since it could mean 1% or certainty (send \"1%\", 0.01 or 0.999)"
