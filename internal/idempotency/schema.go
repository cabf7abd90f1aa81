package idempotency

import (
	"context"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises the
// package's migrations between replicas ("idemkeys" in ASCII).
const migrationLockKey int64 = 0x6964656d6b657973

// applyMigrations applies the package's pending migrations to db.
func applyMigrations(ctx context.Context, db *bun.DB) error {
	return bunmigrate.Apply(ctx, db, bunmigrate.Set{Name: "idempotency", Table: "idempotency_migrations",
		LocksTable: "idempotency_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}

// migrations lists the package's schema changes, kept apart from the
// board's. Append new migrations; never edit an applied one.
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20261202000010",
		Comment: "idempotency_keys_of_their_own", // the board's table, taken over as it is
		Up:      keysUp,
		Down:    func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
	return ms
}

// keysUp creates the table idempotency_keys, one row per key with its
// answer: status, header and body. created_at is when it was stored; rows
// older than [TTL] are removed, a few at a time, by [Store.Claim]. A
// board that kept the table itself (before this package) has it already,
// with the same columns: it is kept as it is, rows and all. status is
// NULL only in the rows of claims such a board left in flight.
var keysUp = bunmigrate.DDL(`CREATE TABLE IF NOT EXISTS idempotency_keys (
	scope TEXT NOT NULL,
	route TEXT NOT NULL,
	key TEXT NOT NULL,
	request_hash TEXT NOT NULL,
	status INTEGER,
	header TEXT NOT NULL DEFAULT '{}',
	body TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	PRIMARY KEY (scope, route, key)
)`,
	`CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at)`)
