package boardtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database/databasetest"
)

// sqliteTemplate is the file of a migrated, empty SQLite board.
var sqliteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "boardtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "board.db")
	if err := migrate(path); err != nil { // the last connection checkpoints the WAL into the file
		return nil, err
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("%s-wal holds %d bytes after Close: the file alone is not the board", path, st.Size())
	}
	return os.ReadFile(path)
})

// migrate opens the board at dsn, which applies its migrations, and
// closes it.
func migrate(dsn string) error {
	s, err := board.Open(context.Background(), dsn, board.Options{})
	if err != nil {
		return err
	}
	return s.Close()
}

// SQLite returns the path of a new SQLite board in tb's temporary
// directory, migrated and empty.
func SQLite(tb testing.TB) string {
	tb.Helper()
	b, err := sqliteTemplate()
	if err != nil {
		tb.Fatalf("boardtest: making the SQLite template: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "board.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// templates are the PostgreSQL template boards, one per server.
var templates = databasetest.Templates{Caller: "boardtest", Migrate: migrate}

// Run runs the tests of m, then drops the PostgreSQL template databases
// that [Postgres] made, and returns the tests' exit code. A package whose
// tests call Postgres runs them through it:
//
//	func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }
//
// Without it each run of the tests would leave a template database on
// the server.
func Run(m *testing.M) int { return templates.Run(m) }

// Postgres returns the URL of a new database on the PostgreSQL server
// named by admin (a URL whose user may create databases), migrated and
// empty; it is dropped when tb's test ends. The test binary's TestMain
// must run the tests through [Run], which drops the template; Postgres
// fails the test if it does not.
func Postgres(tb testing.TB, admin string) string {
	tb.Helper()
	return templates.New(tb, admin)
}

// PostgresEnv is the environment variable that names the PostgreSQL
// server of the tests; unset, their PostgreSQL half is skipped.
const PostgresEnv = databasetest.PostgresEnv

// PostgresForm is the form PostgresEnv takes ([databasetest.PostgresForm]).
const PostgresForm = databasetest.PostgresForm

// CheckPostgresEnv is [databasetest.CheckPostgresEnv]: an error naming
// [PostgresForm] when [PostgresEnv] is set to anything but such a URL.
func CheckPostgresEnv(getenv func(string) string) error {
	return databasetest.CheckPostgresEnv(getenv)
}
