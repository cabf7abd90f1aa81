package boardtest

import (
	"context"
	"testing"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database/databasetest"
)

// Backend is a kind of database the store tests run on: its Migrated
// names a new, migrated, empty board of the kind ([SQLite], [Postgres]).
type Backend = databasetest.Backend

// Backends lists SQLite always and PostgreSQL when [PostgresEnv] is set and
// the tests do not run with -short ([databasetest.Templates.Backends]).
func Backends(tb testing.TB) []Backend { return templates.Backends(tb) }

// EachStore runs fn once per backend of [Backends], as a subtest named
// after it; open opens a new, empty board of that kind. The subtests run
// in parallel with each other (each has a database of its own): SQLite's
// work is this process's CPU while PostgreSQL's is the server's, so the
// two overlap. They start when the calling test's function returns, so a
// test checks its results inside fn.
func EachStore(t *testing.T, fn func(t *testing.T, open func(opt board.Options) *board.Store)) {
	t.Helper()
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, func(opt board.Options) *board.Store { return Open(t, b.Migrated(t), opt) })
		})
	}
}

// Open opens the board at dsn with opt, failing tb if it cannot, and
// closes it when tb's test ends.
func Open(tb testing.TB, dsn string, opt board.Options) *board.Store {
	tb.Helper()
	s, err := board.Open(context.Background(), dsn, opt)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}
