// Package databasetest makes PostgreSQL databases for tests: a new empty
// database per test on the server that [PostgresEnv] names, dropped when
// the test ends, or a copy of a migrated template ([Templates]), and the
// administrator's handles that provoke outages (terminating connections,
// refusing them).
//
// # The environment
//
// Two variables configure the tests of every package: [PostgresEnv], the
// server's URL (unset, the PostgreSQL tests skip), and [PrefixEnv], the
// prefix of the names of the databases tests create on it, templates
// included (default [DefaultPrefix]). [CheckPostgresEnv] checks both
// before any test runs, so that a mistyped value is one message giving
// the form it takes, never a panic inside the driver; every test binary
// that reads them calls it from its TestMain, directly or through [Run]
// or [Templates.Run] (boardtest.Run).
//
//	func TestMain(m *testing.M) { os.Exit(databasetest.Run(m)) }
//
//	admin := os.Getenv(databasetest.PostgresEnv)
//	if admin == "" {
//		t.Skip(databasetest.PostgresEnv + " is not set")
//	}
//	dsn := databasetest.NewPostgres(t, admin)
//
// See [NewPostgres], [Templates], [CheckPostgresEnv], [NewName], [Admin],
// [Name], [Exec] and [Terminate].
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

// PrefixEnv names the environment variable holding the prefix of the
// databases that tests create on the server of [PostgresEnv], so that
// several checkouts or CI jobs sharing one server can tell theirs apart;
// unset, it is [DefaultPrefix].
const PrefixEnv = "PREDICTIONS_TEST_DB_PREFIX"

// DefaultPrefix is the prefix of test databases when [PrefixEnv] is unset.
const DefaultPrefix = "predictions_"

// maxPrefix keeps the longest name, the prefix, "template_" and 12 hex
// digits, within PostgreSQL's 63 bytes of an identifier (NAMEDATALEN-1).
const maxPrefix = 63 - len("template_") - 12

// Prefix returns the prefix of test databases: [PrefixEnv]'s value, or
// [DefaultPrefix] when it is unset or empty.
func Prefix() string {
	if p := os.Getenv(PrefixEnv); p != "" {
		return p
	}
	return DefaultPrefix
}

// NewName returns a new database name: [Prefix], kind ("test",
// "template"), an underscore and 12 random hex digits.
func NewName(kind string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return Prefix() + kind + "_" + hex.EncodeToString(b[:])
}

// CheckPostgresEnv returns an error naming [PostgresForm] when
// [PostgresEnv] is set to anything but such a URL (a bare host:port, a
// URL of another scheme or without a host), or an error saying what
// [PrefixEnv] may hold when it is set to anything but a lowercase
// PostgreSQL identifier short enough to take a suffix ([a-z_][a-z0-9_]*,
// at most 42 characters); nil when both are unset or well formed. A
// TestMain calls it before the tests ([Run] and [Templates.Run] do), so
// that a mistyped value is one clear message rather than a panic inside
// the driver.
func CheckPostgresEnv(getenv func(string) string) error {
	if err := checkPrefix(getenv(PrefixEnv)); err != nil {
		return err
	}
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

// checkPrefix accepts "" (the default) and names the database may take
// unquoted: PostgreSQL folds unquoted identifiers to lower case, so an
// upper-case prefix would create a database its own name does not find.
func checkPrefix(p string) error {
	ok := len(p) <= maxPrefix
	for i, r := range p {
		switch {
		case r == '_', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("%s=%q is not a prefix of database names; give lowercase letters, digits and underscores, starting with a letter or underscore, at most %d characters (the default is %s)", PrefixEnv, p, maxPrefix, DefaultPrefix)
	}
	return nil
}

// Run checks the environment ([CheckPostgresEnv]) and runs the tests of
// m, returning their exit code, or 2 after printing the error when the
// environment is malformed. A package whose tests read [PostgresEnv]
// but make no [Templates] runs them through it:
//
//	func TestMain(m *testing.M) { os.Exit(databasetest.Run(m)) }
func Run(m *testing.M) int {
	if err := CheckPostgresEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return m.Run()
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

// Backends lists SQLite always and PostgreSQL when [PostgresEnv] is set,
// but not with -short (saying once in tb's log when PostgreSQL is
// skipped). The quick pass checks each behaviour once, on SQLite: on
// PostgreSQL a new database, copied from the template and dropped after,
// costs the server about half a second, most of the quick pass's time;
// the full run checks both. Tests that are about PostgreSQL itself ask
// for it by [Templates.New] and still run.
func (ts *Templates) Backends(tb testing.TB) []Backend {
	bs := []Backend{{"sqlite", ts.SQLite}}
	switch admin := os.Getenv(PostgresEnv); {
	case admin == "":
		ts.skipOnce.Do(func() { tb.Logf("%s is not set: PostgreSQL tests are skipped", PostgresEnv) })
	case testing.Short():
		ts.skipOnce.Do(func() {
			tb.Logf("-short: the tests that run on each database run on SQLite only; without -short, on PostgreSQL too")
		})
	default:
		bs = append(bs, Backend{"postgres", func(tb testing.TB) string { return ts.New(tb, admin) }})
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

// Run checks the environment and runs the tests of m as the package's
// [Run] does (a malformed value is a message and exit code 2, before any
// test), then drops the templates ([Templates.Drop]), and returns the
// tests' exit code:
//
//	func TestMain(m *testing.M) { os.Exit(templates.Run(m)) }
func (ts *Templates) Run(m *testing.M) int {
	ts.running.Store(true)
	defer ts.running.Store(false)
	code := Run(m)
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
	name := NewName("template")
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
	name := NewName("test")
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
