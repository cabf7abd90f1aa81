// Package databasetest makes PostgreSQL databases for tests: a new empty
// database per test on the server that [PostgresEnv] names, dropped when
// the test ends, and the administrator's handles that provoke outages
// (terminating connections, refusing them).
//
// # The environment
//
// Two variables configure the tests of every package: [PostgresEnv], the
// server's URL (unset, the PostgreSQL tests skip), and [PrefixEnv], the
// prefix of the names of the databases tests create on it (default
// [DefaultPrefix]). [CheckPostgresEnv] checks both before any test runs,
// so that a mistyped value is one message giving the form it takes,
// never a panic inside the driver; every test binary that reads them
// calls it from its TestMain, directly or through [Run] (or
// boardtest.Run).
//
//	func TestMain(m *testing.M) { os.Exit(databasetest.Run(m)) }
//
//	admin := os.Getenv(databasetest.PostgresEnv)
//	if admin == "" {
//		t.Skip(databasetest.PostgresEnv + " is not set")
//	}
//	dsn := databasetest.NewPostgres(t, admin)
//
// See [NewPostgres], [NewName], [Admin], [Name], [Exec] and [Terminate].
package databasetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

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
	name := NewName("test")
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		tb.Fatalf("creating test database on %s: %v", PostgresEnv, err)
	}
	// Registered before the store's Close, so it runs after it.
	tb.Cleanup(func() {
		defer db.Close()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatalf("%s: %v", PostgresEnv, err)
	}
	u.Path = "/" + name
	return u.String()
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
// TestMain calls it before the tests ([Run] does), so that a mistyped
// value is one clear message rather than a panic inside the driver.
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
// without boardtest runs them through it:
//
//	func TestMain(m *testing.M) { os.Exit(databasetest.Run(m)) }
func Run(m *testing.M) int {
	if err := CheckPostgresEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return m.Run()
}
