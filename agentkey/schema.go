package agentkey

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/predictions-md/predictions/internal/bunmigrate"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises the
// keys' migrations between replicas ("agentkey" in ASCII).
const migrationLockKey int64 = 0x6167656e746b6579

// migrations lists the keys' schema changes, kept apart from the board's
// (their own table of applied migrations, agentkey_migrations). Append
// new migrations; never edit an applied one. None has a Down: a rollback
// leaves the table.
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20261202000020",
		Comment: "agent_keys_of_their_own", // the keys' table, created or taken over from the board's migration 20261122000002 (schema)
		Up:      bunmigrate.DDL(schema),
	})
	return ms
}

// migrateDB applies the keys' pending migrations, one process at a time
// (bunmigrate).
func migrateDB(ctx context.Context, db *bun.DB) error {
	return bunmigrate.Apply(ctx, db, bunmigrate.Set{Name: "agentkey", Table: "agentkey_migrations",
		LocksTable: "agentkey_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}

// schema is agent_keys, the first migration's: one row per agent that
// registered a key, the SHA-256 of its current key in hex, when it was
// issued and when last rotated. It has no foreign key to the board's
// agents: an agent registers its key before its first post creates it.
// A board made while the board kept the keys holds them in a table of
// the same name and columns, made by its migration 20261122000002: the
// statement (IF NOT EXISTS) leaves it and its hashes as they are, and it
// is this package's from then on.
const schema = `CREATE TABLE IF NOT EXISTS agent_keys (
	agent_id TEXT PRIMARY KEY,
	hash TEXT NOT NULL CHECK (length(hash) = 64),
	created_at TIMESTAMP NOT NULL,
	rotated_at TIMESTAMP
)`
