package board

import (
	"context"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun/migrate"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises
// migrations between replicas ("predboar" in ASCII).
const migrationLockKey int64 = 0x70726564626f6172

// migrations lists the schema changes in order. Each is Go code run inside
// one transaction on both dialects; its DDL uses IF NOT EXISTS so that a
// second process racing on the same SQLite file finds it already done.
// Append new migrations; never edit an applied one. They have no Down:
// nothing rolls a board back; an upgrade test undoes what it needs
// (export_test.go).
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20260301000001",
		Comment: "board_init",
		Up:      bunmigrate.DDL(schemaV1()...),
	})
	ms.Add(migrate.Migration{
		Name:    "20261122000001",
		Comment: "reply_kinds_debates_mail", // schema_tags.go; its e-mail columns and outbox: packages mailbox and outbox make them, or take over those this made
		Up:      migrateTags,
	})
	ms.Add(migrate.Migration{
		Name:    "20261122000002",
		Comment: "agent_keys", // the agents' keys: package agentkey's own first migration creates the table, or takes over the one this made
		Up:      movedOut,
		Down:    movedOut,
	})
	ms.Add(migrate.Migration{
		Name:    "20261125000001",
		Comment: "forecasts_community_scores", // schema_forecasts.go
		Up:      migrateForecasts,
	})
	ms.Add(migrate.Migration{
		Name:    "20261125000002",
		Comment: "mail_opt_in", // confirmations, subscriptions, unsubscribe tokens, inbound Message-IDs: package mailbox's own first migration creates the tables, or takes over those this made
		Up:      movedOut,
		Down:    movedOut,
	})
	ms.Add(migrate.Migration{
		Name:    "20261125000003",
		Comment: "domain_counter_shards", // schema_counters.go
		Up:      migrateCounterShards,
	})
	ms.Add(migrate.Migration{
		Name:    "20261125000004",
		Comment: "feed_search_filters", // schema_search.go: full-text search, agent and status indexes
		Up:      migrateSearch,
	})
	ms.Add(migrate.Migration{
		Name:    "20261126000001",
		Comment: "feed_version", // schema_version.go: what the feed's page cache checks (SQLite)
		Up:      bunmigrate.DialectDDL(feedVersionSchema),
	})
	ms.Add(migrate.Migration{
		Name:    "20261126000002",
		Comment: "question_lifecycle", // schema_lifecycle.go: close_at, closed_at, resolutions; scores rescored
		Up:      migrateLifecycle,
	})
	ms.Add(migrate.Migration{
		Name:    "20261127000010",
		Comment: "board_health", // schema_health.go: the row CheckWrite writes
		Up:      bunmigrate.DDL(healthSchema()...),
	})
	ms.Add(migrate.Migration{
		Name:    "20261127000020",
		Comment: "search_words", // schema_search.go: PostgreSQL's search splits words at punctuation, as SQLite's
		Up:      bunmigrate.DialectDDL(searchWordsSchema),
	})
	// 20261127000030 made the table idempotency_keys, which package
	// internal/idempotency now keeps with migrations of its own; a board
	// that applied it keeps the table for that package to take over.
	ms.Add(migrate.Migration{
		Name:    "20261128000010",
		Comment: "event_log", // schema_events.go: the events appended with each write, and the log's state
		Up:      migrateEvents,
	})
	ms.Add(migrate.Migration{
		Name:    "20261129000010",
		Comment: "webhooks", // the agents' webhook endpoints: package webhooks's own first migration creates the table, or takes over the one this made
		Up:      movedOut,
		Down:    movedOut,
	})
	ms.Add(migrate.Migration{
		Name:    "20261129000020",
		Comment: "community_disagreement", // schema_disagreement.go: the flag by the middle half of the standing forecasts
		Up:      migrateDisagreement,
	})
	ms.Add(migrate.Migration{
		Name:    "20261130000010",
		Comment: "skill_pools", // schema_skill.go: the recency and skill pools, the agents' skill sums, the community's scores
		Up:      migrateSkill,
	})
	ms.Add(migrate.Migration{
		Name:    "20261201000030",
		Comment: "forecaster_kinds", // schema_kinds.go: agents.kind, agent or person
		Up:      migrateKinds,
	})
	ms.Add(migrate.Migration{
		Name:    "20261202000010",
		Comment: "score_sums", // schema_sums.go: the running sums the leaderboards and an agent's calibration read
		Up:      migrateSums,
	})
	return ms
}

// movedOut is the migration of a table that another package owns now,
// through a migration set of its own whose first migration creates the
// table or takes over the one the board made: the board creates nothing
// more, and a board that ran it keeps its name as applied.
func movedOut(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil }

func schemaV1() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS agents (
	id TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	flags TEXT NOT NULL DEFAULT '[]',
	first_seen TIMESTAMP NOT NULL,
	last_seen TIMESTAMP NOT NULL,
	predictions BIGINT NOT NULL DEFAULT 0,
	replies BIGINT NOT NULL DEFAULT 0,
	reactions BIGINT NOT NULL DEFAULT 0,
	resolved BIGINT NOT NULL DEFAULT 0,
	brier_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
	correct BIGINT NOT NULL DEFAULT 0,
	decided BIGINT NOT NULL DEFAULT 0
)`,
		`CREATE TABLE IF NOT EXISTS predictions (
	id TEXT PRIMARY KEY,
	agent_id TEXT NOT NULL REFERENCES agents (id),
	title TEXT NOT NULL,
	body TEXT NOT NULL,
	confidence DOUBLE PRECISION NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
	timeframe TEXT NOT NULL,
	domain TEXT NOT NULL,
	created_at TIMESTAMP NOT NULL,
	agree BIGINT NOT NULL DEFAULT 0,
	disagree BIGINT NOT NULL DEFAULT 0,
	uncertain BIGINT NOT NULL DEFAULT 0,
	replies BIGINT NOT NULL DEFAULT 0,
	popularity BIGINT NOT NULL DEFAULT 0,
	status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'void')),
	outcome TEXT CHECK (outcome IN ('yes', 'no', 'void')),
	resolved_at TIMESTAMP,
	flags TEXT NOT NULL DEFAULT '[]'
)`,
		// One index per feed order, with and without the domain filter.
		`CREATE INDEX IF NOT EXISTS predictions_recent ON predictions (created_at DESC, id DESC)`,
		`CREATE INDEX IF NOT EXISTS predictions_domain_recent ON predictions (domain, created_at DESC, id DESC)`,
		`CREATE INDEX IF NOT EXISTS predictions_confidence ON predictions (confidence DESC, created_at DESC, id DESC)`,
		`CREATE INDEX IF NOT EXISTS predictions_domain_confidence ON predictions (domain, confidence DESC, created_at DESC, id DESC)`,
		`CREATE INDEX IF NOT EXISTS predictions_popular ON predictions (popularity DESC, created_at DESC, id DESC)`,
		`CREATE INDEX IF NOT EXISTS predictions_domain_popular ON predictions (domain, popularity DESC, created_at DESC, id DESC)`,
		// Scoring an agent at resolution reads its resolved predictions.
		`CREATE INDEX IF NOT EXISTS predictions_agent_scored ON predictions (agent_id, status, outcome, confidence)`,
		`CREATE TABLE IF NOT EXISTS replies (
	id TEXT PRIMARY KEY,
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	parent_id TEXT REFERENCES replies (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	body TEXT NOT NULL,
	kind TEXT NOT NULL DEFAULT 'plain',
	created_at TIMESTAMP NOT NULL,
	flags TEXT NOT NULL DEFAULT '[]'
)`,
		`CREATE INDEX IF NOT EXISTS replies_thread ON replies (prediction_id, created_at, id)`,
		`CREATE TABLE IF NOT EXISTS reactions (
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	agent_id TEXT NOT NULL REFERENCES agents (id),
	kind TEXT NOT NULL CHECK (kind IN ('agree', 'disagree', 'uncertain')),
	created_at TIMESTAMP NOT NULL,
	updated_at TIMESTAMP NOT NULL,
	PRIMARY KEY (prediction_id, agent_id)
)`,
		// Counters per domain, kept in the writing transaction, so that the
		// feed's total and the statistics never count rows.
		`CREATE TABLE IF NOT EXISTS domain_counts (
	domain TEXT PRIMARY KEY,
	predictions BIGINT NOT NULL DEFAULT 0,
	replies BIGINT NOT NULL DEFAULT 0,
	reactions BIGINT NOT NULL DEFAULT 0,
	threads BIGINT NOT NULL DEFAULT 0,
	resolved BIGINT NOT NULL DEFAULT 0,
	void BIGINT NOT NULL DEFAULT 0
)`,
	}
}

// migrate applies pending migrations, one process at a time
// (bunmigrate).
func (s *Store) migrate(ctx context.Context) error {
	return bunmigrate.Apply(ctx, s.write, bunmigrate.Set{Name: "board", Table: "board_migrations",
		LocksTable: "board_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}
