package forecastfile

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
)

// Report is everything the checker says about a file: the findings and
// warnings of [Check], and for each question the latest forecast of each
// forecaster, their combined forecast, and for resolved questions the
// scores. It is the output of the check_forecast_md tool.
type Report struct {
	// Summary is one sentence a person can read.
	Summary string `json:"summary"`
	// OK is true when there are no findings (warnings are advice).
	OK bool `json:"ok"`
	// Today is the date used for overdue questions (rule 6).
	Today Date `json:"today"`
	// FormatVersion is the front-matter version (predictions), 0 if absent.
	FormatVersion int  `json:"format_version"`
	Updated       Date `json:"updated,omitzero"`
	// Counts of questions by status, and of readable forecast lines.
	Questions int `json:"questions"`
	Open      int `json:"open"`
	Resolved  int `json:"resolved"`
	Void      int `json:"void"`
	Forecasts int `json:"forecasts"`
	// Findings break the format (rules 0 to 3); Warnings are advice (rules
	// 0 and 4 to 8). Never nil.
	Findings []Diagnostic `json:"findings"`
	Warnings []Diagnostic `json:"warnings"`
	// Rules names the eight rules of the format, by number ("1" to "8"),
	// and rule 0, so that a report explains itself.
	Rules map[string]string `json:"rules"`
	// Items reports each question, in file order. Never nil.
	Items []QuestionReport `json:"items"`
	// Scores scores every scored forecast of the resolved questions, overall
	// and per forecaster, with a calibration table; nil when no question is
	// resolved with forecasts.
	Scores *scoring.Result `json:"scores"`
	// Notes say what was left out or clipped, in plain words. Never nil.
	Notes []string `json:"notes"`
}

// QuestionReport is the part of a [Report] about one question.
type QuestionReport struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Line      int      `json:"line"`
	Status    Status   `json:"status"`
	ResolveBy Date     `json:"resolve_by,omitzero"`
	Outcome   Outcome  `json:"outcome,omitempty"`
	BaseRate  *float64 `json:"base_rate,omitempty"`
	// OpensAt, CloseAt and ClosedAt are the question's keys opens_at,
	// close_at and closed_at; for a question resolved yes or no, the life
	// its time-averaged scores use, with the times assumed for the keys
	// not given (see [File.Report]), which Assumed lists.
	OpensAt  time.Time `json:"opens_at,omitzero"`
	CloseAt  time.Time `json:"close_at,omitzero"`
	ClosedAt time.Time `json:"closed_at,omitzero"`
	Assumed  []string  `json:"assumed,omitempty"`
	// Overdue is set for an open question past its resolve_by (rule 6).
	Overdue bool `json:"overdue"`
	// Forecasts counts the readable forecast lines.
	Forecasts int `json:"forecasts"`
	// Latest is each forecaster's latest readable forecast, sorted by who.
	// Never nil.
	Latest []Entry `json:"latest"`
	// Combined pools Latest by the geometric mean of odds (pool.GeoOdds;
	// the mean, the median and the recency and skill pools, which order
	// the forecasts by their dates and times and count every forecaster's
	// skill as 0, are given too); nil without forecasts.
	Combined *pool.Result `json:"combined"`
	// Scored is, for a resolved question, each forecaster's latest
	// forecast made before the question closed (on or before resolve_by
	// when no key says when it closed), with its scores. Never nil.
	Scored []ScoredEntry `json:"scored"`
}

// Entry is one forecast in a report.
type Entry struct {
	Who  string  `json:"who"`
	P    float64 `json:"p"` // fraction in [0,1]
	Date Date    `json:"date"`
	Time string  `json:"time,omitempty"`
	Line int     `json:"line"`
	Note string  `json:"note,omitempty"`
}

// ScoredEntry is a forecast of a resolved question with its scores.
type ScoredEntry struct {
	Entry
	// Brier is (p − outcome)², 0 best; LogScore is ln of the probability
	// given to what happened (p clipped to [0.1%, 99.9%]), 0 best.
	Brier    float64 `json:"brier"`
	LogScore float64 `json:"log_score"`
	// BaselineScore, PeerScore and Coverage are the forecaster's
	// Metaculus scores over the question's life, each forecast counted for
	// the time it stood (scoring.TimeAveraged; docs/SCORES.md): named as
	// in the agent board's score table.
	BaselineScore float64 `json:"baseline_score"`
	PeerScore     float64 `json:"peer_score"`
	Coverage      float64 `json:"coverage"`
}

// ruleNames explain the rule numbers in reports.
var ruleNames = map[string]string{
	"0": "the file's layout: front matter, headings, keys, id (1 to 64 letters, digits, dots, underscores or hyphens) and status (findings when data cannot be read, warnings when it was read by forgiving a deviation)",
	"1": "every question says how it resolves and by when (resolves, resolve_by; opens_at, close_at and closed_at, when given, are times in order)",
	"2": "forecasts are dated, carry a probability and say who made them",
	"3": "resolved questions have an outcome (yes or no); open and void ones have none",
	"4": "warn on a probability of 0% or 100%",
	"5": "warn on certainty language",
	"6": "warn on overdue questions (open past resolve_by)",
	"7": "warn on forecasts dated after the resolve date, or made after the question closed (close_at, closed_at)",
	"8": "warn on text that reads like instructions to an agent",
}

// Report checks f (see [Check]) and adds, for each question, each
// forecaster's latest forecast, the combined forecast (geometric mean of
// odds of the latest forecasts) and, for resolved questions, the scores of
// each forecaster's latest forecast made before the question closed (on
// or before resolve_by when no key says when it closed). The overall
// scores and calibration table use opt.Bins bins.
//
// For a question resolved yes or no, each scored forecaster also gets
// Metaculus's time-averaged baseline and peer scores and its coverage
// (scoring.TimeAveraged) over the question's life: opens_at, close_at
// and closed_at when given. For a key not given it assumes, and a note
// says so: the open is the earliest forecast; the scheduled close the end
// of the resolve_by day (the next day at 00:00 UTC), or closed_at when
// that is later; the actual close closed_at, or else the scheduled close.
// Void and open questions get no time-averaged scores.
//
// Unreadable forecast lines are left out of the numbers (they are rule-2
// findings). Report returns an error only for opt.Bins out of range (it
// wraps scoring.ErrBins).
func (f *File) Report(opt Options) (*Report, error) {
	if opt.Bins < 0 || opt.Bins > scoring.MaxBins {
		return nil, fmt.Errorf("forecastfile: bins %d: %w", opt.Bins, scoring.ErrBins)
	}
	today := opt.Today()
	r := &Report{
		OK: true, Today: today, FormatVersion: f.Version, Updated: f.Updated,
		Findings: []Diagnostic{}, Warnings: []Diagnostic{}, Items: []QuestionReport{},
		Notes: []string{}, Rules: ruleNames,
	}
	for _, d := range Check(f, opt) {
		if d.Severity == Finding {
			r.Findings = append(r.Findings, d)
			r.OK = false
		} else {
			r.Warnings = append(r.Warnings, d)
		}
	}
	var all []scoring.Forecast
	whos := map[string]bool{}
	for i := range f.Questions {
		q := &f.Questions[i]
		qr := QuestionReport{
			ID: q.ID, Title: q.Title, Line: q.Line, Status: q.Status, ResolveBy: q.ResolveBy,
			Outcome: q.Outcome, BaseRate: q.BaseRate, Latest: []Entry{}, Scored: []ScoredEntry{},
			OpensAt: q.OpensAt, CloseAt: q.CloseAt, ClosedAt: q.ClosedAt,
		}
		r.Questions++
		switch q.Status {
		case StatusResolved:
			r.Resolved++
		case StatusVoid:
			r.Void++
		default:
			r.Open++
			qr.Overdue = !q.ResolveBy.IsZero() && q.ResolveBy.Compare(today) < 0
		}
		for _, fc := range q.Forecasts {
			if usable(fc) {
				qr.Forecasts++
				whos[fc.Who] = true
			}
		}
		r.Forecasts += qr.Forecasts
		qr.Latest = latest(q.Forecasts, time.Time{})
		if len(qr.Latest) > 0 {
			pf := make([]pool.Forecast, len(qr.Latest))
			for j, e := range qr.Latest {
				// The time orders the forecasts for the recency and skill
				// pools; a file carries no skills.
				pf[j] = pool.Forecast{Who: e.Who, P: e.P, At: Forecast{Date: e.Date, Time: e.Time}.At()}
			}
			res, err := pool.Combine(pf, pool.Options{})
			if err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("question %s: no combined forecast: %v", q.ID, err))
			} else {
				qr.Combined = &res
			}
		}
		if q.Status == StatusResolved && (q.Outcome == OutcomeYes || q.Outcome == OutcomeNo) {
			all = append(all, r.scoreQuestion(q, &qr)...)
		}
		r.Items = append(r.Items, qr)
	}
	if len(all) > 0 {
		res, err := scoring.Score(all, scoring.Options{Bins: opt.Bins})
		if err != nil {
			return nil, err
		}
		r.Scores = res
	}
	r.Summary = summary(r, len(whos))
	return r, nil
}

// scoreQuestion fills in the scores of a question resolved yes or no and
// returns its scored forecasts.
func (r *Report) scoreQuestion(q *Question, qr *QuestionReport) []scoring.Forecast {
	yes := q.Outcome == OutcomeYes
	var timed []scoring.TimedForecast
	var earliest time.Time
	for _, fc := range q.Forecasts {
		if usable(fc) {
			at := fc.At()
			timed = append(timed, scoring.TimedForecast{Who: fc.Who, P: fc.P, At: at})
			if earliest.IsZero() || at.Before(earliest) {
				earliest = at
			}
		}
	}
	l := q.lifeOf(earliest)
	qr.OpensAt, qr.CloseAt, qr.ClosedAt, qr.Assumed = l.open, l.close, l.actual, l.keys
	if len(l.assumed) > 0 && len(timed) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("question %s: times assumed for the time-averaged scores: %s", q.ID, strings.Join(l.assumed, "; ")))
	}
	by := map[string]scoring.TimeScore{}
	switch ts, err := scoring.TimeAveraged(timed, scoring.Life{Open: l.open, Close: l.close, ActualClose: l.actual}, yes); {
	case err == nil:
		for _, t := range ts {
			by[t.Who] = t
		}
	case len(timed) > 0:
		r.Notes = append(r.Notes, fmt.Sprintf("question %s: no time-averaged scores: nothing says when it closed; add resolve_by, close_at or closed_at", q.ID))
	}
	var scored []scoring.Forecast
	for _, e := range latest(q.Forecasts, l.actual) {
		one := []scoring.Forecast{{Who: e.Who, P: e.P, Outcome: yes}}
		b, err1 := scoring.Brier(one)
		lg, _, err2 := scoring.Log(one)
		if err1 != nil || err2 != nil {
			continue // unreachable: usable forecasts have P in [0,1]
		}
		t := by[e.Who]
		qr.Scored = append(qr.Scored, ScoredEntry{Entry: e, Brier: b, LogScore: lg, BaselineScore: t.Baseline, PeerScore: t.Peer, Coverage: t.Coverage})
		scored = append(scored, one[0])
	}
	if n := len(qr.Latest) - len(qr.Scored); n > 0 {
		if l.byKey {
			r.Notes = append(r.Notes, fmt.Sprintf("question %s: %d forecaster(s) forecast only when the question had closed (%s) and are not scored", q.ID, n, FormatTime(l.actual)))
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("question %s: %d forecaster(s) forecast only after resolve_by %s and are not scored", q.ID, n, q.ResolveBy))
		}
	}
	return scored
}

// usable reports whether a forecast can enter the numbers.
func usable(fc Forecast) bool {
	return fc.Raw == "" && !fc.Date.IsZero() && strings.TrimSpace(fc.Who) != "" && fc.P >= 0 && fc.P <= 1
}

// latest returns each forecaster's latest usable forecast (by time, then
// line order), only those made before before when it is not zero, sorted
// by who.
func latest(fcs []Forecast, before time.Time) []Entry {
	idx := map[string]int{}
	out := []Entry{}
	ats := []time.Time{}
	for _, fc := range fcs {
		at := fc.At()
		if !usable(fc) || (!before.IsZero() && !at.Before(before)) {
			continue
		}
		e := Entry{Who: fc.Who, P: fc.P, Date: fc.Date, Time: fc.Time, Line: fc.Line, Note: fc.Note}
		j, seen := idx[fc.Who]
		if !seen {
			idx[fc.Who] = len(out)
			out, ats = append(out, e), append(ats, at)
			continue
		}
		if !at.Before(ats[j]) {
			out[j], ats[j] = e, at
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Who < out[b].Who })
	return out
}

func summary(r *Report, forecasters int) string {
	verdict := "no findings"
	if n := len(r.Findings); n > 0 {
		verdict = plural(n, "finding")
	}
	return fmt.Sprintf("%s (%d open, %d resolved, %d void) with %s by %s: %s and %s.",
		plural(r.Questions, "question"), r.Open, r.Resolved, r.Void,
		plural(r.Forecasts, "forecast"), plural(forecasters, "forecaster"),
		verdict, plural(len(r.Warnings), "warning"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
