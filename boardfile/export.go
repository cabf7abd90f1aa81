package boardfile

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
)

// The values earlier versions of [Export] wrote for what a prediction may
// leave out but the forecast file asks for (rule 1). Export now leaves
// the key out; [Import] still reads these as "not given", so that files
// exported before come back as they were.
const (
	// NoResolves was the resolves of a prediction without resolution
	// criteria.
	NoResolves = "not stated on the board; a moderator decides"
	// NoResolveBy was the resolve_by of a prediction without a date: the
	// last day the format can write.
	NoResolveBy = "9999-12-31"
)

// Export writes the predictions of b that q selects to w as a forecast
// file (package forecastfile), read by [board.Store.Dump]: front matter with the format version and today's date,
// then per prediction a heading (its title), its body as free text (left
// out when it is only the title), and the bullets id, resolves and
// resolve_by (each left out when the prediction states none), opens_at, close_at (when it has one; a resolved or void prediction
// without one gets its closed_at, the close it is scored by), status,
// closed_at (resolved and void predictions), outcome (resolved
// predictions) and tags (its domain), then a Forecasts section with every
// forecast, oldest first, as "date time (UTC, to the microsecond it was
// stored with) · agent:<id> · percent · note", a person's forecast with
// person:<id>. The author's confidence is the first. The file's report ([forecastfile.File.Report]) scores each
// resolved question as the board does.
//
// q selects and orders as [board.Store.Feed] does (domain, sort, offset), except
// that Limit 0 means every prediction and a Limit above [board.MaxLimit] is not
// clamped. The file is read from one snapshot of the board.
//
// The text passes [forecastfile.Check] with no findings but rule 1's for
// a prediction that states no resolves or resolve_by (the format asks for
// them, the board does not), and with [forecastfile.Options.BoardImport]
// with none; [Import] of it into an empty board followed by Export gives
// the same text. To keep
// it so, a title ending in a word of # gets a backslash before it, the body is written with a backslash before each line that would
// read as Markdown structure (a line starting with #, -, *, +, `, ~, > or
// \ after at most three spaces), trailing blanks and \r dropped; a note is
// written on one line (white space runs become one space, a middle dot
// gets a space on each side and none at the ends). The timeframe, replies
// and reactions are not written.
//
// Errors: a *[board.ValidationError] for an unknown domain or sort or a negative
// limit or offset; otherwise the database's or w's error. Every error but
// one reading a prediction's forecasts or from w comes before anything is
// written, so an adapter that streams can still answer with an error
// status.
func Export(ctx context.Context, b Board, w io.Writer, q board.FeedQuery) error {
	d, err := b.Dump(ctx, board.DumpQuery{Domain: q.Domain, Sort: q.Sort, Limit: q.Limit, Offset: q.Offset})
	if err != nil {
		return err
	}
	defer d.Close()
	head := forecastfile.Format(&forecastfile.File{FrontMatter: true, Meta: []forecastfile.Field{
		{Key: "predictions", Value: fmt.Sprint(forecastfile.FormatVersion)},
		{Key: "updated", Value: b.Now().Format(time.DateOnly)},
	}})
	if _, err := w.Write(head); err != nil {
		return err
	}
	for p, err := range d.Predictions() {
		if err != nil {
			return err
		}
		text := forecastfile.Format(&forecastfile.File{Questions: []forecastfile.Question{question(p)}})
		if _, err := w.Write(append([]byte{'\n'}, text...)); err != nil {
			return err
		}
	}
	return nil
}

// question is a stored prediction and its forecasts as a forecast file
// question.
func question(p board.DumpedPrediction) forecastfile.Question {
	q := forecastfile.Question{Title: headingOfTitle(p.Title), Text: textOfBody(p.Body, p.Title)}
	status := p.Status
	if status == board.StatusClosed { // open, past its close_at
		status = board.StatusOpen
	}
	q.Fields = []forecastfile.Field{{Key: "id", Value: p.ID}}
	if p.Resolves != "" {
		q.Fields = append(q.Fields, forecastfile.Field{Key: "resolves", Value: p.Resolves})
	}
	if p.ResolveBy != "" {
		q.Fields = append(q.Fields, forecastfile.Field{Key: "resolve_by", Value: p.ResolveBy})
	}
	q.Fields = append(q.Fields, forecastfile.Field{Key: forecastfile.KeyOpensAt, Value: forecastfile.FormatTime(p.CreatedAt)})
	// A prediction resolved without a scheduled close is scored as if it
	// closed on schedule at its actual close, so that is its close_at in
	// the file, where the end of resolve_by would otherwise be assumed.
	closeAt := p.CloseAt
	if closeAt == nil && status != board.StatusOpen {
		closeAt = p.ClosedAt
	}
	if closeAt != nil {
		q.Fields = append(q.Fields, forecastfile.Field{Key: forecastfile.KeyCloseAt, Value: forecastfile.FormatTime(*closeAt)})
	}
	q.Fields = append(q.Fields, forecastfile.Field{Key: "status", Value: string(status)})
	if p.ClosedAt != nil {
		q.Fields = append(q.Fields, forecastfile.Field{Key: forecastfile.KeyClosedAt, Value: forecastfile.FormatTime(*p.ClosedAt)})
	}
	if status == board.StatusResolved {
		q.Fields = append(q.Fields, forecastfile.Field{Key: "outcome", Value: string(p.Outcome)})
	}
	q.Fields = append(q.Fields, forecastfile.Field{Key: "tags", Value: p.Domain})
	for i, f := range p.Forecasts {
		t := f.CreatedAt.UTC()
		q.Forecasts = append(q.Forecasts, forecastfile.Forecast{
			Date: forecastfile.DateOf(t), Time: forecastfile.Clock(t),
			Who: p.Kinds[i] + ":" + f.AgentID, P: f.P, Note: noteLine(f.Note),
		})
	}
	return q
}

// headingOfTitle writes a title as a heading's text: a run of # that ends
// the title as a word of its own would read as the heading's closing
// sequence, so a backslash goes before it ("Vote #" is "Vote \#", and
// "Vote \#" is "Vote \\#"); titleOfHeading removes it.
func headingOfTitle(t string) string {
	if i, ok := hashTail(t); ok {
		return t[:i] + `\` + t[i:]
	}
	return t
}

func titleOfHeading(t string) string {
	if i, ok := hashTail(t); ok && t[i] == '\\' {
		return t[:i] + t[i+1:]
	}
	return t
}

// hashTail finds the last word of t when it is backslashes followed by at
// least one #, and returns where it starts.
func hashTail(t string) (int, bool) {
	i := len(t)
	for i > 0 && t[i-1] == '#' {
		i--
	}
	if i == len(t) {
		return 0, false
	}
	for i > 0 && t[i-1] == '\\' {
		i--
	}
	return i, i == 0 || t[i-1] == ' ' || t[i-1] == '\t'
}

// textOfBody writes a prediction's body as a question's free text (see
// [Export]); bodyOfText reads it back.
func textOfBody(body, title string) string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 1 && lines[0] == title {
		return ""
	}
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) <= 3 && t != "" && strings.IndexByte(escaped, t[0]) >= 0 {
			lines[i] = l[:len(l)-len(t)] + `\` + t
		}
	}
	return strings.Join(lines, "\n")
}

// escaped are the characters that, at the start of a line, [textOfBody]
// puts a backslash before.
const escaped = "#-*+`~>\\"

// bodyOfText reads a question's free text as a prediction's body: a
// backslash before one of the escaped characters at the start of a line
// is removed, as Markdown shows it; text "" is the title.
func bodyOfText(text, title string) string {
	if text == "" {
		return title
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) <= 3 && len(t) >= 2 && t[0] == '\\' && strings.IndexByte(escaped, t[1]) >= 0 {
			lines[i] = l[:len(l)-len(t)] + t[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// noteLine writes a forecast's note on one line as the forecast file reads
// it back: white space runs are one space, and a middle dot (the separator
// of the line's parts) has one space on each side and none at the ends.
func noteLine(note string) string {
	parts := strings.Split(strings.Join(strings.Fields(note), " "), "·")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}
