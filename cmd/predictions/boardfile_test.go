package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// boardFile is a forecast file with an open, a resolved and a void question,
// forecasters written agent:<id>, person and a name with a space.
const boardFile = `# Will the transit levy pass by June?

Council vote expected in May.

- id: transit-levy
- resolves: yes if the council minutes record a passing vote
- resolve_by: 2026-06-30
- status: open
- tags: Politics

## Forecasts

- 2026-01-05 09:30 · agent:alice · 62%
- 2026-01-06 · person · 40% · polling flat
- 2026-01-07 14:30 · Jane Doe · 55.5%

# Will the beta open by January?

- id: beta-open
- resolves: yes if the sign-up page is live
- resolve_by: 2026-01-31
- status: resolved
- outcome: yes
- tags: tech

## Forecasts

- 2026-01-02 · agent:bob · 70%
- 2026-01-03 · agent:alice · 55%

# Launch window holds

- id: launch
- resolves: yes if it launches in the window
- resolve_by: 2026-03-15
- status: void

## Forecasts

- 2026-02-10 · agent:carol · 90%
`

// runBin runs the built binary with stdin and returns its exit status and
// output.
func runBin(t *testing.T, bin, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = cleanEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %s %q: %v", bin, args, err)
	}
	return code, out.String(), errb.String()
}

// TestExportImportCommands runs the binary: import a file, import it again
// (nothing changes), export, import the export into a fresh board and
// export again (the same text); a file with findings is refused with its
// lines and writes nothing.
func TestExportImportCommands(t *testing.T) {
	bin := buildBinary(t)
	dbs := []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "board.db") }},
	}
	if os.Getenv(pgEnv) != "" {
		dbs = append(dbs, struct {
			name string
			dsn  func(t *testing.T) string
		}{"postgres", pgDatabase})
	}
	for _, db := range dbs {
		t.Run(db.name, func(t *testing.T) {
			src, dst := db.dsn(t), db.dsn(t)
			file := filepath.Join(t.TempDir(), "board.md")
			if err := os.WriteFile(file, []byte(boardFile), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runBin(t, bin, "", "import", "--db", src, file)
			if code != 0 || !strings.Contains(out, "imported 3 of 3 question(s)") || !strings.Contains(out, "new agents: Jane-Doe, alice, bob, carol, person") {
				t.Fatalf("import: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			code, out, errOut = runBin(t, bin, boardFile, "import", "--db", src, "-")
			if code != 0 || !strings.Contains(out, "imported 0 of 3") || !strings.Contains(out, "not created again: transit-levy, beta-open, launch") {
				t.Fatalf("second import: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}

			code, first, errOut := runBin(t, bin, "", "export", "--db", src)
			if code != 0 || errOut != "" {
				t.Fatalf("export: exit %d\nstderr:\n%s", code, errOut)
			}
			for _, want := range []string{"- id: transit-levy", "· agent:Jane-Doe · 55.5%", "· agent:person · 40% · polling flat", "- outcome: yes", "- tags: Tech"} {
				if !strings.Contains(first, want) {
					t.Errorf("export lacks %q:\n%s", want, first)
				}
			}
			code, out, errOut = runBin(t, bin, first, "check", "-")
			if code != 0 {
				t.Errorf("check of the export: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, errOut = runBin(t, bin, first, "import", "--db", dst, "-"); code != 0 {
				t.Fatalf("import of the export: exit %d\n%s%s", code, out, errOut)
			}
			_, second, _ := runBin(t, bin, "", "export", "--db", dst)
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("export of the re-imported board mismatch (-want +got):\n%s", diff)
			}
			code, filtered, _ := runBin(t, bin, "", "export", "--db", src, "--domain", "tech")
			if code != 0 || strings.Count(filtered, "\n# ") != 1 || !strings.Contains(filtered, "- id: beta-open") {
				t.Errorf("export --domain tech: exit %d\n%s", code, filtered)
			}

			bad := strings.Replace(boardFile, "- resolve_by: 2026-01-31\n", "- resolve_by: end of January\n", 1)
			bad = strings.Replace(bad, "· person · 40%", "· person", 1)
			code, out, errOut = runBin(t, bin, bad, "import", "--db", dst, "-")
			if code != 1 || out != "" {
				t.Errorf("import of a bad file: exit %d, want 1; stdout:\n%s", code, out)
			}
			for _, want := range []string{"<stdin>:14: rule 2:", "<stdin>:21: rule 1:", "nothing was imported"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("import of a bad file: stderr lacks %q:\n%s", want, errOut)
				}
			}
			if _, after, _ := runBin(t, bin, "", "export", "--db", dst); after != second {
				t.Errorf("a refused import changed the board:\n%s", after)
			}
			if db.name == "sqlite" {
				// A refused import into a board it would create leaves no file.
				fresh := filepath.Join(t.TempDir(), "new.db")
				if code, _, _ = runBin(t, bin, bad, "import", "--db", fresh, "-"); code != 1 {
					t.Errorf("refused import into a new file: exit %d, want 1", code)
				}
				if left, _ := filepath.Glob(fresh + "*"); len(left) != 0 {
					t.Errorf("a refused import into a new board left %v behind", left)
				}
			}
		})
	}
}

func TestExportImportUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string // a piece of standard error
	}{
		{[]string{"export", "--db", filepath.Join(dir, "missing.db")}, 2, "no such database"},
		{[]string{"export", "--db", filepath.Join(dir, "b.db"), "extra"}, 2, "unexpected argument"},
		{[]string{"import", "--db", filepath.Join(dir, "b.db")}, 2, "Usage: predictions import"},
		{[]string{"import", "--db", filepath.Join(dir, "b.db"), filepath.Join(dir, "missing.md")}, 2, "missing.md"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:1], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &cmdEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			if code := run(t.Context(), env, tt.args); code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("predictions %q: exit %d, want %d; stderr lacks %q:\n%s", tt.args, code, tt.code, tt.want, stderr.String())
			}
		})
	}
}
