package boardfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
)

// ImportError is the error of [Import] for a file it refuses; it
// wraps [board.ErrInvalid]. Nothing was written.
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

// Unwrap returns [board.ErrInvalid].
func (e *ImportError) Unwrap() error { return board.ErrInvalid }

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

// ImportResult says what [Import] did.
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

// ImportedPrediction is a prediction [Import] created.
type ImportedPrediction struct {
	ID        string       `json:"id"`
	Line      int          `json:"line"` // line of the question's heading
	Status    board.Status `json:"status"`
	Forecasts int          `json:"forecasts"`
}

// Import reads a forecast file (package forecastfile) and adds its
// questions to the board b as predictions, with their forecasts. A
// question whose id the board already has is not created again (listed in [ImportResult.Existing]); its forecast lines are
// matched to the board's by forecaster and time (to the microsecond), and
// those the board lacks are added as [board.Store.Forecast] adds them when they
// could have been made there: the prediction still open, before its
// close_at, not before its latest stored forecast, not in the future.
// Every other line is named in [ImportResult.Notes], never dropped
// silently; importing a file twice changes nothing. Import does not
// resolve a prediction the board has (resolve it through the board).
//
// Each question becomes a prediction with the question's id, title, free
// text as body (the title when it has none; see [Export] for the
// backslashes), resolves and resolve_by (none when left out or written
// as [NoResolves] and [NoResolveBy]), the first tag naming one of
// [board.Domains] as domain (else Other) and "by <resolve_by>" as
// timeframe ("no date set" without one). Its forecasts are stored in
// the order of their date and time (UTC; midnight without a time), the
// file's order among equal ones; each keeps its time, to the
// microsecond. The first is the author's: its forecaster is the
// prediction's author and its probability the confidence. Each forecast
// replaces its forecaster's standing one and the community forecast is
// recomputed after each, as [board.Store.Forecast] does, so the standing
// forecasts make the community forecast. A resolved or void question is
// then resolved as [board.Store.Resolve] does, by "import", at its actual close,
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
// A forecaster written agent:<id> is the agent <id> and person:<id> the
// person <id> (an id the board holds for the other kind is refused with
// a *[board.ValidationError] wrapping [board.ErrTaken]); any other (such
// as the word person) is the agent of that name. An agent id is 1 to 64 ASCII letters,
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
// A file the checks accept is stored by [board.Store.Load] in
// transactions of whole questions, in file order, of about [importBatchLines] forecast lines each (a
// question with more lines is one transaction of its own), so that other
// writes wait for one batch rather than for the whole file; the cost of
// each grows with its lines, not with their square. Each question is
// stored whole or not at all. An error from the database after some
// batches were stored says how many questions were; sending the same file
// again stores the rest, since the questions the board has are not
// created again and the forecast lines it has are not stored twice.
// Import reads r to its end: the caller bounds it (http.MaxBytesReader).
func Import(ctx context.Context, b Board, r io.Reader) (ImportResult, error) {
	return importBatched(ctx, b, r, importBatchLines)
}

// importBatched is [Import] in transactions of about batchLines forecast
// lines.
func importBatched(ctx context.Context, b Board, r io.Reader, batchLines int) (ImportResult, error) {
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
	res := ImportResult{Questions: len(f.Questions), Created: []ImportedPrediction{}, Existing: []string{},
		Updated: []ImportedPrediction{}, NewAgents: []string{}, Warnings: []forecastfile.Diagnostic{}, Notes: []string{}}
	var findings []forecastfile.Diagnostic
	for _, d := range forecastfile.Check(f, forecastfile.Options{Now: b.Now, BoardImport: true}) {
		if d.Severity == forecastfile.Finding {
			findings = append(findings, d)
		} else {
			res.Warnings = append(res.Warnings, d)
		}
	}
	if len(findings) > 0 {
		return ImportResult{}, &ImportError{Findings: findings}
	}
	qs, notes, findings := plan(f)
	if len(findings) > 0 {
		return ImportResult{}, &ImportError{Findings: findings}
	}
	res.Notes = append(res.Notes, notes...)
	stored := 0 // questions of the batches committed
	for _, batch := range batches(qs, batchLines) {
		load := make([]board.LoadQuestion, len(batch))
		for i, q := range batch {
			load[i] = q.load
		}
		lr, err := b.Load(ctx, load)
		if err != nil {
			if stored > 0 {
				return ImportResult{}, fmt.Errorf("board: import: the first %d of the file's %d questions were stored before this error (send the file again to store the rest: what the board has is not stored twice): %w",
					stored, len(qs), err)
			}
			return ImportResult{}, fmt.Errorf("board: import: %w", err)
		}
		res.add(batch, lr)
		stored += len(batch)
	}
	slices.Sort(res.NewAgents)
	return res, nil
}

// Board is what [Import] and [Export] use of a board; *[board.Store]
// implements it.
type Board interface {
	// Load writes whole predictions ([board.Store.Load]).
	Load(ctx context.Context, qs []board.LoadQuestion) (board.LoadResult, error)
	// Dump reads predictions with their forecasts ([board.Store.Dump]).
	Dump(ctx context.Context, q board.DumpQuery) (*board.Dump, error)
	// Now is the board's clock ([board.Store.Now]).
	Now() time.Time
}

// importBatchLines is about the most forecast lines one import
// transaction stores: the file's questions go to the board in
// transactions of whole questions of at most this many lines together
// (a longer question alone), so that other writes wait for one batch, not
// for the whole file.
const importBatchLines = 2000

// batches splits qs, in order, into runs of whole questions of at most
// max forecast lines together, or of one longer question.
func batches(qs []planned, max int) [][]planned {
	var out [][]planned
	start, lines := 0, 0
	for i, q := range qs {
		if i > start && lines+len(q.load.Forecasts) > max {
			out = append(out, qs[start:i])
			start, lines = i, 0
		}
		lines += len(q.load.Forecasts)
	}
	if start < len(qs) || len(out) == 0 {
		out = append(out, qs[start:])
	}
	return out
}

// add adds to res what [board.Store.Load] did with batch: the questions
// the board had (their notes and forecasts added, in file order), then
// those created.
func (res *ImportResult) add(batch []planned, lr board.LoadResult) {
	for i, q := range batch {
		if !lr.Questions[i].Created {
			res.Existing = append(res.Existing, q.load.ID)
		}
	}
	for i, q := range batch {
		lq := lr.Questions[i]
		if lq.Created {
			continue
		}
		if q.load.Outcome != "" && lq.Status == board.StatusOpen {
			res.Notes = append(res.Notes, fmt.Sprintf("question %s (line %d): the file says %s, but import does not resolve a prediction the board has; a moderator resolves it with POST /api/predictions/%s/resolve",
				q.load.ID, q.line, q.load.Outcome, q.load.ID))
		}
		for _, sk := range lq.Skipped {
			res.Notes = append(res.Notes, q.skipNote(sk, lq.Status))
		}
		if lq.Forecasts > 0 {
			res.Forecasts += lq.Forecasts
			res.Updated = append(res.Updated, ImportedPrediction{ID: q.load.ID, Line: q.line, Status: lq.Status, Forecasts: lq.Forecasts})
		}
	}
	for i, q := range batch {
		if lq := lr.Questions[i]; lq.Created {
			res.Forecasts += lq.Forecasts
			res.Created = append(res.Created, ImportedPrediction{ID: q.load.ID, Line: q.line, Status: lq.Status, Forecasts: lq.Forecasts})
		}
	}
	res.NewAgents = append(res.NewAgents, lr.NewAgents...)
}

// skipNote names a forecast line of q the board did not store, and why.
func (q planned) skipNote(sk board.SkippedForecast, st board.Status) string {
	fc := q.load.Forecasts[sk.Index]
	var why string
	switch sk.Reason {
	case board.SkipNotOpen:
		why = fmt.Sprintf("the prediction is %s on the board and takes no forecasts", st)
	case board.SkipAfterClose:
		why = fmt.Sprintf("it is at or after the prediction's close_at, %s", forecastfile.FormatTime(sk.Bound))
	case board.SkipBeforeLatest:
		why = fmt.Sprintf("it is before the prediction's latest forecast on the board, %s, and the board keeps forecasts in the order they were made", forecastfile.FormatTime(sk.Bound))
	default:
		why = "it is in the future"
	}
	return fmt.Sprintf("question %s, line %d: the forecast by %s at %s is not stored: %s",
		q.load.ID, q.lines[sk.Index], fc.AgentID, forecastfile.FormatTime(fc.At.Truncate(time.Microsecond)), why)
}
