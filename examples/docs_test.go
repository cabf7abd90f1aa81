package examples_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

// docPackages must each show a complete program in their doc.go, so that
// `go doc` alone teaches them.
var docPackages = []string{"odds", "pool", "bayes", "scoring", "forecastfile", "skillsettings", "board", "httpapi", "mcpserver"}

// TestDocPrograms compiles the program in each package's doc.go and, when
// the comment goes on with a block introduced by a line ending in
// "prints:", runs it and compares its output with that block.
func TestDocPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the programs with the go command")
	}
	// Programs are written to a temporary module that a go.work puts beside
	// this one, so that they import its packages as users do and nothing is
	// written into the source tree.
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	gov := goVersion(t, root)
	for name, text := range map[string]string{
		"go.mod":  "module docprog\n\ngo " + gov + "\n",
		"go.work": "go " + gov + "\n\nuse (\n\t.\n\t" + strconv.Quote(root) + "\n)\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{}
	for _, pkg := range docPackages {
		prog, out, err := docProgram(filepath.Join("..", pkg, "doc.go"))
		if err != nil {
			t.Errorf("%s/doc.go: %v", pkg, err)
			continue
		}
		dir := filepath.Join(src, pkg)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
			t.Fatal(err)
		}
		if out != "" {
			want[pkg] = out
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	bin := t.TempDir()
	cmd := exec.Command(exampletest.GoCommand(), "build", "-o", bin+string(filepath.Separator), "./...")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(src, "go.work"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the doc.go programs do not compile: %v\n%s", err, out)
	}
	for _, pkg := range docPackages {
		w, ok := want[pkg]
		if !ok {
			continue
		}
		t.Run(pkg, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(bin, pkg))
			cmd.Dir = t.TempDir() // the board program makes a database file here
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("running the %s/doc.go program: %v\n%s", pkg, err, stderr.String())
			}
			if diff := cmp.Diff(w, string(got)); diff != "" {
				t.Errorf("%s/doc.go: the program's output differs from the comment (-want +got):\n%s", pkg, diff)
			}
		})
	}
}

// docProgram returns the program of a package comment (the indented block
// starting with "package main") and the output it documents (the indented
// block after a line ending in "prints:"), without the indentation.
func docProgram(path string) (prog, output string, err error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		return "", "", err
	}
	if f.Doc == nil {
		return "", "", os.ErrNotExist
	}
	lines := strings.Split(f.Doc.Text(), "\n")
	start := -1
	for i, l := range lines {
		if l == "\tpackage main" {
			start = i
			break
		}
	}
	if start < 0 {
		return "", "", errNoProgram
	}
	prog, end := block(lines, start)
	for i := end; i < len(lines) && i < end+3; i++ {
		if strings.HasSuffix(lines[i], "prints:") {
			output, _ = block(lines, i+1)
			break
		}
	}
	return prog, output, nil
}

// block returns the indented block starting at or after lines[i] (blank
// lines inside it included) and the index of the first line after it.
func block(lines []string, i int) (string, int) {
	for i < len(lines) && lines[i] == "" {
		i++
	}
	var b strings.Builder
	blank := 0
	for ; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			blank++
			continue
		}
		if !strings.HasPrefix(l, "\t") {
			break
		}
		b.WriteString(strings.Repeat("\n", blank))
		blank = 0
		b.WriteString(strings.TrimPrefix(l, "\t") + "\n")
	}
	return b.String(), i
}

type docError string

func (e docError) Error() string { return string(e) }

const errNoProgram = docError(`the package comment has no program: add an indented block starting with "package main"`)

// goVersion is the go line of the module's go.mod, for the workspace.
func goVersion(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return v
		}
	}
	t.Fatal("go.mod has no go line")
	return ""
}
