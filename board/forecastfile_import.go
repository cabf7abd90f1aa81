package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/database"
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
	// Existing are the ids of the file's questions the board already had:
	// not created again. Their forecast lines the board lacks are added
	// (Updated) or named in Notes.
	Existing []string `json:"existing"`
	// Updated are the predictions the board already had to which the file
	// added forecasts (Forecasts counts those added), in file order.
	Updated []ImportedPrediction `json:"updated"`
	// Forecasts is the number of forecasts stored (authors' confidences
	// included).
	Forecasts int `json:"forecasts"`
	// NewAgents are the ids of the agents created, sorted.
	NewAgents []string `json:"new_agents"`
	// Warnings are [forecastfile.Check]'s warnings on the file.
	Warnings []forecastfile.Diagnostic `json:"warnings"`
	// Notes name every forecast line of a question the board already had
	// that was not stored, and why, and anything else the import assumed
	// or left alone; never nil.
	Notes []string `json:"notes"`
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
	note    string    // the first forecast's note
	created time.Time // opens_at
	first   time.Time // the first forecast's time
	closed  time.Time // closed_at, for a resolved or void question
	outcome Outcome   // "" for open
	rest    []importForecast
	all     []importForecast // every forecast, the first included, by time
}

type importForecast struct {
	agentID, note string
	p             float64
	at            time.Time
	line          int
}

// Import reads a forecast file (package forecastfile) and adds its
// questions to the board as predictions, with their forecasts. A question whose id the board already has is not created
// again (listed in [ImportResult.Existing]); its forecast lines are
// matched to the board's by forecaster and time (to the microsecond), and
// those the board lacks are added as [Store.Forecast] adds them when they
// could have been made there: the prediction still open, before its
// close_at, not before its latest stored forecast, not in the future.
// Every other line is named in [ImportResult.Notes], never dropped
// silently; importing a file twice changes nothing. Import does not
// resolve a prediction the board has (resolve it through the board).
//
// Each question becomes a prediction with the question's id, title, free
// text as body (the title when it has none; see [Store.Export] for the
// backslashes), resolves and resolve_by ([NoResolves] and [NoResolveBy]
// read as none), the first tag naming one of [Domains] as domain (else
// Other) and "by <resolve_by>" as timeframe. Its forecasts are stored in
// the order of their date and time (UTC; midnight without a time), the
// file's order among equal ones; each keeps its time, to the
// microsecond. The first is the author's: its forecaster is the
// prediction's author and its probability the confidence. Each forecast
// replaces its forecaster's standing one and the community forecast is
// recomputed after each, as [Store.Forecast] does, so the standing
// forecasts make the community forecast. A resolved or void question is
// then resolved as [Store.Resolve] does, by "import", at its actual close,
// and every forecaster is scored. Base rates, Notes and other sections are
// not stored; imported predictions notify nobody by mail.
//
// A question's life is [forecastfile.Question.Life], the one the file's
// report scores it over: opens_at (else its first forecast) is the
// prediction's creation, close_at (else the end of the resolve_by day) its
// scheduled close, and closed_at (else the scheduled close) the actual
// close and time of resolution of a resolved or void question; with none
// of them, the last forecast's time, with a note. So the board's scores of
// an imported question are the report's.
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
// line: the findings of [forecastfile.Check] with
// [forecastfile.Options.BoardImport], which include what the board
// cannot store (a question without forecasts, an id that is not 1 to 64
// letters, digits, dots, underscores or hyphens, text over the board's
// limits), so that the checker reports whatever import refuses. Nothing is
// written then. Other errors are from reading r or from the database.
//
// A file the checks accept is stored in transactions of whole questions,
// in file order, of about [importBatchLines] forecast lines each (a
// question with more lines is one transaction of its own), so that other
// writes wait for one batch rather than for the whole file; the cost of
// each grows with its lines, not with their square. Each question is
// stored whole or not at all. An error from the database after some
// batches were stored says how many questions were; sending the same file
// again stores the rest, since the questions the board has are not
// created again and the forecast lines it has are not stored twice.
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
		Updated: []ImportedPrediction{}, NewAgents: []string{}, Warnings: []forecastfile.Diagnostic{}, Notes: []string{}}
	var findings []forecastfile.Diagnostic
	for _, d := range forecastfile.Check(f, forecastfile.Options{Now: s.now, BoardImport: true}) {
		if d.Severity == forecastfile.Finding {
			findings = append(findings, d)
		} else {
			res.Warnings = append(res.Warnings, d)
		}
	}
	if len(findings) > 0 {
		return ImportResult{}, &ImportError{Findings: findings}
	}
	qs, names, notes, findings := plan(f)
	if len(findings) > 0 {
		return ImportResult{}, &ImportError{Findings: findings}
	}
	res.Notes = append(res.Notes, notes...)
	stored := 0 // questions of the batches committed
	for _, batch := range batches(qs, importBatchLines) {
		done := res
		for attempt := 1; ; attempt++ {
			err = s.writeTx(ctx, func(ctx context.Context, tx bun.Tx, ev *eventBatch) error {
				res = done // a transaction run again starts afresh
				res.Created, res.Existing, res.Updated = slices.Clone(done.Created), slices.Clone(done.Existing), slices.Clone(done.Updated)
				res.NewAgents, res.Notes = slices.Clone(done.NewAgents), slices.Clone(done.Notes)
				return s.importTx(ctx, tx, ev, batch, names, now, &res)
			})
			// A concurrent import of the same question committed first
			// (PostgreSQL): run again, and find it there.
			if attempt == 2 || !database.UniqueViolation(err) {
				break
			}
		}
		if err != nil {
			if stored > 0 {
				return ImportResult{}, fmt.Errorf("board: import: the first %d of the file's %d questions were stored before this error (send the file again to store the rest: what the board has is not stored twice): %w",
					stored, len(qs), err)
			}
			return ImportResult{}, fmt.Errorf("board: import: %w", err)
		}
		stored += len(batch)
	}
	slices.Sort(res.NewAgents)
	return res, nil
}

// importBatchLines is about the most forecast lines one import
// transaction stores: the file's questions go to the board in
// transactions of whole questions of at most this many lines together
// (a longer question alone), so that other writes wait for one batch, not
// for the whole file.
const importBatchLines = 2000

// batches splits qs, in order, into runs of whole questions of at most
// max forecast lines together, or of one longer question.
func batches(qs []importQuestion, max int) [][]importQuestion {
	var out [][]importQuestion
	start, lines := 0, 0
	for i, q := range qs {
		if i > start && lines+len(q.all) > max {
			out = append(out, qs[start:i])
			start, lines = i, 0
		}
		lines += len(q.all)
	}
	if start < len(qs) || len(out) == 0 {
		out = append(out, qs[start:])
	}
	return out
}

// importTx stores the planned questions the board does not have yet.
//
// It appends one event a question, not one a forecast line: a question
// created is prediction.created (at its opening), then its resolution's
// event if the file resolves it; a question given forecast lines is
// community.moved when the community forecast moved.
func (s *Store) importTx(ctx context.Context, tx bun.Tx, ev *eventBatch, qs []importQuestion, names map[string]string, now time.Time, res *ImportResult) error {
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
	var existing []importQuestion
	for _, q := range qs {
		if have[q.id] {
			res.Existing = append(res.Existing, q.id)
			if !slices.ContainsFunc(existing, func(e importQuestion) bool { return e.id == q.id }) {
				existing = append(existing, q)
			}
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
	for _, q := range existing {
		if err := s.importForecasts(ctx, tx, ev, q, names, now, res); err != nil {
			return err
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
	ws := make([]agentWrite, len(order))
	for i, id := range order {
		ws[i] = s.agentWrite(id, names[id], now)
		ws[i].predictions, ws[i].forecasts = agents[id].predictions, agents[id].forecasts
		if !existed[id] {
			res.NewAgents = append(res.NewAgents, id)
		}
	}
	if err := upsertAgents(ctx, tx, ws); err != nil {
		return err
	}
	// The domains' counters change last, once a domain, in name order
	// (counters come last in the lock order, and are then held for the
	// least time).
	domains := map[string]*domainDelta{}
	for _, q := range todo {
		if domains[q.v.domain] == nil {
			domains[q.v.domain] = &domainDelta{}
		}
	}
	for _, q := range todo {
		flags := s.flags(q.v.title, q.v.body, q.v.timeframe)
		if err := insertPredictionRow(ctx, tx, q.id, q.v, flags, q.created); err != nil {
			return err
		}
		// The first forecast is the author's and has the prediction's id,
		// as [Store.CreatePrediction] stores it.
		lines := make([]line, len(q.all))
		for i, fc := range q.all {
			id := q.id
			if i > 0 {
				var err error
				if id, err = newID(); err != nil {
					return err
				}
			}
			lines[i] = line{id: id, agentID: fc.agentID, note: fc.note, p: fc.p, at: fc.at}
		}
		if _, err := appendForecasts(ctx, tx, q.id, 0, map[string]float64{}, lines); err != nil {
			return err
		}
		ev.add(Event{Type: EventPredictionCreated, At: q.created, PredictionID: q.id, Domain: q.v.domain, AuthorID: q.v.agentID, AgentID: q.v.agentID},
			createdData{Title: q.v.title, Confidence: q.v.confidence, CloseAt: q.v.closeAt})
		d := domains[q.v.domain]
		d.predictions++
		status := StatusOpen
		if q.outcome != "" {
			r, err := s.recordResolution(ctx, tx, q.id, q.v.agentID, StatusOpen, "", q.outcome, derefTime(q.v.closeAt), q.closed, "import")
			if err != nil {
				return err
			}
			closed := q.closed // the actual close, as recordResolution takes it
			if q.v.closeAt != nil && q.v.closeAt.Before(closed) {
				closed = *q.v.closeAt
			}
			ev.add(resolutionEvent(Prediction{ID: q.id, Domain: q.v.domain, AgentID: q.v.agentID, Outcome: q.outcome, ClosedAt: &closed,
				Resolutions: []Resolution{{At: q.closed}}}, StatusOpen, "", "import"))
			d.plus(r)
			status = StatusResolved
			if q.outcome == OutcomeVoid {
				status = StatusVoid
			}
		}
		n := 1 + len(q.rest)
		res.Forecasts += n
		res.Created = append(res.Created, ImportedPrediction{ID: q.id, Line: q.line, Status: status, Forecasts: n})
	}
	for _, domain := range slices.Sorted(maps.Keys(domains)) {
		if err := bumpDomain(ctx, tx, domain, *domains[domain]); err != nil {
			return err
		}
	}
	return nil
}

// plan checks a file's questions against the board's rules and returns
// them ready to store, with the display name to give each agent ("" for
// none), or the findings.
func plan(f *forecastfile.File) ([]importQuestion, map[string]string, []string, []forecastfile.Diagnostic) {
	var qs []importQuestion
	var notes []string
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
		// forecastfile.Check with BoardImport has refused an id the board
		// cannot take and a question without forecasts.
		fcs := make([]forecastfile.Forecast, len(q.Forecasts))
		copy(fcs, q.Forecasts)
		ats := make([]time.Time, len(fcs))
		for j, fc := range fcs {
			ats[j] = fc.At()
		}
		sortForecasts(fcs, ats)

		var author, firstNote string
		var rest, all []importForecast
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
			all = append(all, importForecast{agentID: v.agentID, note: v.note, p: v.p, at: ats[j], line: fc.Line})
			if j == 0 {
				author, firstNote = id, v.note
				continue
			}
			rest = append(rest, all[len(all)-1])
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
		open, closeAt, closed, _ := q.Life()
		v.closeAt = nil
		if !closeAt.IsZero() && closeAt.Year() <= 9999 { // NoResolveBy's end is no close
			v.closeAt = &closeAt
		}
		iq := importQuestion{id: q.ID, line: q.Line, v: v, note: firstNote, created: open, first: ats[0], rest: rest, all: all}
		switch q.Status {
		case forecastfile.StatusResolved:
			iq.outcome = Outcome(q.Outcome)
		case forecastfile.StatusVoid:
			iq.outcome = OutcomeVoid
		}
		if iq.outcome != "" {
			iq.closed = closed
			if closed.IsZero() || closed.Year() > 9999 {
				iq.closed = ats[len(ats)-1]
				notes = append(notes, fmt.Sprintf("question %s: nothing says when it closed (no closed_at, close_at or resolve_by), so it is resolved at its last forecast, %s; its report gives it no time-averaged scores",
					q.ID, forecastfile.FormatTime(iq.closed)))
			}
		}
		qs = append(qs, iq)
	}
	return qs, names, notes, findings
}

// importForecasts adds to a prediction the board already has the forecast
// lines of its question that the board lacks (see [Store.Import]), and
// names in res.Notes every line it does not store.
func (s *Store) importForecasts(ctx context.Context, tx bun.Tx, ev *eventBatch, q importQuestion, names map[string]string, now time.Time, res *ImportResult) error {
	var cur []struct {
		Status  string       `bun:"status"`
		Outcome string       `bun:"outcome"`
		CloseAt bun.NullTime `bun:"close_at"`
		AgentID string       `bun:"agent_id"`
		Domain  string       `bun:"domain"`
		Geo     float64      `bun:"community_geo"`
		Mean    float64      `bun:"community_mean"`
		Median  float64      `bun:"community_median"`
	}
	if err := tx.NewRaw(`SELECT status, COALESCE(outcome, '') AS outcome, close_at, agent_id, domain,
	community_geo, community_mean, community_median FROM predictions WHERE id = ?`+s.forUpdate(), q.id).Scan(ctx, &cur); err != nil {
		return err
	}
	if len(cur) == 0 {
		return notFound("prediction", q.id)
	}
	var stored []struct {
		AgentID   string    `bun:"agent_id"`
		CreatedAt time.Time `bun:"created_at"`
	}
	if err := tx.NewRaw(`SELECT agent_id, created_at FROM forecasts WHERE prediction_id = ? ORDER BY seq`, q.id).Scan(ctx, &stored); err != nil {
		return err
	}
	type key struct {
		agent string
		at    int64
	}
	have := map[key]bool{}
	var last time.Time
	for _, f := range stored {
		have[key{f.AgentID, f.CreatedAt.UnixMicro()}] = true
		if f.CreatedAt.After(last) {
			last = f.CreatedAt.UTC()
		}
	}
	st, closeAt := Status(cur[0].Status), time.Time{}
	if !cur[0].CloseAt.IsZero() {
		closeAt = cur[0].CloseAt.Time.UTC()
	}
	if q.outcome != "" && st == StatusOpen {
		res.Notes = append(res.Notes, fmt.Sprintf("question %s (line %d): the file says %s, but import does not resolve a prediction the board has; a moderator resolves it with POST /api/predictions/%s/resolve",
			q.id, q.line, q.outcome, q.id))
	}
	var stand []standing
	if err := tx.NewRaw(`SELECT agent_id, p FROM standings WHERE prediction_id = ?`, q.id).Scan(ctx, &stand); err != nil {
		return err
	}
	current := make(map[string]float64, len(stand))
	for _, st := range stand {
		current[st.AgentID] = st.P
	}
	var lines []line
	newcomer := map[string]bool{} // forecasters new to the prediction: their forecasts counter goes up
	for _, fc := range q.all {
		at := fc.at.Truncate(time.Microsecond)
		if have[key{fc.agentID, at.UnixMicro()}] {
			continue // stored before: importing again changes nothing
		}
		skip := func(why string) {
			res.Notes = append(res.Notes, fmt.Sprintf("question %s, line %d: the forecast by %s at %s is not stored: %s",
				q.id, fc.line, fc.agentID, forecastfile.FormatTime(at), why))
		}
		switch {
		case st != StatusOpen:
			skip(fmt.Sprintf("the prediction is %s on the board and takes no forecasts", st))
		case !closeAt.IsZero() && !at.Before(closeAt):
			skip(fmt.Sprintf("it is at or after the prediction's close_at, %s", forecastfile.FormatTime(closeAt)))
		case at.Before(last):
			skip(fmt.Sprintf("it is before the prediction's latest forecast on the board, %s, and the board keeps forecasts in the order they were made", forecastfile.FormatTime(last)))
		case at.After(now):
			skip("it is in the future")
		default:
			id, err := newID()
			if err != nil {
				return err
			}
			if _, ok := current[fc.agentID]; !ok {
				newcomer[fc.agentID] = true
			}
			lines = append(lines, line{id: id, agentID: fc.agentID, note: fc.note, p: fc.p, at: at})
			have[key{fc.agentID, at.UnixMicro()}] = true
			last = at
		}
	}
	if len(lines) == 0 {
		return nil
	}
	// The forecasters' rows first, in id order (the lock order of scoring).
	var agents []string
	for _, l := range lines {
		agents = append(agents, l.agentID)
	}
	slices.Sort(agents)
	agents = slices.Compact(agents)
	ws := make([]agentWrite, len(agents))
	for i, a := range agents {
		ws[i] = s.agentWrite(a, names[a], now)
		if newcomer[a] {
			ws[i].forecasts = 1
		}
	}
	if err := upsertAgents(ctx, tx, ws); err != nil {
		return err
	}
	prev, err := lastForecast(ctx, tx, q.id)
	if err != nil {
		return err
	}
	c, err := appendForecasts(ctx, tx, q.id, prev.Seq, current, lines)
	if err != nil {
		return err
	}
	was, moved := pick(s.method, cur[0].Geo, cur[0].Mean, cur[0].Median), pick(s.method, c.geo, c.mean, c.median)
	if moved != was {
		ev.add(Event{Type: EventCommunityMoved, At: last, PredictionID: q.id, Domain: cur[0].Domain, AuthorID: cur[0].AgentID},
			movedData{P: moved, Previous: was, Forecasters: c.n, Method: string(s.method)})
	}
	res.Forecasts += len(lines)
	res.Updated = append(res.Updated, ImportedPrediction{ID: q.id, Line: q.line, Status: st, Forecasts: len(lines)})
	return nil
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
