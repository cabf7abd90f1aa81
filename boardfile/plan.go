package boardfile

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
)

// planned is a question of the file checked for the board, as
// [board.Store.Load] takes it, with the lines it came from.
type planned struct {
	load  board.LoadQuestion
	line  int   // the question's heading
	lines []int // the line of each of load.Forecasts
}

// planner checks a file's questions against the board's rules (see
// [Import]).
type planner struct {
	qs       []planned
	notes    []string
	findings []forecastfile.Diagnostic
	names    map[string]string // the display name to give each agent
	kinds    map[string]string // each forecaster's kind, by its first forecast in the file
}

// plan checks a file's questions against the board's rules and returns
// them ready to store, with notes on what it assumed, or the findings.
func plan(f *forecastfile.File) ([]planned, []string, []forecastfile.Diagnostic) {
	p := &planner{names: map[string]string{}, kinds: map[string]string{}}
	for i := range f.Questions {
		p.question(&f.Questions[i])
	}
	// Every forecast of an agent names it as the file last does.
	for i := range p.qs {
		q := &p.qs[i].load
		q.Prediction.AgentName = p.names[q.Prediction.AgentID]
		for j := range q.Forecasts {
			q.Forecasts[j].AgentName = p.names[q.Forecasts[j].AgentID]
		}
	}
	return p.qs, p.notes, p.findings
}

// bad records a finding on q at line (q's heading for 0).
func (p *planner) bad(q *forecastfile.Question, line int, problem string) {
	if line == 0 {
		line = q.Line
	}
	p.findings = append(p.findings, forecastfile.Diagnostic{Rule: 0, Severity: forecastfile.Finding,
		QuestionID: q.ID, Line: line, Message: "the board cannot store this: " + problem})
}

// question plans one question, or records its findings.
func (p *planner) question(q *forecastfile.Question) {
	// forecastfile.Check with BoardImport has refused an id the board
	// cannot take and a question without forecasts.
	fcs := slices.Clone(q.Forecasts)
	ats := make([]time.Time, len(fcs))
	for j, fc := range fcs {
		ats[j] = fc.At()
	}
	sortForecasts(fcs, ats)
	pq := planned{load: board.LoadQuestion{ID: q.ID}, line: q.Line}
	if !p.forecasts(q, fcs, ats, &pq) {
		return
	}
	np, err := p.prediction(q, pq.load.Forecasts[0].AgentID, fcs[0].P)
	if err != nil {
		p.bad(q, predictionLine(q, fcs[0], err), problemOf(err))
		return
	}
	pq.load.Prediction = np
	open, closeAt, closed, _ := q.Life()
	pq.load.OpensAt = open
	if !closeAt.IsZero() && closeAt.Year() <= 9999 { // NoResolveBy's end is no close
		pq.load.CloseAt = closeAt
	}
	switch q.Status {
	case forecastfile.StatusResolved:
		pq.load.Outcome = board.Outcome(q.Outcome)
	case forecastfile.StatusVoid:
		pq.load.Outcome = board.OutcomeVoid
	}
	if pq.load.Outcome != "" {
		pq.load.ClosedAt = closed
		if closed.IsZero() || closed.Year() > 9999 {
			pq.load.ClosedAt = ats[len(ats)-1]
			p.notes = append(p.notes, fmt.Sprintf("question %s: nothing says when it closed (no closed_at, close_at or resolve_by), so it is resolved at its last forecast, %s; its report gives it no time-averaged scores",
				q.ID, forecastfile.FormatTime(pq.load.ClosedAt)))
		}
	}
	p.qs = append(p.qs, pq)
}

// forecasts checks q's forecasts fcs, in time order with their times
// ats, into pq, and reports whether the board takes every one.
func (p *planner) forecasts(q *forecastfile.Question, fcs []forecastfile.Forecast, ats []time.Time, pq *planned) bool {
	ok := true
	for j, fc := range fcs {
		id, name, kind, problem := agentOf(fc.Who)
		if problem != "" {
			p.bad(q, fc.Line, problem)
			ok = false
			continue
		}
		if k, seen := p.kinds[id]; seen && k != kind {
			p.bad(q, fc.Line, fmt.Sprintf("forecaster %q is %s %s here and %s %s elsewhere in the file: give one forecaster one kind",
				fc.Who, article(kind), kind, article(k), k))
			ok = false
			continue
		}
		p.kinds[id] = kind
		if name != "" {
			p.names[id] = name
		}
		nf := board.NewForecast{AgentID: id, AgentName: name, Kind: kind, P: []byte(formatP(fc.P)), Note: fc.Note}
		if err := nf.Validate(); err != nil {
			p.bad(q, fc.Line, problemOf(err))
			ok = false
			continue
		}
		pq.load.Forecasts = append(pq.load.Forecasts, board.LoadForecast{NewForecast: nf, At: ats[j]})
		pq.lines = append(pq.lines, fc.Line)
	}
	return ok
}

// prediction is q's post by author, with the confidence conf (its first
// forecast's), as the board validates it.
func (p *planner) prediction(q *forecastfile.Question, author string, conf float64) (board.NewPrediction, error) {
	resolves, resolveBy := q.Resolves, q.ResolveBy.String()
	if resolves == NoResolves {
		resolves = ""
	}
	if resolveBy == NoResolveBy {
		resolveBy = ""
	}
	timeframe := "by " + resolveBy
	if resolveBy == "" {
		timeframe = "no date set"
	}
	title := titleOfHeading(q.Title)
	np := board.NewPrediction{AgentID: author, AgentName: p.names[author], Kind: p.kinds[author], Title: title, Body: bodyOfText(q.Text, title),
		Confidence: &conf, Timeframe: timeframe, Domain: domainOf(q.Tags), Resolves: resolves, ResolveBy: resolveBy}
	return np, np.Validate()
}

// domainOf is the first tag naming one of [board.Domains], in its
// canonical spelling, else Other.
func domainOf(tags []string) string {
	for _, t := range tags {
		for _, d := range board.Domains() {
			if strings.EqualFold(strings.TrimSpace(t), d) {
				return d
			}
		}
	}
	return "Other"
}

// predictionLine is the line of q that the field of err comes from.
func predictionLine(q *forecastfile.Question, first forecastfile.Forecast, err error) int {
	fieldLine := func(key string) int {
		for _, fd := range q.Fields {
			if fd.Key == key {
				return fd.Line
			}
		}
		return q.Line
	}
	var ve *board.ValidationError
	if errors.As(err, &ve) {
		switch ve.Field {
		case "body":
			return q.TextLine
		case "resolves":
			return fieldLine("resolves")
		case "resolve_by", "timeframe":
			return fieldLine("resolve_by")
		case "agent_id", "agent_name", "confidence":
			return first.Line
		}
	}
	return q.Line
}

// sortForecasts orders fcs and their times ats by time, keeping the file's
// order among equal times.
func sortForecasts(fcs []forecastfile.Forecast, ats []time.Time) {
	idx := make([]int, len(fcs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ats[idx[a]].Before(ats[idx[b]]) })
	f2, a2 := slices.Clone(fcs), slices.Clone(ats)
	for i, j := range idx {
		fcs[i], ats[i] = f2[j], a2[j]
	}
}

// formatP writes a probability as the JSON number NewForecast reads.
func formatP(p float64) string { return strconv.FormatFloat(p, 'g', -1, 64) }

// problemOf words a validation error as a finding's message: the field,
// what is wrong and how to fix it.
func problemOf(err error) string {
	var ve *board.ValidationError
	if errors.As(err, &ve) {
		if ve.Hint == "" {
			return ve.Field + " " + ve.Problem
		}
		return ve.Field + " " + ve.Problem + ": " + ve.Hint
	}
	return err.Error()
}

// article is "an" before agent, "a" before person.
func article(kind string) string {
	if kind == board.KindAgent {
		return "an"
	}
	return "a"
}

// agentOf returns the forecaster id of a forecast's who, its kind
// (agent, or person for person:<id>) and the display name to give it (""
// to leave its name alone), or a problem (see [Import]).
func agentOf(who string) (id, name, kind, problem string) {
	kind, w := forecastfile.SplitWho(who)
	if kind == "" {
		kind, w = board.KindAgent, who
	} else if board.ValidAgentID(w) {
		return w, "", kind, ""
	}
	var b strings.Builder
	dash := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	id = strings.Trim(b.String(), "-")
	if len(id) > board.MaxAgentID {
		id = strings.TrimRight(id[:board.MaxAgentID], "-")
	}
	if id == "" {
		return "", "", "", fmt.Sprintf("forecaster %q has no letter or digit to make an agent id of: write agent:<id> with 1 to 64 letters, digits, dots, underscores or hyphens, e.g. agent:alice", who)
	}
	if id != w {
		name = w
	}
	return id, name, kind, ""
}
