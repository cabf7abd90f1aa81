package people

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/predictions-md/predictions/internal/bunmigrate"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises the
// people's migrations between replicas ("peoplemg" in ASCII).
const migrationLockKey int64 = 0x70656f706c656d67

// migrations lists the people's schema changes, kept apart from the
// board's (their own table of applied migrations, people_migrations).
// Append new migrations; never edit an applied one.
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20261203000010",
		Comment: "people_passkeys_sessions_follows",
		Up:      bunmigrate.DDL(schema...),
	})
	ms.Add(migrate.Migration{
		Name:    "20261204000010",
		Comment: "people_signin_links",
		Up:      bunmigrate.DDL(signinLinks...),
	})
	return ms
}

// migrateDB applies the people's pending migrations, one process at a
// time (bunmigrate).
func migrateDB(ctx context.Context, db *bun.DB) error {
	return bunmigrate.Apply(ctx, db, bunmigrate.Set{Name: "people", Table: "people_migrations",
		LocksTable: "people_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}

// schema is the people's tables. TIMESTAMP becomes TIMESTAMPTZ on
// PostgreSQL. None has a foreign key to the board's tables: the board's
// own rows (the forecaster of kind person) are written through its
// methods, in the same transaction.
//
//   - people: one row per person, with the WebAuthn user handle (64
//     random bytes, base64url) that their passkeys carry.
//   - passkeys: each passkey, by its credential id (base64url), with the
//     library's credential record as JSON (public key, sign count,
//     flags) and when it was last used.
//   - person_sessions: each signed-in session by the SHA-256 of its
//     token (the cookie holds the token; the table only its hash, so a
//     copy of the database signs nobody in), until expires_at.
//   - passkey_ceremonies: a registration or sign-in begun and not yet
//     finished, by the SHA-256 of its token, with the library's session
//     data (the challenge) as JSON; used once, or dropped when expired.
//   - follows: the predictions each person follows.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS people (
	person_id TEXT PRIMARY KEY,
	handle TEXT NOT NULL UNIQUE,
	created_at TIMESTAMP NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS passkeys (
	credential_id TEXT PRIMARY KEY,
	person_id TEXT NOT NULL,
	credential TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	used_at TIMESTAMP
)`,
	`CREATE INDEX IF NOT EXISTS passkeys_person ON passkeys (person_id)`,
	`CREATE TABLE IF NOT EXISTS person_sessions (
	token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
	person_id TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	expires_at TIMESTAMP NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS person_sessions_person ON person_sessions (person_id)`,
	`CREATE INDEX IF NOT EXISTS person_sessions_expiry ON person_sessions (expires_at)`,
	`CREATE TABLE IF NOT EXISTS passkey_ceremonies (
	token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
	kind TEXT NOT NULL CHECK (kind IN ('register', 'signin')),
	person_id TEXT NOT NULL DEFAULT '',
	name TEXT NOT NULL DEFAULT '',
	handle TEXT NOT NULL DEFAULT '',
	data TEXT NOT NULL,
	expires_at TIMESTAMP NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS passkey_ceremonies_expiry ON passkey_ceremonies (expires_at)`,
	`CREATE TABLE IF NOT EXISTS follows (
	person_id TEXT NOT NULL,
	prediction_id TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	PRIMARY KEY (person_id, prediction_id)
)`,
	`CREATE INDEX IF NOT EXISTS follows_prediction ON follows (prediction_id)`,
}

// signinLinks is the table of the second migration: each sign-in link
// asked for, by the SHA-256 of its token (the message carries the token),
// kept for [LinkWindow] after it was asked for so that the cap per
// address counts it. email_key is the address asked for in lower case;
// person_id is "" when it is no person's confirmed address (the row then
// counts toward the cap and signs nobody in, so that a known address and
// an unknown one are answered alike); used_at is set when it signs in.
var signinLinks = []string{
	`CREATE TABLE IF NOT EXISTS signin_links (
	token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
	email_key TEXT NOT NULL,
	person_id TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	expires_at TIMESTAMP NOT NULL,
	used_at TIMESTAMP
)`,
	`CREATE INDEX IF NOT EXISTS signin_links_address ON signin_links (email_key, created_at)`,
	`CREATE INDEX IF NOT EXISTS signin_links_created ON signin_links (created_at)`,
}
