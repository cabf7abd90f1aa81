package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/uptrace/bun"
)

// ImportError is the error of [Store.Import] for a file it refuses; it
// wraps [ErrInvalid]. Nothing was written.
type ImportError struct {
	// Findings are the file's findings by line: those of
	// [forecastfile.Check] (a text that is not UTF-8 is one finding of
	// rule 0), and rule-0 findings for what the board cannot store (a
	// question without forecasts, an id or a title the board does not
	// take, ...), each naming the board's field and how to fix it.
	Findings []forecastfile.Diagnostic `json:"findings"`
}

// Error lists the findings, one "line N: rule R: message" per line.
func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "board: the forecast file has %d finding(s); nothing was imported", len(e.Findings))
	for _, d := range e.Findings {
		b.WriteString("\n")
		b.WriteString(d.String())
	}
	return b.String()
}

// Unwrap returns [ErrInvalid].
func (e *ImportError) Unwrap() error { return ErrInvalid }

// Explain returns the field (the file), the findings by line and how to
// fix them, for an adapter to show.
func (e *ImportError) Explain() (field, problem, hint string) {
	var b strings.Builder
	fmt.Fprintf(&b, "has %d finding(s), so nothing was imported:", len(e.Findings))
	for i, d := range e.Findings {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" " + d.String())
	}
	return "file", b.String(), "fix each finding at its line (check_forecast_md lists the same findings) and send the whole file again"
}

// ImportResult says what [Store.Import] did.
type ImportResult struct {
	// Questions is the number of questions in the file.
	Questions int `json:"questions"`
	// Created are the predictions created, in file order.
	Created []ImportedPrediction `json:"created"`
	// Existing are the ids of the file's questions the board already had;
	// they were left as they are.
	Existing []string `json:"existing"`
	// Forecasts is the number of forecasts stored (authors' confidences
	// included).
	Forecasts int `json:"forecasts"`
	// NewAgents are the ids of the agents created, sorted.
	NewAgents []string `json:"new_agents"`
	// Warnings are [forecastfile.Check]'s warnings on the file.
	Warnings []forecastfile.Diagnostic `json:"warnings"`
}

// ImportedPrediction is a prediction [Store.Import] created.
type ImportedPrediction struct {
	ID        string `json:"id"`
	Line      int    `json:"line"` // line of the question's heading
	Status    Status `json:"status"`
	Forecasts int    `json:"forecasts"`
}

// importQuestion is a question checked for the board.
type importQuestion struct {
	id      string
	line    int
	v       validPrediction
	note    string // the first forecast's note
	created time.Time
	outcome Outcome // "" for open
	rest    []importForecast
}

type importForecast struct {
	agentID, note string
	p             float64
	at            time.Time
}

// Import reads a forecast file (package forecastfile) and adds its
// questions to the board as predictions, with their forecasts, in one
// transaction. A question whose id the board already has is left as it is
// (listed in [ImportResult.Existing]), so importing a file twice changes
// nothing; Import does not update a prediction (forecast on it or resolve
// it through the board).
//
// Each question becomes a prediction with the question's id, title, free
// text as body (the title when it has none; see [Store.Export] for the
// backslashes), resolves and resolve_by ([NoResolves] and [NoResolveBy]
// read as none), the first tag naming one of [Domains] as domain (else
// Other) and "by <resolve_by>" as timeframe. Its forecasts are stored in
// the order of their date and time (UTC; midnight without a time), the
// file's order among equal ones; each keeps its date. The first is the
// author's: its forecaster is the prediction's author and its probability
// the confidence. Each forecast replaces its forecaster's standing one and
// the community forecast is recomputed after each, as [Store.Forecast]
// does, so the standing forecasts make the community forecast. A resolved
// or void question is then resolved as [Store.Resolve] does, at its
// resolve_by (or its last forecast's time, if later, or now, if earlier),
// and every forecaster is scored. Base rates, Notes and other sections are
// not stored; imported predictions notify nobody by mail.
//
// A forecaster written agent:<id> is the agent <id>; any other (such as
// person) is the agent of that name. An agent id is 1 to 64 ASCII letters,
// digits, dots, underscores or hyphens: in a name (or an id after agent:)
// that breaks the rule, every run of other characters becomes one hyphen,
// hyphens at the ends are dropped and the id is cut to 64 characters
// (Jane Doe is the agent Jane-Doe, José is Jos), and the agent's display
// name is the name as written. A name with no letter or digit left is a
// finding. Agents are created as needed.
//
// A file is refused with an *[ImportError] listing every finding with its
// line: forecastfile's findings, and what the board cannot store (a
// question without forecasts, an id that is not 1 to 64 letters, digits,
// dots, underscores or hyphens, text over the board's limits). Nothing is
// written then. Other errors are from reading r or from the database.
// Import reads r to its end: the caller bounds it (http.MaxBytesReader).
func (s *Store) Import(ctx context.Context, r io.Reader) (ImportResult, error) {
	text, err := io.ReadAll(r)
	if err != nil {
		return ImportResult{}, fmt.Errorf("board: import: reading the file: %w", err)
	}
	f, err := forecastfile.Parse(text)
	if err != nil {
		var pe *forecastfile.ParseError
		line := 1
		if errors.As(err, &pe) {
			line = pe.Line
		}
		return ImportResult{}, &ImportError{Findings: []forecastfile.Diagnostic{{
			Rule: 0, Severity: forecastfile.Finding, Line: line, Message: err.Error()}}}
	}
	now := s.clock()
	res := ImportResult{Questions: len(f.Questions), Created: []ImportedPrediction{}, Existing: []string{},
		NewAgents: []string{}, Warnings: []forecastfile.Diagnostic{}}
	var findings []forecastfile.Diagnostic
	for _, d := range forecastfile.Check(f, forecastfile.Options{Now: s.now}) {
		if d.Severity == forecastfile.Finding {
			findings = append(findings, d)
		} else {
			res.Warnings = append(res.Warnings, d)
		}
	}
	if len(findings) > 0 {
		return ImportResult{}, &ImportError{Findings: findings}
	}
	qs, names, findings := plan(f)
	if len(findings) > 0 {
		return ImportResult{}, &ImportError{Findings: findings}
	}
	out := res
	for attempt := 1; ; attempt++ {
		err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			res = out // a transaction run again starts afresh
			res.Created, res.Existing, res.NewAgents = []ImportedPrediction{}, []string{}, []string{}
			return s.importTx(ctx, tx, qs, names, now, &res)
		})
		// A concurrent import of the same question committed first
		// (PostgreSQL): run again, and find it there.
		if attempt == 2 || !uniqueViolation(err) {
			break
		}
	}
	if err != nil {
		return ImportResult{}, fmt.Errorf("board: import: %w", err)
	}
	return res, nil
}

// importTx stores the planned questions the board does not have yet.
func (s *Store) importTx(ctx context.Context, tx bun.Tx, qs []importQuestion, names map[string]string, now time.Time, res *ImportResult) error {
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.id
	}
	have := map[string]bool{}
	if len(ids) > 0 {
		var got []string
		if err := tx.NewRaw(`SELECT id FROM predictions WHERE id IN (?)`, bun.List(ids)).Scan(ctx, &got); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		for _, id := range got {
			have[id] = true
		}
	}
	// Agents first, in id order (the lock order of scoring), with their
	// counters: predictions posted and predictions forecast.
	type counts struct{ predictions, forecasts int }
	agents := map[string]*counts{}
	var order []string
	var todo []importQuestion
	for _, q := range qs {
		if have[q.id] {
			res.Existing = append(res.Existing, q.id)
			continue
		}
		have[q.id] = true
		todo = append(todo, q)
		seen := map[string]bool{}
		add := func(id string) *counts {
			c := agents[id]
			if c == nil {
				c = &counts{}
				agents[id] = c
				order = append(order, id)
			}
			if !seen[id] {
				seen[id] = true
				c.forecasts++
			}
			return c
		}
		add(q.v.agentID).predictions++
		for _, fc := range q.rest {
			add(fc.agentID)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	slices.Sort(order)
	var old []string
	if err := tx.NewRaw(`SELECT id FROM agents WHERE id IN (?)`, bun.List(order)).Scan(ctx, &old); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	existed := map[string]bool{}
	for _, id := range old {
		existed[id] = true
	}
	for _, id := range order {
		ag := s.agentWrite(id, names[id], now)
		ag.predictions, ag.forecasts = agents[id].predictions, agents[id].forecasts
		if _, err := ag.upsert(ctx, tx); err != nil {
			return err
		}
		if !existed[id] {
			res.NewAgents = append(res.NewAgents, id)
		}
	}
	for _, q := range todo {
		flags := s.flags(q.v.title, q.v.body, q.v.timeframe)
		if _, err := insertPrediction(ctx, tx, q.id, q.v, flags, q.note, q.created); err != nil {
			return err
		}
		last := q.created
		for _, fc := range q.rest {
			id, err := newID()
			if err != nil {
				return err
			}
			if _, _, err := addForecast(ctx, tx, q.id, fc.agentID, id, fc.p, fc.note, fc.at, time.Time{}); err != nil {
				return err
			}
			last = fc.at
		}
		status := StatusOpen
		if q.outcome != "" {
			at := now
			if q.v.resolveBy != nil {
				if d, _ := time.Parse(time.DateOnly, q.v.resolveBy.(string)); d.Before(now) {
					at = d
				}
			}
			if at.Before(last) {
				at = last
			}
			if err := s.recordResolution(ctx, tx, q.id, q.v.agentID, q.v.domain, StatusOpen, "", q.outcome, derefTime(q.v.closeAt), at, "import"); err != nil {
				return err
			}
			status = StatusResolved
			if q.outcome == OutcomeVoid {
				status = StatusVoid
			}
		}
		n := 1 + len(q.rest)
		res.Forecasts += n
		res.Created = append(res.Created, ImportedPrediction{ID: q.id, Line: q.line, Status: status, Forecasts: n})
	}
	return nil
}

// plan checks a file's questions against the board's rules and returns
// them ready to store, with the display name to give each agent ("" for
// none), or the findings.
func plan(f *forecastfile.File) ([]importQuestion, map[string]string, []forecastfile.Diagnostic) {
	var qs []importQuestion
	var findings []forecastfile.Diagnostic
	names := map[string]string{}
	for i := range f.Questions {
		q := &f.Questions[i]
		bad := func(line int, format string, args ...any) {
			if line == 0 {
				line = q.Line
			}
			findings = append(findings, forecastfile.Diagnostic{Rule: 0, Severity: forecastfile.Finding,
				QuestionID: q.ID, Line: line, Message: "the board cannot store this: " + fmt.Sprintf(format, args...)})
		}
		fieldLine := func(key string) int {
			for _, fd := range q.Fields {
				if fd.Key == key {
					return fd.Line
				}
			}
			return q.Line
		}
		if !ValidAgentID(q.ID) {
			bad(fieldLine("id"), "id %q is not 1 to 64 letters, digits, dots, underscores or hyphens (it names the prediction in the board's addresses): write an id such as beta-open-2026", q.ID)
			continue
		}
		if len(q.Forecasts) == 0 {
			bad(q.Line, "the question has no forecasts: a prediction needs its author's probability, so add a ## Forecasts section with a line such as - 2026-03-01 · agent:alice · 62%%")
			continue
		}
		fcs := make([]forecastfile.Forecast, len(q.Forecasts))
		copy(fcs, q.Forecasts)
		ats := make([]time.Time, len(fcs))
		for j, fc := range fcs {
			ats[j] = forecastTime(fc)
		}
		sortForecasts(fcs, ats)

		var author, firstNote string
		var rest []importForecast
		ok := true
		for j, fc := range fcs {
			id, name, problem := agentOf(fc.Who)
			if problem != "" {
				bad(fc.Line, "%s", problem)
				ok = false
				continue
			}
			if name != "" {
				names[id] = name
			}
			nf := NewForecast{AgentID: id, AgentName: name, P: []byte(formatP(fc.P)), Note: fc.Note}
			v, err := nf.validate()
			if err != nil {
				bad(fc.Line, "%s", problemOf(err))
				ok = false
				continue
			}
			if j == 0 {
				author, firstNote = id, v.note
				continue
			}
			rest = append(rest, importForecast{agentID: v.agentID, note: v.note, p: v.p, at: ats[j]})
		}
		if !ok {
			continue
		}
		resolves, resolveBy := q.Resolves, q.ResolveBy.String()
		if resolves == NoResolves {
			resolves = ""
		}
		timeframe := "by " + resolveBy
		if resolveBy == NoResolveBy {
			resolveBy, timeframe = "", "no date set"
		}
		domain := "Other"
		for _, t := range q.Tags {
			if d, err := canonicalDomain("tags", t); err == nil {
				domain = d
				break
			}
		}
		p := fcs[0].P
		title := titleOfHeading(q.Title)
		np := NewPrediction{AgentID: author, AgentName: names[author], Title: title, Body: bodyOfText(q.Text, title),
			Confidence: &p, Timeframe: timeframe, Domain: domain, Resolves: resolves, ResolveBy: resolveBy}
		v, err := np.validate()
		if err != nil {
			line := q.Line
			var ve *ValidationError
			if errors.As(err, &ve) {
				switch ve.Field {
				case "body":
					line = q.TextLine
				case "resolves":
					line = fieldLine("resolves")
				case "resolve_by", "timeframe":
					line = fieldLine("resolve_by")
				case "agent_id", "agent_name", "confidence":
					line = fcs[0].Line
				}
			}
			bad(line, "%s", problemOf(err))
			continue
		}
		iq := importQuestion{id: q.ID, line: q.Line, v: v, note: firstNote, created: ats[0], rest: rest}
		switch q.Status {
		case forecastfile.StatusResolved:
			iq.outcome = Outcome(q.Outcome)
		case forecastfile.StatusVoid:
			iq.outcome = OutcomeVoid
		}
		qs = append(qs, iq)
	}
	return qs, names, findings
}

// forecastTime is a forecast's date and time (midnight without one), UTC.
func forecastTime(fc forecastfile.Forecast) time.Time {
	h, m := 0, 0
	if len(fc.Time) == 5 {
		h, _ = strconv.Atoi(fc.Time[:2])
		m, _ = strconv.Atoi(fc.Time[3:])
	}
	return time.Date(fc.Date.Year, fc.Date.Month, fc.Date.Day, h, m, 0, 0, time.UTC)
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
	var ve *ValidationError
	if errors.As(err, &ve) {
		if ve.Hint == "" {
			return ve.Field + " " + ve.Problem
		}
		return ve.Field + " " + ve.Problem + ": " + ve.Hint
	}
	return err.Error()
}

// agentOf returns the agent id of a forecast's who and the display name to
// give it ("" to leave the agent's name alone), or a problem (see
// [Store.Import]).
func agentOf(who string) (id, name, problem string) {
	w := who
	if len(w) >= 6 && strings.EqualFold(w[:6], "agent:") {
		w = strings.TrimSpace(w[6:])
		if ValidAgentID(w) {
			return w, "", ""
		}
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
	if len(id) > MaxAgentID {
		id = strings.TrimRight(id[:MaxAgentID], "-")
	}
	if id == "" {
		return "", "", fmt.Sprintf("forecaster %q has no letter or digit to make an agent id of: write agent:<id> with 1 to 64 letters, digits, dots, underscores or hyphens, e.g. agent:alice", who)
	}
	if id != w {
		name = w
	}
	return id, name, ""
}

// uniqueViolation reports whether PostgreSQL refused a row whose key
// another transaction had inserted (SQLSTATE 23505). SQLite runs one write
// transaction at a time, so there it does not happen.
func uniqueViolation(err error) bool {
	var pg interface{ Field(byte) string } // pgdriver.Error
	return errors.As(err, &pg) && pg.Field('C') == "23505"
}
