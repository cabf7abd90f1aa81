package forecastfile

import (
	"errors"
	"fmt"
	"time"
)

// FormatVersion is the newest version of the format this package reads
// (the front-matter key predictions).
const FormatVersion = 1

// Sentinel errors. [Parse] wraps them in a [*ParseError]; [ParseDate]
// returns [ErrDate] and [ParseTime] [ErrTime], wrapped with the value.
var (
	// ErrInvalidUTF8 means the text is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("forecastfile: text is not valid UTF-8 (save the file as UTF-8)")
	// ErrBinary means the text contains a NUL byte, so it is not a text file.
	ErrBinary = errors.New("forecastfile: text contains a NUL byte (this is not a Markdown text file)")
	// ErrDate means a value is not a calendar date written YYYY-MM-DD.
	ErrDate = errors.New("forecastfile: not a date written YYYY-MM-DD")
	// ErrTime means a value is not a time written YYYY-MM-DD HH:MM, with
	// optional seconds and fraction, in UTC (see [ParseTime]).
	ErrTime = errors.New("forecastfile: not a time written YYYY-MM-DD HH:MM[:SS[.ffffff]] in UTC")
)

// ParseError is the error [Parse] returns when the text as a whole cannot
// be read. Problems with single lines are not errors: they are
// [Diagnostic] values in [File.Diagnostics].
type ParseError struct {
	Line int   // 1-based line of the problem
	Err  error // ErrInvalidUTF8 or ErrBinary
}

// Error returns "line N: " followed by the underlying error.
func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// Date is a calendar date without a time zone, written YYYY-MM-DD. The zero
// Date means "no date".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate reads a date written exactly YYYY-MM-DD. It returns an error
// wrapping [ErrDate] for anything else, including impossible dates such as
// 2026-02-30.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, fmt.Errorf("%q: %w", s, ErrDate)
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) || y == 0 {
		return Date{}, fmt.Errorf("%q: %w", s, ErrDate)
	}
	return Date{y, time.Month(m), d}, nil
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// IsZero reports whether d is the zero Date (no date).
func (d Date) IsZero() bool { return d == Date{} }

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.Year != e.Year:
		return cmpInt(d.Year, e.Year)
	case d.Month != e.Month:
		return cmpInt(int(d.Month), int(e.Month))
	default:
		return cmpInt(d.Day, e.Day)
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String returns the date as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// MarshalText writes the date as YYYY-MM-DD (empty for the zero Date).
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads YYYY-MM-DD; empty text gives the zero Date.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Status is a question's status: open, resolved or void. The empty Status
// means the status line is missing or unreadable; the checker treats such a
// question as open.
type Status string

// The statuses of the format.
const (
	StatusOpen     Status = "open"
	StatusResolved Status = "resolved"
	StatusVoid     Status = "void" // the question no longer applies
)

// Outcome is a resolved question's outcome: yes or no. The empty Outcome
// means none (open and void questions, or a missing or unreadable outcome).
type Outcome string

// The outcomes of the format.
const (
	OutcomeYes Outcome = "yes"
	OutcomeNo  Outcome = "no"
)

// File is a parsed forecast file. Every piece of text is kept, so that
// [Format] loses nothing: lines the parser could not read stay in the
// text fields (or in [Forecast.Raw]) and are reported in Diagnostics.
type File struct {
	// FrontMatter is true when the file starts with a front matter block
	// between lines of three hyphens.
	FrontMatter bool `json:"front_matter"`
	// Version is the front-matter key predictions (0 when absent or
	// unreadable).
	Version int `json:"version,omitempty"`
	// Updated is the front-matter key updated (zero when absent or
	// unreadable).
	Updated Date `json:"updated,omitzero"`
	// Meta holds every line of the front matter in order, as written.
	Meta []Field `json:"meta,omitempty"`
	// Preamble is the free text between the front matter and the first
	// question.
	Preamble     string `json:"preamble,omitempty"`
	PreambleLine int    `json:"preamble_line,omitempty"`
	// Questions are the questions in file order.
	Questions []Question `json:"questions"`
	// Diagnostics are what the parser noticed while reading: rule 0 (format)
	// and the forecast lines it could not read (rule 2). [Check] includes
	// them. They describe the text as written, so a file written back with
	// [Format] may have fewer.
	Diagnostics []Diagnostic `json:"-"`
}

// Field is one "key: value" line. Keys are lower case with spaces and
// hyphens written as underscores; values are trimmed. A line of the front
// matter that is not key: value has an empty Key and the line as Value.
type Field struct {
	Line  int    `json:"line"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Question is one first-level heading and what follows it.
type Question struct {
	Line  int    `json:"line"`  // line of the heading
	Title string `json:"title"` // heading text: the question
	// Text is the free text after the heading that is not a key: value
	// bullet; TextLine is the line where it starts.
	Text     string `json:"text,omitempty"`
	TextLine int    `json:"text_line,omitempty"`
	// Fields are all key: value bullets in file order, as written. The
	// typed fields below are read from them (the first of a repeated key).
	Fields []Field `json:"fields,omitempty"`

	ID        string   `json:"id"`
	Resolves  string   `json:"resolves"`
	ResolveBy Date     `json:"resolve_by,omitzero"`
	Status    Status   `json:"status"`
	BaseRate  *float64 `json:"base_rate,omitempty"` // fraction in [0,1]
	Outcome   Outcome  `json:"outcome,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	// OpensAt, CloseAt and ClosedAt are the optional keys opens_at (when
	// forecasting opened), close_at (the scheduled close) and closed_at
	// (the actual close: close_at, or earlier when resolved early), in
	// UTC; zero when absent or unreadable.
	OpensAt  time.Time `json:"opens_at,omitzero"`
	CloseAt  time.Time `json:"close_at,omitzero"`
	ClosedAt time.Time `json:"closed_at,omitzero"`

	// Forecasts are the bullet lines of the ## Forecasts section.
	Forecasts []Forecast `json:"forecasts,omitempty"`
	// ForecastsText is any other text in the Forecasts section (indented
	// lines, paragraphs), kept as written; ForecastsTextLine is where it
	// starts.
	ForecastsText     string `json:"forecasts_text,omitempty"`
	ForecastsTextLine int    `json:"forecasts_text_line,omitempty"`
	// Sections are second-level sections other than Forecasts and Notes.
	Sections []Section `json:"sections,omitempty"`
	// Notes is the text of the ## Notes section; NotesLine is where it
	// starts.
	Notes     string `json:"notes,omitempty"`
	NotesLine int    `json:"notes_line,omitempty"`
}

// Section is a second-level section of a question other than Forecasts and
// Notes, kept as free text.
type Section struct {
	Line     int    `json:"line"` // line of the heading
	Title    string `json:"title"`
	Text     string `json:"text,omitempty"`
	TextLine int    `json:"text_line,omitempty"`
}

// Forecast is one line of a Forecasts section: date (and time), who,
// probability, note.
type Forecast struct {
	Line int  `json:"line"`
	Date Date `json:"date,omitzero"`
	// Time is the time of day in UTC as [Clock] writes it (HH:MM,
	// HH:MM:SS or HH:MM:SS.ffffff), or "" for none; [Forecast.At] gives
	// the moment.
	Time string `json:"time,omitempty"`
	Who  string `json:"who,omitempty"`
	// P is the probability as a fraction in [0,1] (62% is 0.62).
	P    float64 `json:"p"`
	Note string  `json:"note,omitempty"`
	// Raw is the line as written (without its bullet) when it could not be
	// read completely; the other fields then hold what could be read. It is
	// empty for a readable line.
	Raw string `json:"raw,omitempty"`
}

// OK reports whether the forecast line was read completely: it has a date,
// a who and a probability.
func (fc Forecast) OK() bool { return fc.Raw == "" }

// Severity says whether a [Diagnostic] is a finding or a warning.
type Severity string

// The severities.
const (
	// Finding: the file breaks the format (rules 0 to 3); checkers fail.
	Finding Severity = "finding"
	// Warning: advice (rules 0 and 4 to 8); checkers pass.
	Warning Severity = "warning"
)

// Diagnostic is one finding or warning.
type Diagnostic struct {
	// Rule is the number of the rule of the format (1 to 8), or 0 for the
	// layout of the file itself (unreadable or misplaced lines, unknown or
	// repeated keys, missing id or status).
	Rule       int      `json:"rule"`
	Severity   Severity `json:"severity"`
	QuestionID string   `json:"question_id,omitempty"`
	Line       int      `json:"line"`
	Message    string   `json:"message"`
}

// String formats d as "line N: rule R: message".
func (d Diagnostic) String() string {
	return fmt.Sprintf("line %d: rule %d: %s", d.Line, d.Rule, d.Message)
}
