// Package bunmigrate applies a package's bun migrations to a database that
// several processes may open at once.
//
// On PostgreSQL it first takes a session advisory lock, waiting while
// another replica migrates: bun's own lock table (Migrator.Lock) fails at
// once instead of waiting and stays locked if a process dies holding it,
// and its Init races on CREATE TABLE. On SQLite the file's write lock
// serialises the migrations' transactions.
//
// The migrations themselves are written with its schema helpers, the same
// on both databases: [DDL] and [DialectDDL] make a migration of
// statements, [Exec] runs statements in a migration's transaction,
// [AddColumns], [AddSchema] and [DropSchema] add (once, whoever races)
// and drop the [Columns] a migration gives existing tables.
package bunmigrate

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// Set names one package's migrations and where their state is kept.
type Set struct {
	// Name begins every error ("board", "outbox").
	Name string
	// Table and LocksTable are bun's tables of applied migrations and of
	// its lock, apart for each set, so that sets share a database.
	Table, LocksTable string
	// LockKey is the PostgreSQL advisory lock held while the set
	// migrates; each set has its own.
	LockKey int64
	// Migrations are the set's migrations.
	Migrations *migrate.Migrations
}

// pollLock is how often a process waiting for another's migration asks
// for the lock again.
const pollLock = 50 * time.Millisecond

// Apply applies the set's pending migrations to db.
func Apply(ctx context.Context, db *bun.DB, s Set) error {
	if db.Dialect().Name() == dialect.PG {
		conn, err := db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("%s: migrate: %w", s.Name, err)
		}
		defer conn.Close()
		for {
			var ok bool
			if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(?)", s.LockKey).Scan(&ok); err != nil {
				if ctx.Err() != nil { // the time ran out while it waited, in a try as between them
					return fmt.Errorf("%s: migrate: waiting for another replica's migration: %w", s.Name, ctx.Err())
				}
				return fmt.Errorf("%s: migrate: taking the lock: %w", s.Name, err)
			}
			if ok {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: migrate: waiting for another replica's migration: %w", s.Name, ctx.Err())
			case <-time.After(pollLock):
			}
		}
		defer func() {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", s.LockKey)
		}()
	}
	m := migrate.NewMigrator(db, s.Migrations,
		migrate.WithTableName(s.Table),
		migrate.WithLocksTableName(s.LocksTable),
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.WithUpsert(true),
	)
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("%s: migrate: init: %w", s.Name, err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("%s: migrate: %w", s.Name, err)
	}
	return nil
}
