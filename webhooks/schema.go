package webhooks

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/predictions-md/predictions/internal/bunmigrate"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises the
// endpoints' migrations between replicas ("webhooks" in ASCII).
const migrationLockKey int64 = 0x776562686f6f6b73

// migrations lists the endpoints' schema changes, kept apart from the
// board's (their own table of applied migrations, webhooks_migrations).
// Append new migrations; never edit an applied one. None has a Down: a
// rollback leaves the tables.
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20261202000010",
		Comment: "webhooks_of_their_own", // the endpoints' table, created or taken over from the board's migration 20261129000010 (schema)
		Up:      bunmigrate.DDL(schema()...),
	})
	return ms
}

// migrateDB applies the endpoints' pending migrations, one process at a
// time (bunmigrate).
func migrateDB(ctx context.Context, db *bun.DB) error {
	return bunmigrate.Apply(ctx, db, bunmigrate.Set{Name: "webhooks", Table: "webhooks_migrations",
		LocksTable: "webhooks_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}

// schema is the agents' webhook endpoints (endpoints.go), the first
// migration's. A board made while the board kept the endpoints holds
// them in a table of the same name and columns, made by its migration
// 20261129000010: the statements (IF NOT EXISTS) leave it, its rows and
// its indexes as they are, and it is this package's from then on. A row
// is one endpoint: its owner, its https URL, the event types it wants (a JSON list; [] is every type) and its
// filters ("" for none), its signing secret (kept as shown, "whsec_" and
// base64, since signing needs it), after_event (the newest event when it
// was registered: it is sent only the events after), and its state:
// status active or disabled with status_reason and disabled_at, and
// failing_since, the first failure since its last success.
func schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS webhooks (
	id TEXT PRIMARY KEY,
	agent_id TEXT NOT NULL,
	url TEXT NOT NULL,
	types TEXT NOT NULL DEFAULT '[]',
	prediction_id TEXT NOT NULL DEFAULT '',
	domain TEXT NOT NULL DEFAULT '',
	secret TEXT NOT NULL,
	after_event BIGINT NOT NULL DEFAULT 0,
	status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
	status_reason TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	disabled_at TIMESTAMP,
	failing_since TIMESTAMP
)`,
		// An agent lists its endpoints; the fan-out reads the active ones.
		`CREATE INDEX IF NOT EXISTS webhooks_agent ON webhooks (agent_id, created_at, id)`,
		`CREATE INDEX IF NOT EXISTS webhooks_status ON webhooks (status)`,
	}
}
