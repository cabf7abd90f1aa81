package bunmigrate_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
	"github.com/uptrace/bun/migrate"
)

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

// testSet is a set of two migrations: a table, then a row in it. Applied
// more than once, the second would add a second row.
func testSet() bunmigrate.Set {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{Name: "20260101000001", Comment: "table",
		Up: func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
			_, err := m.DB().ExecContext(ctx, `CREATE TABLE IF NOT EXISTS applied (n BIGINT NOT NULL)`)
			return err
		},
		Down: func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil }})
	ms.Add(migrate.Migration{Name: "20260101000002", Comment: "row",
		Up: func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
			time.Sleep(20 * time.Millisecond) // long enough for the others to wait for the lock
			_, err := m.DB().ExecContext(ctx, `INSERT INTO applied (n) VALUES (1)`)
			return err
		},
		Down: func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil }})
	return bunmigrate.Set{Name: "test", Table: "test_migrations", LocksTable: "test_migration_locks",
		LockKey: 0x74657374, Migrations: ms}
}

func rows(t *testing.T, db *bun.DB) int {
	t.Helper()
	var n int
	if err := db.NewRaw(`SELECT COUNT(*) FROM applied`).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestApplySQLite: the set is applied once, and applying it again does
// nothing.
func TestApplySQLite(t *testing.T) {
	sqldb, err := sql.Open(sqliteshim.ShimName, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	for range 2 {
		if err := bunmigrate.Apply(context.Background(), db, testSet()); err != nil {
			t.Fatal(err)
		}
	}
	if n := rows(t, db); n != 1 {
		t.Errorf("%d rows after applying twice, want 1", n)
	}
}

// TestApplyReplicas: on PostgreSQL, four processes' pools applying the set
// at once apply each migration once (the advisory lock); one that cannot
// have the lock before its context ends says so, naming its set.
func TestApplyReplicas(t *testing.T) {
	admin := os.Getenv(boardtest.PostgresEnv)
	if admin == "" {
		t.Skipf("%s is not set", boardtest.PostgresEnv)
	}
	url := boardtest.Postgres(t, admin)
	open := func() *bun.DB {
		db := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(url))), pgdialect.New())
		t.Cleanup(func() { db.Close() })
		return db
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		db := open()
		wg.Go(func() { errs <- bunmigrate.Apply(context.Background(), db, testSet()) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	db := open()
	if n := rows(t, db); n != 1 {
		t.Errorf("%d rows after four replicas applied the set at once, want 1", n)
	}

	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", testSet().LockKey); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	err = bunmigrate.Apply(short, open(), testSet())
	if err == nil || !strings.Contains(err.Error(), "test: migrate: waiting for another replica's migration") {
		t.Errorf("Apply while another holds the lock = %v; want the wait named", err)
	}
}

// TestAddSchema: the columns are added once (the second call finds them
// and reports none added), the statements run each time, and DropSchema
// removes both.
func TestAddSchema(t *testing.T) {
	ctx := context.Background()
	sqldb, err := sql.Open(sqliteshim.ShimName, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	if err := bunmigrate.Exec(ctx, db, `CREATE TABLE t (id TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	cols := []bunmigrate.Columns{{Table: "t", Defs: []string{"n BIGINT NOT NULL DEFAULT 0", "at TIMESTAMP"}}}
	stmts := []string{`CREATE INDEX IF NOT EXISTS t_n ON t (n)`}
	for i, want := range []map[string]bool{{"t.n": true, "t.at": true}, {}} {
		added, err := bunmigrate.AddSchema(ctx, db, cols, stmts)
		if err != nil {
			t.Fatal(err)
		}
		if len(added) != len(want) || added["t.n"] != want["t.n"] || added["t.at"] != want["t.at"] {
			t.Errorf("AddSchema, call %d, added %v; want %v", i+1, added, want)
		}
	}
	if err := bunmigrate.DropSchema(ctx, db, []string{`DROP INDEX t_n`}, cols); err != nil {
		t.Fatal(err)
	}
	added, err := bunmigrate.AddColumns(ctx, db, cols...)
	if err != nil || len(added) != 2 {
		t.Errorf("AddColumns after DropSchema added %v, %v; want both again", added, err)
	}
}
