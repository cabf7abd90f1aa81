package databasetest_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/database/databasetest"
)

func TestMain(m *testing.M) { os.Exit(databasetest.Run(m)) }

// example is the URL every message about PostgresEnv gives.
const example = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// TestCheckPostgresEnv: a malformed PREDICTIONS_TEST_POSTGRES is an
// error naming the URL form, not a panic in the driver; a malformed
// prefix is an error saying what a prefix may hold.
func TestCheckPostgresEnv(t *testing.T) {
	for _, tc := range []struct {
		pg, prefix string
		want       string // in the error; "" for none
	}{
		{"", "", ""},
		{example, "", ""},
		{"postgresql://u:p@db.example:5432/x", "", ""},
		{"127.0.0.1:5432", "", example},
		{"localhost", "", example},
		{"mysql://u@127.0.0.1/x", "", example},
		{"postgres:///x", "", example},
		{"postgres://%zz", "", example},
		{example, "ci_job7_", ""},
		{example, "_x", ""},
		{"", strings.Repeat("p", 42), ""},
		{"", strings.Repeat("p", 43), databasetest.PrefixEnv},
		{example, "CI_", databasetest.PrefixEnv},
		{example, "7ci_", databasetest.PrefixEnv},
		{example, "ci-job_", databasetest.PrefixEnv},
		{example, "x; DROP DATABASE postgres; --", databasetest.PrefixEnv},
		{"", "é_", databasetest.PrefixEnv},
	} {
		env := map[string]string{databasetest.PostgresEnv: tc.pg, databasetest.PrefixEnv: tc.prefix}
		err := databasetest.CheckPostgresEnv(func(k string) string { return env[k] })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckPostgresEnv(%q, prefix %q) = %v, want nil", tc.pg, tc.prefix, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckPostgresEnv(%q, prefix %q) = %v, want an error giving %q", tc.pg, tc.prefix, err, tc.want)
		}
	}
}

// TestNewName: names take the prefix, default or set, and a suffix of
// their own, within PostgreSQL's 63 bytes.
func TestNewName(t *testing.T) {
	t.Setenv(databasetest.PrefixEnv, "")
	name := regexp.MustCompile(`^predictions_template_[0-9a-f]{12}$`)
	if got := databasetest.NewName("template"); !name.MatchString(got) {
		t.Errorf("NewName(template) = %q with the prefix unset, want %v", got, name)
	}
	long := strings.Repeat("p", 42)
	t.Setenv(databasetest.PrefixEnv, long)
	a, b := databasetest.NewName("template"), databasetest.NewName("template")
	if !strings.HasPrefix(a, long+"template_") || len(a) > 63 {
		t.Errorf("NewName(template) = %q (%d bytes) with prefix %q, want that prefix and at most 63 bytes", a, len(a), long)
	}
	if a == b {
		t.Errorf("NewName gave %q twice", a)
	}
}

// TestPrefixOnServer: the database NewPostgres creates carries the prefix
// of PrefixEnv.
func TestPrefixOnServer(t *testing.T) {
	admin := os.Getenv(databasetest.PostgresEnv)
	if admin == "" {
		t.Skip(databasetest.PostgresEnv + " is not set")
	}
	t.Setenv(databasetest.PrefixEnv, "predictions_prefixcheck_")
	if got := databasetest.Name(t, databasetest.NewPostgres(t, admin)); !strings.HasPrefix(got, "predictions_prefixcheck_test_") {
		t.Errorf("NewPostgres made database %q, want the prefix predictions_prefixcheck_test_", got)
	}
}

// moduleRoot is the directory of go.mod, three levels up.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// readsEnv are what a test file holds when it reads PostgresEnv, itself or
// through a helper that does.
var readsEnv = []string{
	"PREDICTIONS_TEST_POSTGRES", "PostgresEnv",
	"boardtest.EachStore", "boardtest.Backends", "boardtest.Postgres(",
	"databasetest.NewPostgres", "databasetest.Admin(",
}

// checksEnv are the calls of a TestMain that check the environment first.
var checksEnv = []string{
	"CheckPostgresEnv", "boardtest.CheckPostgresEnv", "databasetest.CheckPostgresEnv",
	"boardtest.Run", "databasetest.Run",
}

// TestEveryReaderChecks: every package whose tests read
// PREDICTIONS_TEST_POSTGRES has a TestMain that checks it before the tests
// (CheckPostgresEnv, or boardtest.Run or databasetest.Run, which call it).
func TestEveryReaderChecks(t *testing.T) {
	root := moduleRoot(t)
	reads := map[string]bool{}  // package directories whose tests read the variable
	checks := map[string]bool{} // package directories whose TestMain checks it
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		if slices.ContainsFunc(readsEnv, func(s string) bool { return strings.Contains(string(src), s) }) {
			reads[dir] = true
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "TestMain" || fn.Recv != nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok && slices.Contains(checksEnv, calleeName(call.Fun)) {
					checks[dir] = true
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for dir := range reads {
		found = append(found, dir)
		if !checks[dir] {
			t.Errorf("%s: its tests read %s but no TestMain checks it first; add func TestMain(m *testing.M) { os.Exit(databasetest.Run(m)) } (or boardtest.Run)", dir, databasetest.PostgresEnv)
		}
	}
	slices.Sort(found)
	t.Logf("packages whose tests read %s: %v", databasetest.PostgresEnv, found)
	if len(found) < 10 {
		t.Errorf("found %d packages whose tests read %s, want at least 10: is the search still finding them?", len(found), databasetest.PostgresEnv)
	}
}

// calleeName is "pkg.Func" for a call of a selector, "Func" for an
// identifier, and "" otherwise.
func calleeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	}
	return ""
}

// TestMalformedEnvInPackages runs the tests of a few packages that read
// PREDICTIONS_TEST_POSTGRES, through each kind of TestMain (boardtest.Run,
// databasetest.Run, a CheckPostgresEnv of its own), with the bare
// host:port people type: each stops before its tests with the message
// giving the URL form, and none panics.
func TestMalformedEnvInPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tests of other packages")
	}
	pkgs := []string{"./outbox", "./internal/database", "./cmd/predictions"}
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-run", "^$"}, pkgs...)...)
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), databasetest.PostgresEnv+"=127.0.0.1:5432", databasetest.PrefixEnv+"=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go test %v with %s=127.0.0.1:5432 passed; want each package stopped:\n%s", pkgs, databasetest.PostgresEnv, out)
	}
	if strings.Contains(string(out), "panic:") {
		t.Errorf("go test %v panicked:\n%s", pkgs, out)
	}
	if n := strings.Count(string(out), `is not a URL`); n != len(pkgs) {
		t.Errorf("go test %v printed the message %d times, want once per package (%d):\n%s", pkgs, n, len(pkgs), out)
	}
	if !strings.Contains(string(out), example) {
		t.Errorf("go test %v does not give the URL form %s:\n%s", pkgs, example, out)
	}
}

// TestBackends: SQLite always; PostgreSQL when PREDICTIONS_TEST_POSTGRES
// is set, but not with -short.
func TestBackends(t *testing.T) {
	short := flag.Lookup("test.short").Value.String()
	t.Cleanup(func() { flag.Set("test.short", short) })
	for _, tc := range []struct {
		pg    string
		short bool
		want  []string
	}{
		{"", false, []string{"sqlite"}},
		{"", true, []string{"sqlite"}},
		{example, false, []string{"sqlite", "postgres"}},
		{example, true, []string{"sqlite"}},
	} {
		t.Setenv(databasetest.PostgresEnv, tc.pg)
		if err := flag.Set("test.short", strconv.FormatBool(tc.short)); err != nil {
			t.Fatal(err)
		}
		var ts databasetest.Templates
		var got []string
		for _, b := range ts.Backends(t) {
			got = append(got, b.Name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s=%q, -short=%v: backends (-want +got):\n%s", databasetest.PostgresEnv, tc.pg, tc.short, diff)
		}
	}
}
