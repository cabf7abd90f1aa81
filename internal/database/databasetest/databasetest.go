// Package databasetest makes PostgreSQL databases for tests: a new empty
// database per test on the server that [PostgresEnv] names, dropped when
// the test ends, or a copy of a migrated template ([Templates]), and the
// administrator's handles that provoke outages (terminating connections,
// refusing them).
//
//	admin := os.Getenv(databasetest.PostgresEnv)
//	if admin == "" {
//		t.Skip(databasetest.PostgresEnv + " is not set")
//	}
//	dsn := databasetest.NewPostgres(t, admin)
//
// See [NewPostgres], [Templates], [CheckPostgresEnv], [Admin], [Name],
// [Exec] and [Terminate].
package databasetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// PostgresEnv names the environment variable holding the URL of a
// PostgreSQL server whose role may create databases; unset, the tests
// of PostgreSQL are skipped.
const PostgresEnv = "PREDICTIONS_TEST_POSTGRES"

// NewPostgres creates an empty database on the server at admin and
// returns its URL; the database is dropped (WITH FORCE) when tb ends,
// after the cleanups registered later (a store's Close).
func NewPostgres(tb testing.TB, admin string) string {
	tb.Helper()
	return create(tb, admin, "")
}

// Admin connects to the server named by [PostgresEnv] (its own
// database, not a test's), closed when tb ends.
func Admin(tb testing.TB) *sql.DB {
	tb.Helper()
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(os.Getenv(PostgresEnv))))
	tb.Cleanup(func() { db.Close() })
	return db
}

// Name returns the name of the database of the URL dsn.
func Name(tb testing.TB, dsn string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// Exec runs q on db, failing tb on an error.
func Exec(tb testing.TB, db *sql.DB, q string) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
}

// Terminate ends every connection to the database name and waits until
// they are gone, as an administrator's pg_terminate_backend, a failover
// or an idle timeout would.
func Terminate(tb testing.TB, admin *sql.DB, name string) {
	tb.Helper()
	Exec(tb, admin, "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '"+name+"' AND pid <> pg_backend_pid()")
}

// PostgresForm is the form [PostgresEnv] takes: a URL of the server whose
// user may create databases (pgdriver's DSN).
const PostgresForm = "postgres://USER[:PASSWORD]@HOST:PORT/DATABASE?sslmode=disable, such as postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// CheckPostgresEnv returns an error naming [PostgresForm] when
// [PostgresEnv] is set to anything but such a URL (a bare host:port, a
// URL of another scheme or without a host), and nil when it is unset or
// well formed. A TestMain calls it before the tests, so that a mistyped
// value is one clear message rather than a panic inside the driver.
func CheckPostgresEnv(getenv func(string) string) error {
	v := getenv(PostgresEnv)
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return fmt.Errorf("%s=%q is not a URL (%v); give %s", PostgresEnv, v, err, PostgresForm)
	case u.Scheme != "postgres" && u.Scheme != "postgresql":
		return fmt.Errorf("%s=%q is not a postgres:// URL; give %s", PostgresEnv, v, PostgresForm)
	case u.Host == "":
		return fmt.Errorf("%s=%q names no host; give %s", PostgresEnv, v, PostgresForm)
	}
	return nil
}

// Templates gives tests new databases already migrated, without paying
// for the migrations each time: Migrate prepares one template database
// per PostgreSQL server, and each database a test asks for
// ([Templates.New]) is a copy of it (CREATE DATABASE ... TEMPLATE); the
// same for SQLite files ([Templates.SQLite]). The tests of a binary that
// uses it run through [Templates.Run], which drops the templates after
// them; without it each run would leave a template on the server.
type Templates struct {
	// Caller is the package that offers the templates to tests, named in
	// the messages that tell how to use it ("boardtest").
	Caller string
	// Migrate prepares the template at dsn, a new empty database.
	Migrate func(dsn string) error
	// File names the SQLite files of [Templates.SQLite] ("board.db").
	File string

	running atomic.Bool // set by Run: only then are the templates dropped
	mu      sync.Mutex
	made    map[string]*template // by server URL

	sqliteOnce sync.Once
	sqliteFile []byte // the migrated SQLite file
	sqliteErr  error

	skipOnce sync.Once // Backends says once that PostgreSQL is skipped
}

// Backend is a kind of database tests run on.
type Backend struct {
	// Name is sqlite or postgres.
	Name string
	// Migrated names a new, migrated, empty database of this kind
	// ([Templates.SQLite], [Templates.New]).
	Migrated func(tb testing.TB) string
}

// Backends lists SQLite always and PostgreSQL when [PostgresEnv] is set
// (saying once in tb's log that PostgreSQL is skipped when not).
func (ts *Templates) Backends(tb testing.TB) []Backend {
	bs := []Backend{{"sqlite", ts.SQLite}}
	if admin := os.Getenv(PostgresEnv); admin != "" {
		bs = append(bs, Backend{"postgres", func(tb testing.TB) string { return ts.New(tb, admin) }})
	} else {
		ts.skipOnce.Do(func() { tb.Logf("%s is not set: PostgreSQL tests are skipped", PostgresEnv) })
	}
	return bs
}

// SQLite returns the path of a new SQLite database in tb's temporary
// directory, a copy of the file that Migrate prepared once per test
// binary (kept in memory).
func (ts *Templates) SQLite(tb testing.TB) string {
	tb.Helper()
	ts.sqliteOnce.Do(func() { ts.sqliteFile, ts.sqliteErr = ts.makeSQLite() })
	if ts.sqliteErr != nil {
		tb.Fatalf("%s: making the SQLite template: %v", ts.Caller, ts.sqliteErr)
	}
	path := filepath.Join(tb.TempDir(), ts.File)
	if err := os.WriteFile(path, ts.sqliteFile, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// makeSQLite migrates a new SQLite file and returns its bytes. Migrate
// must close what it opened: the last connection checkpoints the WAL
// into the file, which alone is then the database.
func (ts *Templates) makeSQLite() ([]byte, error) {
	dir, err := os.MkdirTemp("", "databasetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, ts.File)
	if err := ts.Migrate(path); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("%s-wal holds %d bytes after the migration: the file alone is not the database", path, st.Size())
	}
	return os.ReadFile(path)
}

type template struct {
	once sync.Once
	name string
	err  error
}

// Run runs the tests of m, then drops the templates ([Templates.Drop]),
// and returns the tests' exit code:
//
//	func TestMain(m *testing.M) { os.Exit(templates.Run(m)) }
func (ts *Templates) Run(m *testing.M) int {
	ts.running.Store(true)
	defer ts.running.Store(false)
	code := m.Run()
	if err := ts.Drop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// New returns the URL of a new database on the PostgreSQL server named by
// admin (a URL whose user may create databases), a copy of the template;
// it is dropped when tb's test ends. The tests must run through
// [Templates.Run]: New fails the test if they do not, before it makes a
// template that nothing would drop.
func (ts *Templates) New(tb testing.TB, admin string) string {
	tb.Helper()
	if !ts.running.Load() {
		tb.Fatalf("%[1]s.Postgres needs the tests run through %[1]s.Run, which drops the template database afterwards: "+
			"add func TestMain(m *testing.M) { os.Exit(%[1]s.Run(m)) } to the package's tests", ts.Caller)
	}
	ts.mu.Lock()
	t := ts.made[admin]
	if t == nil {
		if ts.made == nil {
			ts.made = map[string]*template{}
		}
		t = &template{}
		ts.made[admin] = t
	}
	ts.mu.Unlock()
	t.once.Do(func() { t.name, t.err = ts.make(admin) })
	if t.err != nil {
		tb.Fatalf("%s: making the PostgreSQL template: %v", ts.Caller, t.err)
	}
	return create(tb, admin, t.name)
}

// make creates and migrates a template database on admin.
func (ts *Templates) make(admin string) (string, error) {
	name := newName("predictions_template_")
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	if err := ts.Migrate(withDatabase(admin, name)); err != nil {
		_, _ = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return "", err
	}
	return name, nil
}

// Drop drops the template databases made so far.
func (ts *Templates) Drop() error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var errs []error
	for admin, t := range ts.made {
		if t.name == "" {
			continue
		}
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
		if _, err := db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+t.name+" WITH (FORCE)"); err != nil {
			errs = append(errs, fmt.Errorf("%s: dropping the template database %s: %w", ts.Caller, t.name, err))
		}
		db.Close()
	}
	ts.made = nil
	return errors.Join(errs...)
}

// create creates a new test database on admin, a copy of template ("" for
// an empty one), dropped (WITH FORCE) when tb ends, after the cleanups
// registered later (a store's Close), and returns its URL. PostgreSQL
// refuses to copy a template while a session is still connected to it;
// a store's sessions end just after it closes, so it tries again a while.
func create(tb testing.TB, admin, template string) string {
	tb.Helper()
	name := newName("predictions_test_")
	q := "CREATE DATABASE " + name
	if template != "" {
		q += " TEMPLATE " + template
	}
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	ctx := context.Background()
	var err error
	for range 50 {
		if _, err = db.ExecContext(ctx, q); err == nil || !strings.Contains(err.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		db.Close()
		tb.Fatalf("creating a test database on %s: %v", PostgresEnv, err)
	}
	tb.Cleanup(func() {
		defer db.Close()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("dropping %s: %v", name, err)
		}
	})
	return withDatabase(admin, name)
}

// withDatabase is the URL admin with the database name.
func withDatabase(admin, name string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + name
	return u.String()
}

// newName is prefix and 12 random hex digits.
func newName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
