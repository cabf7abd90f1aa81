package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/skillsettings"
)

var (
	// defaultsFlag is a flag as flag.PrintDefaults writes it, ownFlag as
	// settings lists its own ("  --name").
	defaultsFlag = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
	ownFlag      = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9_-]*)`)
	// namedFlag is a flag named in running text or a usage line.
	namedFlag = regexp.MustCompile(`(?:^|[\s\[(` + "`" + `"])--([a-z][a-z0-9_-]*)`)
	// envName is the environment variable in brackets ending a flag's text.
	envName = regexp.MustCompile(`\[(PREDICTIONS_[A-Z_]+)\]`)
	// serveFlag is a flag of serve named in another command's help, as
	// "serve --auth keys".
	serveFlag = regexp.MustCompile(`\bserve --([a-z][a-z0-9-]*)`)
)

// helpOf runs `predictions args...` and returns its standard output.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &cmdEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := run(context.Background(), env, args); code != 0 || stderr.Len() != 0 {
		t.Fatalf("predictions %q: exit %d, stderr %q", args, code, stderr.String())
	}
	return stdout.String()
}

// TestHelpMatchesFlags renders every command's --help and checks its
// words against its flags: the usage line names only flags the command
// has, and every flag unless it says [flags] (or, for settings, [--name
// value ...]); every --flag the text names is one of the command's (or,
// written "serve --flag", one of serve's); where the text says each flag
// reads an environment variable, each names one, PREDICTIONS_ and the
// flag's name; the program's help lists every command, version included.
// The claims the help makes about behaviour are checked against it by
// the tests named in the last lines.
func TestHelpMatchesFlags(t *testing.T) {
	top := helpOf(t, "help")
	var serveFlags []string
	for _, m := range defaultsFlag.FindAllStringSubmatch(helpOf(t, "serve", "--help"), -1) {
		serveFlags = append(serveFlags, m[1])
	}
	for _, c := range commands() {
		if !c.hidden && !regexp.MustCompile(`(?m)^  `+c.name+` `).MatchString(top) {
			t.Errorf("predictions help does not list %q:\n%s", c.name, top)
		}
	}
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			help := helpOf(t, c.name, "--help")
			usage, rest, _ := strings.Cut(help, "\n")
			if !strings.HasPrefix(usage, "Usage: predictions "+c.name) {
				t.Fatalf("first line %q is not the usage line", usage)
			}
			var flags []string
			for _, m := range defaultsFlag.FindAllStringSubmatch(rest, -1) {
				flags = append(flags, m[1])
			}
			for _, m := range ownFlag.FindAllStringSubmatch(rest, -1) {
				flags = append(flags, m[1])
			}
			wildcard := strings.Contains(usage, "[flags]") || strings.Contains(usage, "[--name value ...]")
			inUsage := names(usage)
			for _, f := range inUsage {
				if f != "name" && !slices.Contains(flags, f) {
					t.Errorf("usage %q names --%s, which %s does not have", usage, f, c.name)
				}
			}
			if !wildcard {
				for _, f := range flags {
					if !slices.Contains(inUsage, f) {
						t.Errorf("usage %q leaves out --%s", usage, f)
					}
				}
			}
			for _, m := range serveFlag.FindAllStringSubmatch(rest, -1) {
				if !slices.Contains(serveFlags, m[1]) {
					t.Errorf("the help names serve --%s, which serve does not have", m[1])
				}
			}
			for _, f := range names(serveFlag.ReplaceAllString(rest, "serve")) {
				// settings takes --floor_pct as --floor-pct, and says so.
				if f != "name" && !slices.Contains(flags, f) && !slices.Contains(flags, strings.ReplaceAll(f, "-", "_")) {
					t.Errorf("the help names --%s, which %s does not have", f, c.name)
				}
			}
			if strings.Contains(help, envFlagsHeader) {
				for _, text := range flagTexts(rest) {
					m := envName.FindStringSubmatch(text.desc)
					want := "PREDICTIONS_" + strings.ToUpper(strings.ReplaceAll(text.name, "-", "_"))
					if m == nil || m[1] != want {
						t.Errorf("-%s: the header says every flag reads a variable, but its text names %v, want [%s]", text.name, m, want)
					}
				}
			}
		})
	}
	// Examples of invocations give what the text says to give.
	lines := strings.Split(helpOf(t, "mail", "--help"), "\n")
	for i, line := range lines {
		if strings.Contains(line, "predictions mail --") {
			for _, next := range lines[i+1:] { // an example continued on the next lines
				if !strings.HasPrefix(strings.TrimSpace(next), "--") {
					break
				}
				line += " " + strings.TrimSpace(next)
			}
			for _, f := range []string{"--db", "--mail-from", "--base-url"} {
				if !strings.Contains(line, f) {
					t.Errorf("mail example %q leaves out %s, which the help says to give", line, f)
				}
			}
		}
	}
	if h := helpOf(t, "version", "--help"); !strings.HasPrefix(h, "Usage: predictions version") {
		t.Errorf("version --help = %q, want its usage", h)
	}
	t.Run("import batches", helpImportBatches)
	t.Run("import without resolves", helpImportMissingKeys)
	t.Run("check rule 0", helpCheckRules)
	t.Run("settings board", helpSettingsBoard)
}

// oneLine is a help text with its line breaks made spaces, so that a
// claim split over two lines is found whole.
func oneLine(help string) string { return strings.Join(strings.Fields(help), " ") }

// helpImportBatches: import --help says that a file goes in batches of
// whole questions of about N forecast lines, not in one transaction, and
// that a database failing part way is told how many questions were
// stored. boardfile.Import, which the command calls, does so with N.
func helpImportBatches(t *testing.T) {
	help := oneLine(helpOf(t, "import", "--help"))
	if strings.Contains(help, "one transaction") {
		t.Errorf("import --help still says one transaction:\n%s", help)
	}
	m := regexp.MustCompile(`transactions of whole questions of about ([0-9,]+) forecast lines each`).FindStringSubmatch(help)
	if m == nil {
		t.Fatalf("import --help does not give the batch size:\n%s", help)
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil || n < 2 || n%2 != 0 {
		t.Fatalf("batch size %q: %v", m[1], err)
	}
	if !strings.Contains(help, "the error says how many questions were stored") {
		t.Errorf("import --help does not say what a failure part way reports:\n%s", help)
	}
	// Three questions of n/2 lines go as two batches (two whole questions,
	// then one); one line more each and no two fit together.
	for _, tc := range []struct {
		lines int
		want  []int // questions per Load
	}{{n / 2, []int{2, 1}}, {n/2 + 1, []int{1, 1, 1}}} {
		var qs []string
		for i := range 3 {
			qs = append(qs, batchQuestion(fmt.Sprintf("q%d", i), tc.lines))
		}
		b := &loadCounter{now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
		if _, err := boardfile.Import(context.Background(), b, strings.NewReader(strings.Join(qs, ""))); err != nil {
			t.Fatalf("Import of 3 questions of %d lines: %v", tc.lines, err)
		}
		if !slices.Equal(b.loads, tc.want) {
			t.Errorf("Import of 3 questions of %d lines: questions per transaction %v, want %v (batches of about %d lines, as the help says)", tc.lines, b.loads, tc.want, n)
		}
		// A database failing at the second batch: the first's questions
		// are stored, and the error says how many.
		b = &loadCounter{now: b.now, failAt: 2}
		_, err := boardfile.Import(context.Background(), b, strings.NewReader(strings.Join(qs, "")))
		if want := fmt.Sprintf("the first %d of the file's 3 questions were stored", tc.want[0]); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Import failing at its second transaction: %v, want an error saying %q", err, want)
		}
	}
}

// helpImportMissingKeys: import --help says that a file missing only
// resolves and resolve_by (as export writes a prediction posted without
// them) is imported, each missing key a rule-1 warning; import does so.
func helpImportMissingKeys(t *testing.T) {
	help := oneLine(helpOf(t, "import", "--help"))
	const claim = "a file missing only those keys is imported, and each missing key is printed as a rule-1 warning"
	if !strings.Contains(help, claim) {
		t.Errorf("import --help does not say %q:\n%s", claim, help)
	}
	file := writeTemp(t, "no-resolves.md", "# Rain\n\n- id: rain\n- status: open\n\n## Forecasts\n\n- 2026-02-01 · agent:a · 40%\n")
	code, stdout, stderr := runForecastCmd(t, "", "import", "--db", filepath.Join(t.TempDir(), "board.db"), file)
	if code != 0 || strings.Count(stderr, ": rule 1: warning: ") != 2 || !strings.Contains(stdout, "imported 1 of 1") {
		t.Errorf("import of a file without resolves and resolve_by: exit %d, stdout %q, stderr %q; want exit 0, the question imported and two rule-1 warnings", code, stdout, stderr)
	}
}

// batchQuestion is an open question with lines forecast lines, a minute
// apart.
func batchQuestion(id string, lines int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Question %s\n\n- id: %s\n- resolves: the crowd says so\n- resolve_by: 2026-12-31\n- status: open\n\n## Forecasts\n\n", id, id)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range lines {
		fmt.Fprintf(&b, "- %s · agent:a%d · %d%%\n", t0.Add(time.Duration(i)*time.Minute).Format("2006-01-02 15:04"), i%7, 10+i%80)
	}
	return b.String() + "\n"
}

// loadCounter is a board that records how many questions each Load
// stores, and fails the failAt-th Load (from 1) when failAt is set.
type loadCounter struct {
	now    time.Time
	loads  []int
	failAt int
}

func (b *loadCounter) Load(_ context.Context, qs []board.LoadQuestion) (board.LoadResult, error) {
	if len(b.loads)+1 == b.failAt {
		return board.LoadResult{}, errors.New("database is down")
	}
	b.loads = append(b.loads, len(qs))
	res := board.LoadResult{NewAgents: []string{}}
	for _, q := range qs {
		res.Questions = append(res.Questions, board.LoadedQuestion{Created: true, Status: board.StatusOpen, Forecasts: len(q.Forecasts)})
	}
	return res, nil
}

func (b *loadCounter) Dump(context.Context, board.DumpQuery) (*board.Dump, error) {
	return nil, errors.New("not used")
}

func (b *loadCounter) Now() time.Time { return b.now }

// helpCheckRules: check --help says that findings are rules 0 to 3 and
// exit 1; a file whose only finding is a bad id (rule 0) does.
func helpCheckRules(t *testing.T) {
	help := oneLine(helpOf(t, "check", "--help"))
	if !strings.Contains(help, "exit status 1 when there are findings (rules 0-3; rule 0 is the layout, such as a missing or malformed id)") {
		t.Errorf("check --help does not say that findings are rules 0-3, a bad id among them:\n%s", help)
	}
	file := writeTemp(t, "bad-id.md", "# Rain\n\n- id: rain 1\n- resolves: x\n- resolve_by: 2026-06-30\n- status: open\n\n## Forecasts\n\n- 2026-02-01 · agent:a · 40%\n")
	code, stdout, _ := runForecastCmd(t, "", "check", "--today", "2026-03-01", file)
	if code != 1 || !strings.Contains(stdout, ":3: rule 0: ") || strings.Contains(stdout, "warning:") {
		t.Errorf("check of a file with a bad id: exit %d, output %q; want exit 1 and a rule-0 finding on line 3", code, stdout)
	}
}

// helpSettingsBoard: settings --help says that the file has no board
// section without --board, and that --board id and keys give exactly
// what serve answers at GET /predictions.md under --auth id and keys.
func helpSettingsBoard(t *testing.T) {
	help := oneLine(helpOf(t, "settings", "--help"))
	for _, claim := range []string{
		"Without --board it is the file of a server without the board",
		"With --board id or --board keys it is exactly what GET /predictions.md answers on predictions serve --auth id or serve --auth keys",
	} {
		if !strings.Contains(help, claim) {
			t.Errorf("settings --help does not say %q:\n%s", claim, help)
		}
	}
	without := helpOf(t, "settings", "--preset", "team")
	if want := skillFor(t, skillsettings.DefaultBaseURL, map[string]string{"preset": "team"}); without != want {
		t.Errorf("settings --preset team is not the file without the board")
	}
	for _, auth := range []string{"id", "keys"} {
		addr, _ := startServe(t, "--auth", auth)
		code, _, served := request(t, http.MethodGet, "http://"+addr+"/predictions.md?preset=team&pool=mean", "", "")
		if code != http.StatusOK {
			t.Fatalf("GET /predictions.md: %d", code)
		}
		got := helpOf(t, "settings", "--preset", "team", "--pool", "mean", "--board", auth, "--base-url", "http://"+addr)
		if got != served {
			t.Errorf("settings --board %s differs from GET /predictions.md on serve --auth %s:\n%s", auth, auth, cmp.Diff(served, got))
		}
		if strings.Replace(without, skillsettings.DefaultBaseURL, "http://"+addr, -1) == got {
			t.Errorf("settings --board %s is the file without the board", auth)
		}
	}
}

// names lists the --flags named in s.
func names(s string) []string {
	var out []string
	for _, m := range namedFlag.FindAllStringSubmatch(s, -1) {
		out = append(out, strings.TrimRight(m[1], "-_"))
	}
	return out
}

type flagText struct{ name, desc string }

// flagTexts splits flag.PrintDefaults output into flags and their texts.
func flagTexts(s string) []flagText {
	var out []flagText
	for _, line := range strings.Split(s, "\n") {
		if m := defaultsFlag.FindStringSubmatch(line); m != nil {
			out = append(out, flagText{name: m[1]})
			continue
		}
		if len(out) > 0 && strings.HasPrefix(line, "    \t") {
			out[len(out)-1].desc += " " + strings.TrimSpace(line)
		}
	}
	return out
}
