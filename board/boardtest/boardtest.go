package boardtest

import (
	"context"
	"testing"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database/databasetest"
)

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
	return templates.SQLite(tb)
}

// templates are the template boards: one SQLite file, and one
// PostgreSQL database per server.
var templates = databasetest.Templates{Caller: "boardtest", Migrate: migrate, File: "board.db"}

// Run checks the test environment ([CheckPostgresEnv]; a malformed value
// is a message and exit code 2, before any test), runs the tests of m,
// then drops the PostgreSQL template databases that [Postgres] made, and
// returns the tests' exit code ([databasetest.Templates.Run]). A package
// whose tests call Postgres runs them through it:
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
// [PostgresForm] when [PostgresEnv] is set to anything but such a URL, or
// when [databasetest.PrefixEnv] is not a prefix of database names.
func CheckPostgresEnv(getenv func(string) string) error {
	return databasetest.CheckPostgresEnv(getenv)
}
