package board

import (
	"context"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// mailColumns and mailSchema are the e-mail part of migration
// 20261122000001: the agents' registered addresses and the outbox.
//
// email is the address as registered (without display name); email_key
// is it in lower case (Go's strings.ToLower, the same on both databases),
// unique among agents, so addresses match without regard to case. Both
// are NULL until the agent registers.
func mailColumns() []bunmigrate.Columns {
	return []bunmigrate.Columns{{Table: "agents", Defs: []string{"email TEXT", "email_key TEXT"}}}
}

// mailSchema returns the statements after mailColumns. BLOB becomes BYTEA
// and TIMESTAMP TIMESTAMPTZ on PostgreSQL.
//
// An outbox row is one message to one recipient. status is pending until
// sent (sent_at set) or given up (failed, last_error kept);
// next_attempt_at is when a pending row is due, moved forward by a claim
// (the lease) and by a failure (the backoff).
func mailSchema(pg bool) []string {
	blob := "BLOB"
	if pg {
		blob = "BYTEA"
	}
	return []string{
		`CREATE UNIQUE INDEX IF NOT EXISTS agents_email_key ON agents (email_key)`,
		`CREATE TABLE IF NOT EXISTS outbox (
	id TEXT PRIMARY KEY,
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	reply_id TEXT REFERENCES replies (id),
	recipient TEXT NOT NULL,
	message ` + blob + ` NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
	attempts BIGINT NOT NULL DEFAULT 0,
	next_attempt_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL,
	sent_at TIMESTAMP,
	last_error TEXT NOT NULL DEFAULT ''
)`,
		// Claims read pending rows in due order; the backlog counts them.
		`CREATE INDEX IF NOT EXISTS outbox_due ON outbox (status, next_attempt_at, id)`,
		`CREATE INDEX IF NOT EXISTS outbox_prediction ON outbox (prediction_id, created_at)`,
	}
}

// dropMail undoes mailSchema (the columns are dropped by the caller).
func dropMail() []string {
	return []string{
		`DROP TABLE IF EXISTS outbox`,
		`DROP INDEX IF EXISTS agents_email_key`,
	}
}

// optInSchema is migration 20261125000001 (after the columns of
// optInColumns): double opt-in, subscriptions, unsubscribe tokens and the
// Message-IDs of inbound replies. It is history: package mailbox owns
// these tables and the agents' addresses now, and its first migration
// takes them over.
//
//   - email_confirmations: one row per registration of an address, kept
//     after use for the caps (registrations per agent, confirmation
//     messages per address, per rolling day) and pruned with the outbox.
//     token_hash is the SHA-256 of the single-use token the confirmation
//     message carries; used_at is set when it confirms.
//   - mail_addresses: one row per address ever registered (email_key),
//     with its unguessable unsubscribe token (List-Unsubscribe) and the
//     time it unsubscribed, if it did.
//   - inbound_messages: the (agent, Message-ID) of each recorded e-mail
//     reply, hashed, so that the same message delivered twice is
//     recorded once.
//
// agents.email and email_key now hold the confirmed address only;
// agents.subscribe says which new predictions the agent is e-mailed:
// "" none, "all", or ",AI,Science," (canonical domains between commas).
// The outbox's prediction_id becomes optional (a confirmation message
// belongs to no prediction): SQLite cannot drop NOT NULL, so its table is
// rebuilt.
func optInSchema(pg bool) []string {
	blob := "BLOB"
	if pg {
		blob = "BYTEA"
	}
	stmts := []string{
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
		// Addresses registered before double opt-in were never confirmed:
		// they get nothing until their agents register them again.
		`UPDATE agents SET email = NULL, email_key = NULL`,
	}
	if pg {
		return append(stmts,
			`ALTER TABLE outbox ALTER COLUMN prediction_id DROP NOT NULL`,
			`ALTER TABLE outbox ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT 'notification' CHECK (kind IN ('notification', 'confirmation'))`)
	}
	return append(stmts,
		`CREATE TABLE outbox_v2 (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL DEFAULT 'notification' CHECK (kind IN ('notification', 'confirmation')),
	prediction_id TEXT REFERENCES predictions (id),
	reply_id TEXT REFERENCES replies (id),
	recipient TEXT NOT NULL,
	message `+blob+` NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
	attempts BIGINT NOT NULL DEFAULT 0,
	next_attempt_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL,
	sent_at TIMESTAMP,
	last_error TEXT NOT NULL DEFAULT ''
)`,
		`INSERT INTO outbox_v2 (id, prediction_id, reply_id, recipient, message, status, attempts, next_attempt_at, created_at, sent_at, last_error)
	SELECT id, prediction_id, reply_id, recipient, message, status, attempts, next_attempt_at, created_at, sent_at, last_error FROM outbox`,
		`DROP TABLE outbox`,
		`ALTER TABLE outbox_v2 RENAME TO outbox`,
		`CREATE INDEX IF NOT EXISTS outbox_due ON outbox (status, next_attempt_at, id)`,
		`CREATE INDEX IF NOT EXISTS outbox_prediction ON outbox (prediction_id, created_at)`,
	)
}

// migrateOptIn adds agents.subscribe and runs optInSchema, once: a second
// process racing on the same SQLite file finds the column and stops.
func migrateOptIn(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	pg := db.Dialect().Name() == dialect.PG
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		added, err := bunmigrate.AddColumns(ctx, tx, bunmigrate.Columns{Table: "agents", Defs: []string{"subscribe TEXT NOT NULL DEFAULT ''"}})
		if err != nil || !added["agents.subscribe"] {
			return err
		}
		return bunmigrate.Exec(ctx, tx, optInSchema(pg)...)
	})
}

func dropOptIn() []string {
	return []string{
		`DROP TABLE IF EXISTS inbound_messages`,
		`DROP TABLE IF EXISTS mail_addresses`,
		`DROP TABLE IF EXISTS email_confirmations`,
		`ALTER TABLE agents DROP COLUMN subscribe`,
	}
}
