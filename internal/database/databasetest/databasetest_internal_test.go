package databasetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"
)

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

// migrateTest is the migration of the tests' templates: one table.
func migrateTest(dsn string) error {
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	defer db.Close()
	_, err := db.ExecContext(context.Background(), "CREATE TABLE migrated (n BIGINT)")
	return err
}

// TestPostgresNeedsRun: outside [Templates.Run], New fails the test with
// the line to add, before it makes a template that nothing would drop.
func TestPostgresNeedsRun(t *testing.T) {
	ts := &Templates{Caller: "boardtest", Migrate: migrateTest}
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ts.New(f, "postgres://nobody@127.0.0.1:1/none?sslmode=disable")
	}()
	<-done
	const want = "func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }"
	if !strings.Contains(f.msg, want) {
		t.Errorf("New outside Run failed with %q, want a message giving %q", f.msg, want)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.made) != 0 {
		t.Errorf("New outside Run registered templates %v", ts.made)
	}
}

// TestTemplateDropped: the template New makes (migrated) and the test's
// own database carry the prefix of PrefixEnv; the template is gone from
// the server once Run's tests are over, and the test's database once the
// test is.
func TestTemplateDropped(t *testing.T) {
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	t.Setenv(PrefixEnv, "predictions_prefixcheck_")
	ts := &Templates{Caller: "boardtest", Migrate: migrateTest}
	ts.running.Store(true) // as Run does around m.Run
	var testDB string
	t.Run("test", func(t *testing.T) {
		dsn := ts.New(t, admin)
		testDB = Name(t, dsn)
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), "INSERT INTO migrated (n) VALUES (1)"); err != nil {
			t.Errorf("the copy of the template is not migrated: %v", err)
		}
	})
	ts.mu.Lock()
	template := ts.made[admin].name
	ts.mu.Unlock()
	if template == "" {
		t.Fatal("New made no template")
	}
	for _, name := range []string{template, testDB} {
		if !strings.HasPrefix(name, Prefix()) {
			t.Errorf("database %s does not start with %s's prefix %q", name, PrefixEnv, Prefix())
		}
	}
	if err := ts.Drop(); err != nil {
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
