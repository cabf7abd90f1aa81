// Package databasetest makes PostgreSQL databases for tests: a new empty
// database per test on the server that [PostgresEnv] names, dropped when
// the test ends, and the administrator's handles that provoke outages
// (terminating connections, refusing them).
//
//	admin := os.Getenv(databasetest.PostgresEnv)
//	if admin == "" {
//		t.Skip(databasetest.PostgresEnv + " is not set")
//	}
//	dsn := databasetest.NewPostgres(t, admin)
//
// See [NewPostgres], [Admin], [Name], [Exec] and [Terminate].
package databasetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
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
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "predictions_test_" + hex.EncodeToString(b[:])
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
