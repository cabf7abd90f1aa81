package mailbox

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/predictions-md/predictions/internal/database"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises the
// box's migrations between replicas ("mailboxm" in ASCII).
const migrationLockKey int64 = 0x6d61696c626f786d

// migrations lists the box's schema changes, kept apart from the board's
// (their own table, mailbox_migrations), since the box shares the
// board's database without belonging to it. Append new migrations; never
// edit an applied one.
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20261202000010",
		Comment: "mailbox_of_its_own", // the board's e-mail tables taken over, the confirmed addresses moved out of agents
		Up:      migrateOwn,
		Down:    func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
	return ms
}

// migrateDB applies the box's pending migrations, one process at a time
// (bunmigrate).
func migrateDB(ctx context.Context, db *bun.DB) error {
	return bunmigrate.Apply(ctx, db, bunmigrate.Set{Name: "mailbox", Table: "mailbox_migrations",
		LocksTable: "mailbox_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}

// schema is the box's tables. TIMESTAMP becomes TIMESTAMPTZ on
// PostgreSQL.
//
//   - email_confirmations: one row per registration of an address, kept
//     after use for the caps (registrations per agent, confirmation
//     messages per address, per rolling day) until pruned
//     ([Box.PruneRegistrations]). token_hash is the SHA-256 of the
//     single-use token the confirmation message carries; used_at is set
//     when it confirms.
//   - mail_addresses: one row per address ever registered (email_key),
//     with its unguessable unsubscribe token (List-Unsubscribe) and the
//     time it unsubscribed, if it did.
//   - inbound_messages: the (agent, prediction, Message-ID) of each
//     recorded e-mail reply, hashed, so that the same message delivered
//     twice is recorded once.
//   - agent_addresses: each agent's confirmed address, one per agent.
//     email is the address as registered (without display name);
//     email_key is it in lower case (Go's strings.ToLower, the same on
//     both databases), unique, so that addresses match without regard to
//     case. subscribe says which new predictions the agent is e-mailed:
//     "" none, "all", or ",AI,Science," (canonical domains between
//     commas).
//
// The first three are those a board made before the box had a package
// of its own (board's migration 20261125000002, with the same columns):
// [boardTables]. IF NOT EXISTS takes them over as they are.
func schema() []string {
	return append(boardTables(), `CREATE TABLE IF NOT EXISTS agent_addresses (
	agent_id TEXT PRIMARY KEY,
	email TEXT NOT NULL,
	email_key TEXT NOT NULL UNIQUE,
	subscribe TEXT NOT NULL DEFAULT ''
)`)
}

// boardTables are the box's tables that a board's migration
// 20261125000002 made, with these statements, before the box had a
// package of its own.
func boardTables() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS email_confirmations (
	token_hash TEXT PRIMARY KEY,
	agent_id TEXT NOT NULL,
	email TEXT NOT NULL,
	email_key TEXT NOT NULL,
	subscribe TEXT,
	created_at TIMESTAMP NOT NULL,
	expires_at TIMESTAMP NOT NULL,
	used_at TIMESTAMP
)`,
		`CREATE INDEX IF NOT EXISTS email_confirmations_address ON email_confirmations (email_key, created_at)`,
		`CREATE INDEX IF NOT EXISTS email_confirmations_agent ON email_confirmations (agent_id, created_at)`,
		`CREATE TABLE IF NOT EXISTS mail_addresses (
	email_key TEXT PRIMARY KEY,
	unsubscribe_token TEXT NOT NULL UNIQUE,
	unsubscribed_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS inbound_messages (
	message_key TEXT PRIMARY KEY,
	reply_id TEXT NOT NULL,
	received_at TIMESTAMP NOT NULL
)`,
	}
}

// migrateOwn creates the box's tables, on a new board or one of any
// older version. A board made before the box had a package of its own
// kept each agent's confirmed address and subscription in its agents
// table (email and email_key, which the board's migration 20261122000001
// added, and subscribe, which its migration 20261125000002 added when it
// made every address unconfirmed): where subscribe exists they are copied
// into agent_addresses, so that every confirmed address and subscription
// holds after the upgrade; the board's columns are left as they are and
// no longer read. A board that stopped before 20261125000002 had no
// confirmed address, and one before 20261122000001 no address at all:
// nothing is copied.
func migrateOwn(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := bunmigrate.Exec(ctx, tx, schema()...); err != nil {
			return err
		}
		confirmed, err := database.HasColumn(ctx, tx, "agents", "subscribe")
		if err != nil || !confirmed {
			return err
		}
		return bunmigrate.Exec(ctx, tx, `INSERT INTO agent_addresses (agent_id, email, email_key, subscribe)
	SELECT id, email, email_key, subscribe FROM agents WHERE email IS NOT NULL AND email_key IS NOT NULL
	ON CONFLICT DO NOTHING`)
	})
}
