// Package forecastfile reads, checks, writes and reports on the Markdown
// forecast file: one first-level heading per yes/no question, its key: value
// bullets, a Forecasts section of dated probabilities, and optional Notes.
//
// A program that checks a forecast file and scores its resolved question:
//
//	package main
//
//	import (
//		"fmt"
//		"log"
//
//		"github.com/predictions-md/predictions/forecastfile"
//	)
//
//	const text = `# Will the beta open by 2026-01-31?
//
//	- id: beta-open
//	- resolves: yes if the sign-up page is live
//	- resolve_by: 2026-01-31
//	- status: resolved
//	- outcome: yes
//
//	## Forecasts
//
//	- 2026-01-05 · agent:scout · 70%
//	- 2026-01-06 · person · 55%
//	- 2026-01-07 · agent:skeptic · sure
//	`
//
//	func main() {
//		f, err := forecastfile.Parse([]byte(text)) // fails only on text that is not UTF-8
//		if err != nil {
//			log.Fatal(err)
//		}
//		for _, d := range forecastfile.Check(f, forecastfile.Options{}) {
//			fmt.Println(d.Severity, "rule", d.Rule, "line", d.Line)
//		}
//		rep, err := f.Report(forecastfile.Options{})
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Printf("Brier %.4f\n", rep.Scores.Overall.Brier)
//	}
//
// It prints:
//
//	finding rule 2 line 13
//	Brier 0.1462
//
// The main entry points are [Parse], [Check], [File.Report] (the output of
// the check_forecast_md tool) and [Format] (canonical Markdown). The
// runnable program examples/score in the repository prints a file's scores
// and calibration table.
//
// It imports only the standard library and the module's pool and scoring
// packages.
//
// # The format
//
//	---
//	predictions: 1
//	updated: 2026-03-01
//	---
//
//	# Will the council pass the transit levy by 2026-06-30?
//
//	Free text.
//
//	- id: transit-levy
//	- resolves: yes if the council minutes record a passing vote
//	- resolve_by: 2026-06-30
//	- status: open                 (open, resolved or void)
//	- base_rate: 35%               (optional)
//	- outcome: yes                 (resolved questions: yes or no)
//	- tags: local, policy          (optional, comma-separated)
//	- opens_at: 2026-01-20 09:00   (optional: when forecasting opened)
//	- close_at: 2026-07-01 00:00   (optional: the scheduled close)
//	- closed_at: 2026-06-12 16:30  (optional: the actual close)
//
//	## Forecasts
//
//	- 2026-02-01 · agent:alice · 40% · polling flat
//	- 2026-02-15 09:30 · person · 55%
//	- 2026-02-15 17:05:09.25 · agent:bob · 30%
//
//	## Notes
//
//	Free text, for example why a question was voided.
//
// # Reading
//
// [Parse] is forgiving where people are: CRLF or CR line ends, a byte-order
// mark, "-", "*" or "+" bullets, keys in any case ("Resolve By" is
// resolve_by), values in any case (Open, YES), "1"/"0"/"true"/"false" as
// outcomes, tags with a leading #, "## Forecast" or "## Forecasts:", a
// date and time written 2026-03-01T09:30, and a plain hyphen (or dash, or
// |) where the middle dot belongs. It is exact where meaning is at stake:
// dates must be YYYY-MM-DD and real, times HH:MM, HH:MM:SS or HH:MM:SS
// with one to six decimals of a second (microseconds), all in UTC, the
// parts of a forecast line come in the order date · who · probability ·
// note, and a probability
// such as 0.4 without a % sign is refused as ambiguous (0.4% or 40%?). A
// number of 1 or more without % (62) is read as a percent, with a warning.
// Every forgiven deviation is a rule-0 warning in [File.Diagnostics].
//
// # Times
//
// A question may say when it took forecasts, with the names the agent
// board's JSON uses: opens_at (forecasting opened), close_at (the scheduled
// close) and closed_at (the actual close: close_at, or earlier when the
// question is resolved early). Their values are UTC times written
// YYYY-MM-DD HH:MM, with optional :SS and up to six decimals of a second;
// a date alone (the start of that day) and RFC 3339 with Z
// (2026-06-12T16:30:00Z) are read too ([ParseTime]), and [Format] writes
// them back as YYYY-MM-DD HH:MM[:SS[.ffffff]] (a date alone stays a
// date). A forecast line's time is written with the precision it needs
// ([Clock]): 09:30, 09:30:15 or 09:30:15.25, so files without seconds are
// written as they were. [Forecast.At] is a forecast's moment, midnight
// UTC without a time.
//
// Nothing is dropped: text Parse does not understand stays in the File (free
// text, unknown keys, unreadable forecast lines in [Forecast.Raw], text in
// the Forecasts section, other second-level sections), and [Format] writes
// it back. Fenced code blocks are text, so a "# line" inside one is not a
// question. [Format] writes canonical Markdown; parsing its output gives
// the same File apart from line numbers and layout diagnostics (tested by
// fuzzing).
//
// # Checking
//
// [Check] applies the eight rules of the format, plus rule 0 for the layout.
// Findings (rules 0 to 3) break the format; warnings (rules 0 and 4 to 8,
// and rule 1's missing keys for the board's import) are advice. Each
// [Diagnostic] carries its rule, severity, question id and line.
// Decisions where the format leaves room:
//
//   - id, resolves, resolve_by and status are required (rule 1 for resolves
//     and resolve_by, rule 0 for id and status; for the agent board's
//     import, [Options.BoardImport], a missing resolves or resolve_by is a
//     warning, as its predictions may leave them out); ids must be unique and
//     follow [IDPattern]: 1 to 64 ASCII letters, digits, dots,
//     underscores or hyphens (the id names the question, also in the
//     agent board's addresses). A question without status is treated as
//     open for rule 6.
//   - opens_at, close_at and closed_at are optional; an unreadable value
//     (a time in another zone among them: the hint gives it in UTC),
//     close_at not after opens_at, and closed_at after close_at or before
//     opens_at are rule-1 findings.
//   - A question without a Forecasts section, or with an empty one, is
//     allowed whatever its status: rule 2 is about the lines there are.
//   - status: resolved needs outcome yes or no (rule 3); open and void
//     questions must not carry yes or no (rule 3); "outcome: void" is
//     accepted on a void question.
//   - base_rate is a percent ("12%", or "12" with a warning); it is
//     optional.
//   - "Today" is the UTC date of [Options.Now] (time.Now when nil). Rule 6:
//     an open question whose resolve_by is before today. Rule 7: a forecast
//     dated after resolve_by (on the day is fine); when close_at or
//     closed_at is given, a forecast made at or after the question closed
//     (closed_at, but not after close_at) instead.
//   - Rule 4 warns on exactly 0% and 100%.
//   - Rule 5 ([DetectCertainty]) reads forecast notes, the question's free
//     text and its other sections, not titles, keys or the Notes section
//     (which records facts after the event). "certainly not sure" states
//     doubt and is not flagged; "uncertain", "almost certain" and "100% of
//     the votes counted" are not flagged either.
//   - Rule 8 ([DetectInstructions]) reads every piece of text, including
//     titles, key values, who, notes and the preamble.
//   - A forecast line that cannot be read is a rule-2 finding naming every
//     missing or unreadable part; a front matter never closed is a rule-0
//     finding and its lines are read as text.
//   - [Options.BoardImport] adds rule-0 findings for what the agent
//     board's import cannot store (a question without forecasts, a
//     forecaster it cannot make an agent of, text over the board's limits
//     [MaxTitle], [MaxText], [MaxResolves], [MaxNote] and [MaxWho], control
//     characters), so that the board refuses a file exactly when Check
//     with it finds something. Without it those are not findings: a
//     question may wait for its first forecast, and a forecaster may be
//     named in any script.
//
// # Detectors
//
// [DetectCertainty] and [DetectInstructions] return the phrases found;
// [Flags] has the shape func(text string) []string and returns flag names
// ([FlagCertainty], [FlagInstructionLike]) for other packages, such as the
// agent board, to reuse on posted text. Both lists are curated for
// precision and matched on words, without regard to case, in one pass.
//
// # Reporting
//
// [File.Report] adds to the diagnostics each forecaster's latest forecast
// per question, the combined forecast (geometric mean of odds of those
// latest forecasts, pool.Combine), and for resolved questions the scores
// (scoring package) of each forecaster's latest forecast made before the
// question closed: closed_at or close_at when given, else the end of the
// resolve_by day, which stands in for the close. Unreadable forecast lines
// are left out of the numbers.
//
// For a question resolved yes or no, each scored forecaster also gets
// Metaculus's time-averaged baseline_score and peer_score and its
// coverage, as the agent board's score table names them
// (scoring.TimeAveraged; docs/SCORES.md in the repository). They use the
// question's life from opens_at, close_at and closed_at; for a key not
// given the report assumes, lists the key in [QuestionReport.Assumed] and
// says so in a note: the open is the earliest forecast, the scheduled
// close the end of the resolve_by day (the next day at 00:00 UTC, or
// closed_at when that is later), and the actual close closed_at, or else
// the scheduled close. Void and open questions get no time-averaged
// scores.
//
// # Errors
//
// Content is never an error: [Parse] returns a *[ParseError] wrapping
// [ErrInvalidUTF8] or [ErrBinary] only when the text as a whole cannot be
// read, and [File.Report] fails only for bad [Options.Bins] (wrapping
// scoring.ErrBins). [ParseDate] returns an error wrapping [ErrDate],
// [ParseTime] one wrapping [ErrTime].
//
// # Cost
//
// Parse, Check, Report and Format run in time linear in the size of the
// input and set no size limit; the 60,000-character limit belongs to the
// HTTP tool. Checking a 60,000-character file takes well under a
// millisecond (see the benchmarks).
package forecastfile
