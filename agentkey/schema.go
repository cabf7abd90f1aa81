package agentkey

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"

	"github.com/predictions-md/predictions/internal/bunmigrate"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises the
// keys' migrations between replicas ("agentkey" in ASCII).
const migrationLockKey int64 = 0x6167656e746b6579

// migrations lists the keys' schema changes, kept apart from the board's
// (their own table of applied migrations, agentkey_migrations). Append
// new migrations; never edit an applied one.
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20261202000020",
		Comment: "agent_keys_of_their_own", // the keys' table, created or taken over from the board's migration 20261122000002
		Up:      ownTable,
		Down:    func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
	return ms
}

// migrateDB applies the keys' pending migrations, one process at a time
// (bunmigrate).
func migrateDB(ctx context.Context, db *bun.DB) error {
	return bunmigrate.Apply(ctx, db, bunmigrate.Set{Name: "agentkey", Table: "agentkey_migrations",
		LocksTable: "agentkey_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}

// ownTable creates agent_keys: one row per agent that registered a key,
// the SHA-256 of its current key in hex, when it was issued and when
// last rotated. It has no foreign key to the board's agents: an agent
// registers its key before its first post creates it. A board made while
// the board kept the keys holds them in a table of the same name and
// columns, made by its migration 20261122000002: the statement (IF NOT
// EXISTS) leaves it and its hashes as they are, and it is this package's
// from then on. TIMESTAMP becomes TIMESTAMPTZ on PostgreSQL, as the
// board's migration made it.
func ownTable(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	q := `CREATE TABLE IF NOT EXISTS agent_keys (
	agent_id TEXT PRIMARY KEY,
	hash TEXT NOT NULL CHECK (length(hash) = 64),
	created_at TIMESTAMP NOT NULL,
	rotated_at TIMESTAMP
)`
	if db.Dialect().Name() == dialect.PG {
		q = strings.ReplaceAll(q, "TIMESTAMP", "TIMESTAMPTZ")
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%w\n%s", err, q)
	}
	return nil
}
