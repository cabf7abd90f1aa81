package database_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/internal/database/databasetest"
	"github.com/uptrace/bun"
)

// pgErr and liteErr have the shapes of the drivers' errors.
type pgErr string

func (e pgErr) Error() string       { return "ERROR #" + string(e) }
func (e pgErr) Field(k byte) string { return map[byte]string{'C': string(e)}[k] }

type liteErr int

func (e liteErr) Error() string { return fmt.Sprintf("sqlite error %d", int(e)) }
func (e liteErr) Code() int     { return int(e) }

// TestRetryable: deadlocks and serialization failures are retried; other
// errors (a constraint, a database that is down, a busy timeout that
// already waited) are not.
func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{pgErr("40P01"), true},
		{fmt.Errorf("board: resolve: %w", pgErr("40001")), true},
		{pgErr("23505"), false},
		{pgErr("57P01"), false},
		{liteErr(517), true},
		{liteErr(5), false},
		{liteErr(19), false},
		{errors.New("deadlock detected"), false},
	} {
		if got := database.Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// each runs fn once per database, as a subtest: SQLite always, PostgreSQL
// when databasetest.PostgresEnv is set. write is the pool that writes.
func each(t *testing.T, fn func(t *testing.T, write *bun.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		write, read, err := database.OpenSQLite(filepath.Join(t.TempDir(), "x.db"), database.SQLiteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { read.Close(); write.Close() })
		fn(t, write)
	})
	t.Run("postgres", func(t *testing.T) {
		admin := os.Getenv(databasetest.PostgresEnv)
		if admin == "" {
			t.Skipf("%s is not set", databasetest.PostgresEnv)
		}
		db, err := database.OpenPostgres(databasetest.NewPostgres(t, admin), 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, db)
	})
}

// TestRunInTx: a transaction that fails once with an error the database
// gives for a deadlock or a serialization failure runs again from the
// start and commits once; one that fails with any other error runs once
// and is rolled back; an outage comes back wrapping ErrUnavailable.
func TestRunInTx(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, db *bun.DB) {
		if _, err := db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name     string
			fail     error // what the first run returns after its insert
			wantRuns int
			wantRows int
			wantErr  error // nil: commits
		}{
			{"no failure", nil, 1, 1, nil},
			{"PostgreSQL deadlock", pgErr("40P01"), 2, 1, nil},
			{"PostgreSQL serialization failure", fmt.Errorf("store: write: %w", pgErr("40001")), 2, 1, nil},
			{"SQLite stale snapshot", liteErr(517), 2, 1, nil},
			{"unique violation", pgErr("23505"), 1, 0, pgErr("23505")},
			{"SQLite constraint", liteErr(19), 1, 0, liteErr(19)},
			{"caller's error", errNotFound, 1, 0, errNotFound},
			{"outage", sql.ErrConnDone, 1, 0, database.ErrUnavailable},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := db.ExecContext(ctx, `DELETE FROM t`); err != nil {
					t.Fatal(err)
				}
				runs := 0
				err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
					runs++
					if _, err := tx.ExecContext(ctx, `INSERT INTO t (k) VALUES ('a')`); err != nil {
						return err
					}
					if runs == 1 {
						return tc.fail
					}
					return nil
				})
				if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("RunInTx = %v, want %v", err, tc.wantErr)
				}
				if runs != tc.wantRuns {
					t.Errorf("fn ran %d times, want %d", runs, tc.wantRuns)
				}
				var n int
				if err := db.NewRaw(`SELECT COUNT(*) FROM t`).Scan(ctx, &n); err != nil {
					t.Fatal(err)
				}
				if n != tc.wantRows {
					t.Errorf("%d rows committed, want %d", n, tc.wantRows)
				}
			})
		}
	})
}

// TestRetryGivesUp: a write the database aborts every time runs
// MaxAttempts times and returns the last error; one whose context ends
// while it waits to run again returns at once.
func TestRetryGivesUp(t *testing.T) {
	runs := 0
	err := database.Retry(context.Background(), func() error { runs++; return pgErr("40P01") })
	if !errors.Is(err, pgErr("40P01")) || runs != database.MaxAttempts {
		t.Errorf("Retry of a write always deadlocked = %v after %d runs, want the deadlock after %d", err, runs, database.MaxAttempts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runs = 0
	err = database.Retry(ctx, func() error { runs++; return liteErr(517) })
	if !errors.Is(err, liteErr(517)) || runs != 1 {
		t.Errorf("Retry with its context ended = %v after %d runs, want the error after 1", err, runs)
	}
}

// TestHasColumn reads the columns of a table on both databases, in a
// transaction and on the pool.
func TestHasColumn(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, db *bun.DB) {
		if _, err := db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT)`); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			table, column string
			want          bool
		}{
			{"t", "k", true},
			{"t", "n", true},
			{"t", "missing", false},
			{"t", "K ", false},
			{"nowhere", "k", false},
		} {
			got, err := database.HasColumn(ctx, db, tc.table, tc.column)
			if err != nil || got != tc.want {
				t.Errorf("HasColumn(%s, %s) = %v, %v; want %v", tc.table, tc.column, got, err, tc.want)
			}
			err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				got, err = database.HasColumn(ctx, tx, tc.table, tc.column)
				return err
			})
			if err != nil || got != tc.want {
				t.Errorf("in a transaction, HasColumn(%s, %s) = %v, %v; want %v", tc.table, tc.column, got, err, tc.want)
			}
		}
		if _, err := db.ExecContext(ctx, `ALTER TABLE t ADD COLUMN added TEXT`); err != nil {
			t.Fatal(err)
		}
		if got, err := database.HasColumn(ctx, db, "t", "added"); err != nil || !got {
			t.Errorf("HasColumn after ADD COLUMN = %v, %v; want true", got, err)
		}
	})
}

// TestInsertRows: rows beyond one statement's RowsPerInsert go in the
// next statements, each row with its values, the tail on every statement.
func TestInsertRows(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, `CREATE TABLE t (n BIGINT PRIMARY KEY, s TEXT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		const n = 2*database.RowsPerInsert + 1
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{i, "a"}
		}
		if err := database.InsertRows(ctx, db, `INSERT INTO t (n, s) VALUES `, rows, ""); err != nil {
			t.Fatal(err)
		}
		rows[n-1][1] = "b"
		if err := database.InsertRows(ctx, db, `INSERT INTO t (n, s) VALUES `, rows, ` ON CONFLICT (n) DO UPDATE SET s = excluded.s`); err != nil {
			t.Fatal(err)
		}
		var count, last int
		if err := db.NewRaw(`SELECT COUNT(*), SUM(CASE WHEN s = 'b' THEN n ELSE 0 END) FROM t`).Scan(ctx, &count, &last); err != nil {
			t.Fatal(err)
		}
		if count != n || last != n-1 {
			t.Errorf("%d rows, the updated one %d; want %d, %d", count, last, n, n-1)
		}
	})
}

// TestAppendInOrder: on PostgreSQL the rows go under the advisory lock
// and the notification, typed; on SQLite as a plain INSERT; every value
// is an argument, in order.
func TestAppendInOrder(t *testing.T) {
	head, cols, types := `INSERT INTO log (kind, at) `, []string{"kind", "at"}, []string{"text", "timestamptz"}
	rows := [][]any{{"a", 1}, {"b", 2}}
	for _, tc := range []struct {
		pg   bool
		want string
		args []any
	}{
		{false, `INSERT INTO log (kind, at) VALUES (?, ?), (?, ?)`, []any{"a", 1, "b", 2}},
		{true, `INSERT INTO log (kind, at) SELECT v.* FROM (SELECT pg_advisory_xact_lock(?), pg_notify(?, '')) AS l, ` +
			`(VALUES (?::text, ?::timestamptz), (?::text, ?::timestamptz)) AS v (kind, at)`, []any{int64(7), "log", "a", 1, "b", 2}},
	} {
		st := database.AppendInOrder(tc.pg, head, cols, types, 7, "log", rows)
		if st.Query != tc.want || fmt.Sprint(st.Args) != fmt.Sprint(tc.args) {
			t.Errorf("AppendInOrder(pg %v) = %q %v, want %q %v", tc.pg, st.Query, st.Args, tc.want, tc.args)
		}
	}
}
