package database_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/internal/database/databasetest"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// errNotFound is a caller's sentinel, as a store's "not found" is.
var errNotFound = errors.New("store: not found")

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", fmt.Errorf("query: %w", refused), true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"a bare EOF says nothing of the database", io.ErrUnexpectedEOF, false},
		{"a bare EOF, wrapped", fmt.Errorf("body: %w", io.EOF), false},
		{"pool closed", sql.ErrConnDone, true},
		{"store closed", errors.New("sql: database is closed"), true},
		{"sqlite busy, mattn's words", errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{"sqlite I/O error, mattn's words", errors.New("disk I/O error (10) (SQLITE_IOERR)"), true},
		{"not found", fmt.Errorf("%w: no prediction", errNotFound), false},
		{"context cancelled", fmt.Errorf("board: feed: %w", context.Canceled), false},
		{"anything else", errors.New("board: generating an id: out of entropy"), false},
	} {
		got := database.Classify(tc.err)
		if errors.Is(got, database.ErrUnavailable) != tc.want {
			t.Errorf("%s: Classify(%v) = %v: ErrUnavailable %v, want %v", tc.name, tc.err, got, !tc.want, tc.want)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("Classify(%v) = %v, which no longer wraps the error", tc.err, got)
		}
	}
	if database.Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
	once := database.Classify(sql.ErrConnDone)
	if twice := database.Classify(once); twice != once {
		t.Errorf("Classify wrapped twice: %v", twice)
	}
}

// driverError is an error a driver gave, provoked as an outage or a
// mistake would provoke it, and whether it is an outage.
type driverError struct {
	name   string
	code   string // the SQLSTATE or SQLite result code it must carry
	err    error
	outage bool
}

// TestClassifyDrivers: Classify on the errors the drivers really give,
// provoked: modernc.org/sqlite's on a locked, read-only, missing and full
// file, and pgdriver's (with PREDICTIONS_TEST_POSTGRES) on a missing
// database, one that refuses connections, a terminated connection, a lock
// or statement timeout, a read-only transaction and a closed port. The
// caller's own mistakes (a unique or syntax error) are not outages.
func TestClassifyDrivers(t *testing.T) {
	cases := sqliteErrors(t)
	if os.Getenv(databasetest.PostgresEnv) != "" {
		cases = append(cases, pgErrors(t)...)
	} else {
		t.Logf("%s is not set: PostgreSQL's errors are not provoked", databasetest.PostgresEnv)
	}
	for _, tc := range cases {
		if tc.err == nil {
			t.Errorf("%s: no error provoked", tc.name)
			continue
		}
		var code string
		var pg interface{ Field(byte) string }
		var lite interface{ Code() int }
		switch {
		case errors.As(tc.err, &pg):
			code = pg.Field('C')
		case errors.As(tc.err, &lite):
			code = fmt.Sprint(lite.Code() & 0xff)
		}
		if tc.code != "" && code != tc.code {
			t.Errorf("%s: the driver gave %q (code %q), want code %s", tc.name, tc.err, code, tc.code)
		}
		if got := errors.Is(database.Classify(tc.err), database.ErrUnavailable); got != tc.outage {
			t.Errorf("%s: Classify(%v): ErrUnavailable %v, want %v", tc.name, tc.err, got, tc.outage)
		}
	}
}

func sqliteErrors(t *testing.T) []driverError {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(dsn string) *sql.DB {
		db, err := sql.Open(sqliteshim.ShimName, dsn)
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	path := filepath.Join(dir, "x.db")
	db := open(path + "?_pragma=busy_timeout(50)&_pragma=journal_mode(WAL)")
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO t (k) VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	var out []driverError
	add := func(name, code string, outage bool, err error) {
		out = append(out, driverError{name, code, err, outage})
	}

	holder := open(path)
	conn, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO t (k) VALUES ('b')`)
	add("SQLITE_BUSY: another connection holds the write lock", "5", true, err)
	_, _ = conn.ExecContext(ctx, "ROLLBACK")
	conn.Close()

	_, err = open("file:"+path+"?mode=ro").ExecContext(ctx, `INSERT INTO t (k) VALUES ('c')`)
	add("SQLITE_READONLY: a file opened read-only", "8", true, err)

	err = open(filepath.Join(dir, "no", "such", "dir.db")).PingContext(ctx)
	add("SQLITE_CANTOPEN: a file in a missing directory", "14", true, err)

	full := open(filepath.Join(dir, "full.db"))
	if _, err := full.ExecContext(ctx, `CREATE TABLE t (v BLOB)`); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := full.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := full.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	_, err = full.ExecContext(ctx, `INSERT INTO t (v) VALUES (zeroblob(100000))`)
	add("SQLITE_FULL: the file may not grow (max_page_count)", "13", true, err)

	_, err = db.ExecContext(ctx, `INSERT INTO t (k) VALUES ('a')`)
	add("SQLITE_CONSTRAINT: a unique key taken", "19", false, err)
	_, err = db.ExecContext(ctx, `INSERT INTO nowhere VALUES (1)`)
	add("SQLITE_ERROR: no such table", "1", false, err)
	return out
}

func pgErrors(t *testing.T) []driverError {
	ctx := context.Background()
	admin := databasetest.Admin(t)
	dsn := databasetest.NewPostgres(t, os.Getenv(databasetest.PostgresEnv))
	name := databasetest.Name(t, dsn)
	open := func(dsn string) *sql.DB {
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open(dsn)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO t VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	var out []driverError
	add := func(name, code string, outage bool, err error) {
		out = append(out, driverError{name, code, err, outage})
	}

	holder := open(dsn)
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT k FROM t WHERE k = 'a' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	other := open(dsn)
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `SET lock_timeout = '50ms'`); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, `UPDATE t SET k = 'b' WHERE k = 'a'`)
	add("55P03: lock_timeout while another transaction holds the row", "55P03", true, err)
	_ = tx.Rollback()
	if _, err := conn.ExecContext(ctx, `SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO t VALUES ('c')`)
	add("25006: a read-only transaction", "25006", true, err)
	if _, err := conn.ExecContext(ctx, `SET statement_timeout = '50ms'`); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, `SELECT pg_sleep(1)`) // pgdriver then closes the connection
	add("57014: statement_timeout", "57014", true, err)
	conn.Close()

	_, err = db.ExecContext(ctx, `INSERT INTO t VALUES ('a')`)
	add("23505: a unique key taken", "23505", false, err)
	_, err = db.ExecContext(ctx, `INSERT INTO nowhere VALUES (1)`)
	add("42P01: no such table", "42P01", false, err)
	_, err = db.ExecContext(ctx, `SELECT 'x'::int`)
	add("22P02: a bad value", "22P02", false, err)

	databasetest.Terminate(t, admin, name)
	_, err = db.ExecContext(ctx, `SELECT 1`)
	add("57P01: the connection was terminated (pg_terminate_backend)", "57P01", true, err)

	databasetest.Exec(t, admin, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS false")
	_, err = db.ExecContext(ctx, `SELECT 1`)
	add("55000: the database does not allow connections", "55000", true, err)
	databasetest.Exec(t, admin, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true")

	u, _ := url.Parse(dsn)
	u.Path = "/" + name + "_missing"
	err = open(u.String()).PingContext(ctx)
	add("3D000: no such database", "3D000", true, err)

	err = open("postgres://postgres@127.0.0.1:1/none?sslmode=disable").PingContext(ctx)
	add("a closed port: connection refused", "", true, err)
	return out
}

// TestDriverPredicates: SQLiteBusy and UniqueViolation on the drivers'
// shapes and words, and on nil.
func TestDriverPredicates(t *testing.T) {
	for _, tc := range []struct {
		err          error
		busy, unique bool
	}{
		{nil, false, false},
		{liteErr(5), true, false},
		{liteErr(517), true, false}, // SQLITE_BUSY_SNAPSHOT is a SQLITE_BUSY
		{errors.New("database is locked (5) (SQLITE_BUSY)"), true, false},
		{fmt.Errorf("insert: %w", pgErr("23505")), false, true},
		{pgErr("23503"), false, false},
		{errors.New("constraint failed: UNIQUE constraint failed: t.k (2067)"), false, true},
		{errNotFound, false, false},
	} {
		if got := database.SQLiteBusy(tc.err); got != tc.busy {
			t.Errorf("SQLiteBusy(%v) = %v, want %v", tc.err, got, tc.busy)
		}
		if got := database.UniqueViolation(tc.err); got != tc.unique {
			t.Errorf("UniqueViolation(%v) = %v, want %v", tc.err, got, tc.unique)
		}
	}
}
