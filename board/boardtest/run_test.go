package boardtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/internal/database/databasetest"
	"github.com/uptrace/bun/driver/pgdriver"
)

// TestMain checks the environment as [Run] does, but runs the tests
// outside Run: TestPostgresNeedsRun needs that.
func TestMain(m *testing.M) {
	if err := CheckPostgresEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// fatalTB records the first Fatal and ends the goroutine as testing's does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fatalTB) Fatalf(format string, args ...any) { f.Fatal(fmt.Sprintf(format, args...)) }

// TestPostgresNeedsRun: outside [Run], Postgres fails the test with the
// line to add, before it makes a template that nothing would drop.
func TestPostgresNeedsRun(t *testing.T) {
	if running.Load() {
		t.Fatal("this package's tests must not run through Run")
	}
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Postgres(f, "postgres://nobody@127.0.0.1:1/none?sslmode=disable")
	}()
	<-done
	const want = "func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }"
	if !strings.Contains(f.msg, want) {
		t.Errorf("Postgres outside Run failed with %q, want a message giving %q", f.msg, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(templates) != 0 {
		t.Errorf("Postgres outside Run registered templates %v", templates)
	}
}

// TestTemplateDropped: the template Postgres makes is gone from the
// server once Run's tests are over, and the test's own database once
// the test is.
func TestTemplateDropped(t *testing.T) {
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	running.Store(true) // as Run does around m.Run
	t.Cleanup(func() { running.Store(false) })
	var testDB string
	t.Run("test", func(t *testing.T) {
		testDB = databaseName(t, Postgres(t, admin))
	})
	mu.Lock()
	template := templates[admin].name
	mu.Unlock()
	if template == "" {
		t.Fatal("Postgres made no template")
	}
	for _, name := range []string{template, testDB} {
		if !strings.HasPrefix(name, databasetest.Prefix()) {
			t.Errorf("database %s does not start with %s's prefix %q", name, databasetest.PrefixEnv, databasetest.Prefix())
		}
	}
	if err := dropTemplates(); err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	defer db.Close()
	for _, name := range []string{template, testDB} {
		var n int
		if err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("database %s is still on the server", name)
		}
	}
}

func databaseName(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(p.Path, "/")
}
