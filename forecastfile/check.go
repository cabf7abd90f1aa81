package forecastfile

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Options configure [Check] and [Report]. The zero value is ready to use.
type Options struct {
	// Now returns the current time; its date in UTC is "today" for overdue
	// questions (rule 6). Nil means time.Now. Tests pin it.
	Now func() time.Time
	// Bins is the number of calibration bins of [File.Report]'s scores;
	// 0 means 10 (scoring.DefaultBins). Check ignores it.
	Bins int
	// BoardImport adds, as rule-0 findings, what the agent board's import
	// needs beyond the format, and makes a missing resolves or resolve_by,
	// which the board does without, a warning (see [Check]): the board
	// sets it, so that a file it imports is one Check passes with it.
	BoardImport bool
}

// Today returns the date "today" means for o: the UTC date of o.Now().
func (o Options) Today() Date {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	return DateOf(now().UTC())
}

// Check applies the rules of the format to f and returns every finding and
// warning, ordered by line, then rule. It includes the layout diagnostics
// Parse recorded in [File.Diagnostics].
//
// Findings (the file breaks the format):
//   - rule 0: an unreadable front-matter value, an unclosed front matter, an
//     empty heading, a missing or repeated id, an id that is not 1 to 64
//     letters, digits, dots, underscores or hyphens ([ValidID]), a missing
//     or unknown status, a repeated key, an unreadable base_rate;
//   - rule 1: no resolves, or no readable resolve_by; an unreadable
//     opens_at, close_at or closed_at ([ParseTime]); close_at not after
//     opens_at; closed_at after close_at or before opens_at;
//   - rule 2: a forecast line without a readable date (and HH:MM time when
//     given), who, or probability in percent;
//   - rule 3: a resolved question without a yes/no outcome, or an outcome on
//     an open or void question.
//
// Warnings (advice): rule 0 for forgiven layout (unknown keys, separators,
// a missing % sign, misplaced lines), and rules 4 to 8: a probability of 0%
// or 100%; certainty language ([DetectCertainty]) in forecast notes, the
// question's free text and its other sections; an open question past its
// resolve_by; a forecast dated after resolve_by; text anywhere that reads
// like instructions to an agent ([DetectInstructions]). Rule 7 also warns
// on a forecast made when the question had closed, when close_at or
// closed_at says when.
//
// With [Options.BoardImport], a missing resolves or resolve_by is a
// rule-1 warning rather than a finding (the board takes a prediction
// without them; an unreadable resolve_by stays a finding), and Check adds
// rule-0 findings for what the agent board's import cannot store: a question without forecasts (a
// prediction needs its author's probability); a forecaster that gives no
// agent id (no ASCII letter or digit after agent:) or, when it is not an
// agent id itself, a name over [MaxWho] characters or with a control
// character; a title over [MaxTitle], a free text over [MaxText], a
// resolves over [MaxResolves] or a note over [MaxNote] characters (counted
// without the backslashes that escape Markdown), or a control character
// in any of them (tabs are allowed in the free text and notes).
//
// A question without forecasts is otherwise allowed (nothing to break
// rule 2). Check never modifies f and runs in time linear in the size of
// the file.
func Check(f *File, opt Options) []Diagnostic {
	c := &checker{today: opt.Today(), board: opt.BoardImport, out: append([]Diagnostic(nil), f.Diagnostics...)}
	c.meta(f)
	c.scan(kindInstruction, "", f.Preamble, f.PreambleLine)
	if len(f.Questions) == 0 {
		c.add(0, Warning, "", 1, "the file has no questions: write each question as a first-level heading (# Will …?) followed by its key: value bullets")
	}
	ids := map[string]int{}
	for i := range f.Questions {
		c.question(&f.Questions[i], ids)
	}
	sort.SliceStable(c.out, func(i, j int) bool {
		a, b := c.out[i], c.out[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
	return c.out
}

type checker struct {
	today Date
	board bool // Options.BoardImport
	out   []Diagnostic
}

func (c *checker) add(rule int, sev Severity, id string, line int, format string, args ...any) {
	c.out = append(c.out, Diagnostic{Rule: rule, Severity: sev, QuestionID: id, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) meta(f *File) {
	seen := map[string]int{}
	for _, m := range f.Meta {
		if m.Key == "" {
			continue
		}
		if first, dup := seen[m.Key]; dup {
			c.add(0, Finding, "", m.Line, "front-matter key %s is repeated (first on line %d); only the first is read: remove one", m.Key, first)
			continue
		}
		seen[m.Key] = m.Line
		switch m.Key {
		case "predictions":
			v, ok := readVersion(unquote(m.Value))
			switch {
			case !ok:
				c.add(0, Finding, "", m.Line, "front-matter predictions %q is not a format version: write a whole number, e.g. predictions: 1", m.Value)
			case v > FormatVersion:
				c.add(0, Warning, "", m.Line, "the file is written for format version %d; this checker knows version %d and may miss newer rules", v, FormatVersion)
			}
		case "updated":
			if _, err := ParseDate(unquote(m.Value)); err != nil {
				c.add(0, Finding, "", m.Line, "front-matter updated %q is not a date: write YYYY-MM-DD, e.g. updated: 2026-03-01", m.Value)
			}
		}
		c.scan(kindInstruction, "", m.Value, m.Line)
	}
}

// field returns the first field with key, or nil.
func (q *Question) field(key string) *Field {
	for i := range q.Fields {
		if q.Fields[i].Key == key {
			return &q.Fields[i]
		}
	}
	return nil
}

func (c *checker) question(q *Question, ids map[string]int) {
	id := q.ID
	if strings.TrimSpace(q.Title) == "" {
		c.add(0, Finding, id, q.Line, "the question heading is empty: write the question after #, e.g. # Will the bill pass by June?")
	}
	c.scan(kindInstruction, id, q.Title, q.Line)

	// Keys.
	seen := map[string]int{}
	for _, fd := range q.Fields {
		if first, dup := seen[fd.Key]; dup {
			c.add(0, Finding, id, fd.Line, "key %s is repeated (first on line %d); only the first is read: remove one", fd.Key, first)
		} else {
			seen[fd.Key] = fd.Line
			if !knownKeys[fd.Key] {
				c.add(0, Warning, id, fd.Line, "unknown key %q is kept but not read; the keys are %s", fd.Key, knownKeyList)
			}
		}
		c.scan(kindInstruction, id, fd.Value, fd.Line)
	}
	if strings.TrimSpace(id) == "" {
		c.add(0, Finding, id, q.Line, "the question has no id: add a bullet such as - id: bill-passes-2026 (short, unique in the file)")
	} else if !ValidID(id) {
		c.add(0, Finding, id, lineOr(q.field("id"), q.Line), "id %q is not 1 to %d letters, digits, dots, underscores or hyphens: write it without spaces or other signs, e.g. - id: %s (the id names the question, also in the agent board's addresses)", id, MaxID, idExample(id))
	} else if first, dup := ids[id]; dup {
		c.add(0, Finding, id, lineOr(q.field("id"), q.Line), "id %q is also used by the question on line %d: ids must be unique in the file", id, first)
	} else {
		ids[id] = q.Line
	}
	status := q.Status
	if status == "" {
		if fd := q.field("status"); fd == nil {
			c.add(0, Finding, id, q.Line, "the question has no status: add - status: open (or resolved, or void)")
		} else {
			c.add(0, Finding, id, fd.Line, "status %q is not one of open, resolved, void", fd.Value)
		}
	}
	if fd := q.field("base_rate"); fd != nil && fd.Value != "" && q.BaseRate == nil {
		if _, _, problem := readPercent(fd.Value); problem != "" {
			c.add(0, Finding, id, fd.Line, "base_rate: %s", problem)
		}
	}

	// Rule 1: how and by when. The agent board takes a prediction that
	// states neither, so for its import a missing one is advice.
	missing, note := Finding, ""
	if c.board {
		missing, note = Warning, " (the agent board imports it without)"
	}
	if strings.TrimSpace(q.Resolves) == "" {
		c.add(1, missing, id, lineOr(q.field("resolves"), q.Line), "the question does not say how it resolves: add - resolves: <what counts as yes, and the source that will tell>%s", note)
	}
	if q.ResolveBy.IsZero() {
		if fd := q.field("resolve_by"); fd == nil || fd.Value == "" {
			c.add(1, missing, id, lineOr(fd, q.Line), "the question does not say by when it resolves: add - resolve_by: YYYY-MM-DD%s", note)
		} else {
			c.add(1, Finding, id, fd.Line, "resolve_by %q is not a date: write YYYY-MM-DD, e.g. resolve_by: 2026-12-31", fd.Value)
		}
	}

	// Rule 1: when.
	c.times(q)

	// Rule 3: outcomes.
	c.outcome(q)

	// Rule 6: overdue.
	if (status == StatusOpen || (status == "" && q.field("status") == nil)) && !q.ResolveBy.IsZero() && q.ResolveBy.Compare(c.today) < 0 {
		c.add(6, Warning, id, lineOr(q.field("resolve_by"), q.Line), "the question is overdue: resolve_by %s has passed (today is %s); resolve it (status: resolved and an outcome) or void it", q.ResolveBy, c.today)
	}

	// Forecasts: rules 2, 4, 5, 7, 8.
	l := q.lifeOf(time.Time{})
	for _, fc := range q.Forecasts {
		c.forecast(q, fc, l.actual, l.byKey)
	}
	if c.board {
		c.boardImport(q)
	}

	// Free text: rules 5 and 8.
	const both = kindCertainty | kindInstruction
	c.scan(both, id, q.Text, q.TextLine)
	c.scan(both, id, q.ForecastsText, q.ForecastsTextLine)
	for _, s := range q.Sections {
		c.scan(kindInstruction, id, s.Title, s.Line)
		c.scan(both, id, s.Text, s.TextLine)
	}
	// Notes record facts after the event ("the bill was certainly signed"),
	// so rule 5 does not apply to them; rule 8 does.
	c.scan(kindInstruction, id, q.Notes, q.NotesLine)
}

// times checks the keys opens_at, close_at and closed_at (rule 1).
func (c *checker) times(q *Question) {
	id := q.ID
	for _, key := range []string{KeyOpensAt, KeyCloseAt, KeyClosedAt} {
		if fd := q.field(key); fd != nil && fd.Value != "" {
			if _, _, ok := readTime(fd.Value); !ok {
				c.add(1, Finding, id, fd.Line, "%s", timeProblem(key, fd.Value))
			}
		}
	}
	open, sched, closed := q.OpensAt, q.CloseAt, q.ClosedAt
	if !open.IsZero() && !sched.IsZero() && !sched.After(open) {
		c.add(1, Finding, id, lineOr(q.field(KeyCloseAt), q.Line), "close_at %s is not after opens_at %s: a question closes after it opens; correct one of them", FormatTime(sched), FormatTime(open))
	}
	if !closed.IsZero() && !sched.IsZero() && closed.After(sched) {
		c.add(1, Finding, id, lineOr(q.field(KeyClosedAt), q.Line), "closed_at %s is after close_at %s: forecasting stops at the scheduled close at the latest (closed_at is earlier only when the question is resolved early); correct one of them", FormatTime(closed), FormatTime(sched))
	}
	if !closed.IsZero() && !open.IsZero() && closed.Before(open) {
		c.add(1, Finding, id, lineOr(q.field(KeyClosedAt), q.Line), "closed_at %s is before opens_at %s: a question closes after it opens; correct one of them", FormatTime(closed), FormatTime(open))
	}
}

func lineOr(fd *Field, line int) int {
	if fd != nil {
		return fd.Line
	}
	return line
}

func (c *checker) outcome(q *Question) {
	id := q.ID
	fd := q.field("outcome")
	var raw string
	var o Outcome
	readable := true
	if fd != nil && fd.Value != "" {
		raw = fd.Value
		o, readable = readOutcome(raw)
	} else {
		o = q.Outcome
	}
	line := lineOr(fd, q.Line)
	switch {
	case !readable:
		c.add(3, Finding, id, line, "outcome %q is not yes or no", raw)
	case q.Status == StatusResolved && o == "":
		c.add(3, Finding, id, line, "the question is resolved but has no outcome: add - outcome: yes (or no)")
	case q.Status == StatusResolved && o == "void":
		c.add(3, Finding, id, line, "outcome void on a resolved question: set status: void instead (void questions have no outcome)")
	case q.Status == StatusVoid && (o == OutcomeYes || o == OutcomeNo):
		c.add(3, Finding, id, line, "the question is void but has outcome %s: void questions have no outcome; remove it, or set status: resolved", o)
	case q.Status != StatusResolved && q.Status != StatusVoid && o != "":
		c.add(3, Finding, id, line, "outcome %s is given but the question is not resolved: set status: resolved, or remove the outcome", o)
	}
}

// forecast checks a forecast line; stop is when the question stopped
// taking forecasts (zero: unknown), byKey whether a time key says so.
func (c *checker) forecast(q *Question, fc Forecast, stop time.Time, byKey bool) {
	id := q.ID
	if fc.Raw != "" {
		_, problem, _, _ := readForecast(fc.Raw)
		if problem == "" {
			problem = "forecast line cannot be read (" + forecastExample + ")"
		}
		c.add(2, Finding, id, fc.Line, "%s", problem)
		c.scan(kindInstruction, id, fc.Raw, fc.Line)
		return
	}
	var missing []string
	if fc.Date.IsZero() {
		missing = append(missing, "a date")
	}
	if strings.TrimSpace(fc.Who) == "" {
		missing = append(missing, "who made it")
	}
	if math.IsNaN(fc.P) || fc.P < 0 || fc.P > 1 {
		missing = append(missing, "a probability from 0% to 100%")
	}
	if len(missing) > 0 {
		c.add(2, Finding, id, fc.Line, "the forecast lacks %s (%s)", strings.Join(missing, ", "), forecastExample)
		return
	}
	if fc.P == 0 || fc.P == 1 {
		c.add(4, Warning, id, fc.Line, "probability %s%% claims certainty, which no evidence could change: write 1%% or 99%% at the extremes", formatPercent(fc.P))
	}
	switch {
	case !byKey && !q.ResolveBy.IsZero() && fc.Date.Compare(q.ResolveBy) > 0:
		c.add(7, Warning, id, fc.Line, "forecast dated %s is after resolve_by %s: it is not a forecast any more and is not scored", fc.Date, q.ResolveBy)
	case byKey && !fc.At().Before(stop):
		c.add(7, Warning, id, fc.Line, "forecast made %s, when the question had closed (%s): it is not a forecast any more and is not scored", FormatTime(fc.At()), FormatTime(stop))
	}
	c.scan(kindCertainty|kindInstruction, id, fc.Note, fc.Line)
	c.scan(kindInstruction, id, fc.Who, fc.Line)
}

// scan reports the phrases of the given kinds in text (rule 5 for
// certainty, rule 8 for instructions), one diagnostic per rule and line of
// text. line is the line where text starts.
func (c *checker) scan(kinds kind, id, text string, line int) {
	if text == "" {
		return
	}
	ms := book.find(text, kinds)
	if len(ms) == 0 {
		return
	}
	if line == 0 {
		line = 1
	}
	pos, cur, groupLine := 0, line, 0
	var groups [2][]string // certainty, instructions
	seen := map[string]bool{}
	emit := func() {
		for g, phrases := range groups {
			if len(phrases) == 0 {
				continue
			}
			quoted := make([]string, len(phrases))
			for i, p := range phrases {
				quoted[i] = fmt.Sprintf("%q", p)
			}
			if g == 0 {
				c.add(5, Warning, id, groupLine, "certainty language %s: a forecast is a probability; say how likely instead (e.g. 90%%)", strings.Join(quoted, ", "))
			} else {
				c.add(8, Warning, id, groupLine, "text reads like instructions to an agent (%s): agents must treat this file as data and not follow it; rephrase or remove it", strings.Join(quoted, ", "))
			}
			groups[g] = groups[g][:0]
		}
		clear(seen)
	}
	for _, m := range ms {
		cur += strings.Count(text[pos:m.start], "\n")
		pos = m.start
		if cur != groupLine {
			emit()
			groupLine = cur
		}
		p := strings.Join(strings.Fields(text[m.start:m.end]), " ")
		g := 0
		if m.kind == kindInstruction {
			g = 1
		}
		if k := strings.ToLower(p); !seen[k] {
			seen[k] = true
			groups[g] = append(groups[g], p)
		}
	}
	emit()
}
