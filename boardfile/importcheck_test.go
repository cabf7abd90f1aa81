package boardfile_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/forecastfile"
)

// TestImportRefusesWhatCheckFinds: the board's import refuses a forecast
// file exactly when forecastfile.Check with Options.BoardImport finds
// something (or the text is not UTF-8), so that what the checker passes
// the board imports and what it refuses the checker reports: on the
// module's forecast files, on files near each of the board's limits, and
// on random files built from pieces near them.
func TestImportRefusesWhatCheckFinds(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }
	s, err := board.Open(context.Background(), filepath.Join(t.TempDir(), "board.db"), board.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// agree imports text and reports whether it was imported.
	agree := func(text string) bool {
		t.Helper()
		var findings []forecastfile.Diagnostic
		if f, err := forecastfile.Parse([]byte(text)); err != nil {
			findings = append(findings, forecastfile.Diagnostic{Message: err.Error()})
		} else {
			for _, d := range forecastfile.Check(f, forecastfile.Options{Now: now, BoardImport: true}) {
				if d.Severity == forecastfile.Finding {
					findings = append(findings, d)
				}
			}
		}
		_, err := boardfile.Import(context.Background(), s, strings.NewReader(text))
		var ie *boardfile.ImportError
		switch {
		case err != nil && !errors.As(err, &ie):
			t.Fatalf("Import: %v", err)
		case err != nil && len(findings) == 0:
			t.Errorf("Import refuses a file Check (BoardImport) passes: %v\n%q", err, text)
		case err == nil && len(findings) > 0:
			t.Errorf("Import takes a file Check (BoardImport) refuses: %v\n%q", findings, text)
		}
		return err == nil
	}

	var files []string
	for _, glob := range []string{"../forecastfile/testdata/*.md", "testdata/*.md", "../examples/score/*.md"} {
		names, _ := filepath.Glob(glob)
		for _, name := range names {
			if b, err := os.ReadFile(name); err == nil {
				files = append(files, string(b))
			}
		}
	}
	const keys = "- id: q\n- resolves: yes if so\n- resolve_by: 2026-06-30\n- status: open\n"
	files = append(files, []string{
		"# Q?\n" + keys,
		"# Q?\n" + strings.Replace(keys, "id: q", "id: rain 1", 1) + "## Forecasts\n- 2026-01-05 · agent:a · 60%\n",
		"# Q?\n" + keys + "## Forecasts\n- 2026-01-05 · agent: · 60%\n- 2026-01-05 · ??? · 60%\n- 2026-01-05 · 张三 · 60%\n- 2026-01-05 · José · 60%\n",
		"# Q?\n" + keys + "## Forecasts\n- 2026-01-05 · " + strings.Repeat("é", 80) + "x · 60%\n- 2026-01-05 · x" + strings.Repeat("é", 79) + " · 60%\n",
		"# Q?\n" + keys + "## Forecasts\n- 2026-01-05 · Jane\tDoe · 60%\n- 2026-01-05 · a · 60% · note\twith a tab\n- 2026-01-05 · b · 60% · bell\x07\n",
		"# " + strings.Repeat("é", 198) + " \\#\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# " + strings.Repeat("é", 199) + " \\#\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q\x01?\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q?\n\n\\# " + strings.Repeat("é", 9998) + "\n\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q?\n\n\\# " + strings.Repeat("é", 9999) + "\n\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q?\n\n\u00a0\n\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q?\n\na\tb\n\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q?\n" + strings.Replace(keys, "yes if so", strings.Repeat("r", 501), 1) + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q?\n" + strings.Replace(keys, "yes if so", "a\tb", 1) + "## Forecasts\n- 2026-01-05 · a · 60%\n",
		"# Q?\n" + keys + "## Forecasts\n- 2026-01-05 · a · 60% · " + strings.Repeat("n", 10001) + "\n",
		"# Q?\n" + keys + "## Forecasts\n- 2026-01-05 17:05:09.123456 · a · 0.001%\n- 2026-01-05 · b · 100%\n",
		"# Q?\n" + keys + "\xff",
	}...)
	for _, text := range files {
		agree(text)
	}

	// Random files: each piece is plain most of the time.
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "Z", "7", ".", "_", "-", "é", "张", " ", "\t", "\x01", "?", "#", "\\", "·"}
	str := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	// near returns a text of about limit characters, often plain letters.
	near := func(limit int) string {
		n := limit - 3 + r.IntN(6)
		if r.IntN(3) == 0 {
			return str(min(n, 30))
		}
		return strings.Repeat("é", n)
	}
	imported := 0
	for i := range 300 {
		// Each piece is plain most of the time, so that about half the
		// files import.
		pick := func(plain string, tricky ...string) string {
			if r.IntN(5) > 0 {
				return plain
			}
			return tricky[r.IntN(len(tricky))]
		}
		who := pick("agent:ok", "agent:"+str(1+r.IntN(4)), str(1+r.IntN(6)), "a"+near(80), "agent:"+near(64), "Jane Doe")
		id := pick(fmt.Sprintf("q%d", i), fmt.Sprintf("q %d", i), fmt.Sprintf("q%d.%s", i, str(2)))
		title := pick("Will it?", near(200), near(198)+" \\#", "Q"+str(3))
		text := pick("Context.", "", "\\# "+near(9998), near(10000), "a\tb", "\u00a0", str(5))
		resolves := pick("yes if so", near(500), str(4))
		note := pick("a note", "", near(10000), str(4))
		file := "# " + title + "\n\n" + text + "\n\n- id: " + id + "\n- resolves: " + resolves + "\n- resolve_by: 2026-06-30\n- status: open\n"
		if r.IntN(8) > 0 {
			file += "\n## Forecasts\n\n- 2026-01-05 · " + who + " · 60% · " + note + "\n"
		}
		if agree(file) {
			imported++
		}
	}
	// Both sides of the property are exercised.
	if imported < 30 || imported > 270 {
		t.Errorf("%d of 300 files imported; want a mix of imported and refused", imported)
	}
}
