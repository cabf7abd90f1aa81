package forecastfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreLines compares Files by meaning: line numbers and the layout
// diagnostics describe the text as written, not its content.
var ignoreLines = cmp.Options{
	cmpopts.IgnoreFields(File{}, "Diagnostics", "PreambleLine"),
	cmpopts.IgnoreFields(Field{}, "Line"),
	cmpopts.IgnoreFields(Question{}, "Line", "TextLine", "ForecastsTextLine", "NotesLine"),
	cmpopts.IgnoreFields(Section{}, "Line", "TextLine"),
	cmpopts.IgnoreFields(Forecast{}, "Line"),
	cmpopts.EquateEmpty(),
}

// FuzzParse checks that Parse never panics, fails only with a typed error,
// that Format then Parse gives the same File (round trip), that Format is
// idempotent, and that Check and Report never panic on what Parse returns.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.md")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "---", "---\n---", "# ", "#", "# q\n- id: x\n## Forecasts\n- 2026-01-01 · a · 5",
		"# q\n## Forecasts\n-\n- 2026-01-01 - a - 0.5\n  - sub", "```\n# x", "# a #\n## Notes\nx\n## Notes\ny",
		"\ufeff# q\r\n* Status: OPEN\r\n* base_rate: 0.5", "# q\n- tags: ,#,a",
		"# q\n- id: q\n- opens_at: 2026-01-01\n- Close At: 2026-02-10T17:05:09.25Z\n- closed_at: 2026-02-10 17:05:00.000\n- closed_at: x\n## Forecasts\n- 2026-02-10 17:05:09.123456 · a · 5%\n- 2026-02-10T17:05:09Z · b · 5%",
		"# q\n- status: resolved\n- outcome: no\n- resolve_by: 2026-02-10\n- close_at: 2026-02-10 12:00+02:00\n## Forecasts\n- 2026-02-10 09:00:00 · a · 1%\n- 2026-02-10 09:00:00.1234567 · b · 2%\n- 2026-02-11 · c · 3%",
		"# q\n- id: rain 1\n- opens_at: 0001-01-01\n## Forecasts\n- 0001-01-01 00:00:00.000001 · a · 50%",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		f1, err := Parse(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !(errors.Is(err, ErrInvalidUTF8) || errors.Is(err, ErrBinary)) {
				t.Fatalf("Parse error %v (%T) is not a *ParseError wrapping a sentinel", err, err)
			}
			return
		}
		_ = Check(f1, pinned)
		_ = Check(f1, Options{Now: pinned.Now, BoardImport: true})
		if _, err := f1.Report(pinned); err != nil {
			t.Fatalf("Report: %v", err)
		}
		out := Format(f1)
		f2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format(f)) failed: %v\n%s", err, out)
		}
		if diff := cmp.Diff(f1, f2, ignoreLines); diff != "" {
			t.Fatalf("round trip changed the file (-first +second):\n%s\ninput:\n%q\nformatted:\n%q", diff, data, out)
		}
		if out2 := Format(f2); string(out2) != string(out) {
			t.Fatalf("Format is not idempotent:\n%q\n%q", out, out2)
		}
	})
}
