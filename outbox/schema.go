package outbox

import (
	"context"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// migrationLockKey is the PostgreSQL advisory lock that serialises the
// outbox's migrations between replicas ("outboxmg" in ASCII).
const migrationLockKey int64 = 0x6f7574626f786d67

// migrations lists the outbox's schema changes, kept apart from the
// board's (their own bun_migrations table, outbox_migrations), since the
// outbox may share the board's database without belonging to it. Append
// new migrations; never edit an applied one.
func migrations() *migrate.Migrations {
	ms := migrate.NewMigrations()
	ms.Add(migrate.Migration{
		Name:    "20261128000020",
		Comment: "outbox_of_its_own", // one table for every kind of delivery, the board's e-mail rows moved in
		Up:      migrateOwn,
		Down:    func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
	ms.Add(migrate.Migration{
		Name:    "20261129000030",
		Comment: "reader_positions", // where each reader of an event log that feeds the outbox has read to
		Up:      positionsUp,
		Down:    func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
	ms.Add(migrate.Migration{
		Name:    "20261130000040",
		Comment: "in_order", // a recipient's rows of an ordered kind go out one at a time, by seq
		Up:      inOrderUp,
		Down:    func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
	ms.Add(migrate.Migration{
		Name:    "20261201000050",
		Comment: "first_attempt", // a kind retried for a time counts it from the row's first attempt
		Up:      firstAttemptUp,
		Down:    func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
	return ms
}

// schema is the outbox table. A row is one payload to one recipient:
//
//   - kind says who delivers it ([Email], [Webhook]);
//   - topic is what it is about, for listing (the prediction of an
//     e-mail notification; "" for none) and ref the record that caused it
//     (the reply); both are opaque to the outbox;
//   - status is pending until sent (sent_at set) or given up (failed,
//     last_error kept); next_attempt_at is when a pending row is due,
//     moved ahead by a claim (the lease) and by a failure (the backoff).
//
// BLOB becomes BYTEA and TIMESTAMP TIMESTAMPTZ on PostgreSQL.
func schema(pg bool) []string {
	blob := "BLOB"
	if pg {
		blob = "BYTEA"
	}
	return []string{
		`CREATE TABLE IF NOT EXISTS outbox (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL,
	topic TEXT NOT NULL DEFAULT '',
	ref TEXT NOT NULL DEFAULT '',
	recipient TEXT NOT NULL,
	payload ` + blob + ` NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
	attempts BIGINT NOT NULL DEFAULT 0,
	next_attempt_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL,
	sent_at TIMESTAMP,
	last_error TEXT NOT NULL DEFAULT ''
)`,
		// Claims read one kind's pending rows in due order; the backlog
		// counts them.
		`CREATE INDEX IF NOT EXISTS outbox_due ON outbox (kind, status, next_attempt_at, id)`,
		`CREATE INDEX IF NOT EXISTS outbox_topic ON outbox (topic, created_at)`,
		`CREATE INDEX IF NOT EXISTS outbox_recipient ON outbox (recipient)`,
	}
}

// migrateOwn creates the outbox table. A board made before the outbox had
// a package of its own holds the e-mail outbox in a table of the same
// name (prediction_id, reply_id, message, as the board's migration
// 20261122000001 made it; kind notification or confirmation where its
// migration 20261125000002 ran too): its rows move into the new table
// unchanged, as kind email, with the prediction as topic and the reply as
// ref, so that pending mail is delivered after the upgrade.
func migrateOwn(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	pg := db.Dialect().Name() == dialect.PG
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		old, err := database.HasColumn(ctx, tx, "outbox", "message")
		if err != nil {
			return err
		}
		var stmts []string
		if old {
			stmts = append(stmts,
				`DROP INDEX IF EXISTS outbox_due`,
				`DROP INDEX IF EXISTS outbox_prediction`,
				`ALTER TABLE outbox RENAME TO outbox_board`)
		}
		stmts = append(stmts, schema(pg)...)
		if old {
			stmts = append(stmts,
				`INSERT INTO outbox (id, kind, topic, ref, recipient, payload, status, attempts, next_attempt_at, created_at, sent_at, last_error)
	SELECT id, 'email', COALESCE(prediction_id, ''), COALESCE(reply_id, ''), recipient, message, status, attempts,
	next_attempt_at, created_at, sent_at, last_error FROM outbox_board`,
				`DROP TABLE outbox_board`)
		}
		return bunmigrate.Exec(ctx, tx, stmts...)
	})
}

// migrateDB applies the outbox's pending migrations, one process at a
// time (bunmigrate).
func migrateDB(ctx context.Context, db *bun.DB) error {
	return bunmigrate.Apply(ctx, db, bunmigrate.Set{Name: "outbox", Table: "outbox_migrations",
		LocksTable: "outbox_migration_locks", LockKey: migrationLockKey, Migrations: migrations()})
}

// positionsUp creates outbox_positions: one row per reader of an event
// log that enqueues from it ([Outbox.Position]), the id of the last
// event it enqueued for.
func positionsUp(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	_, err := m.DB().ExecContext(ctx, `CREATE TABLE IF NOT EXISTS outbox_positions (
	reader TEXT PRIMARY KEY,
	position BIGINT NOT NULL DEFAULT 0
)`)
	return err
}

// inOrderUp adds seq, the order of a recipient's rows of a kind
// delivered in order ([Kind.InOrder]), and outbox_head, the partial index
// over pending rows by kind, recipient and order that a claim's "no
// earlier pending row of this recipient" reads: its cost follows the
// pending rows of one recipient, not the table's history. It reads
// whether seq exists in its transaction (which holds SQLite's write lock
// from BEGIN), so that two processes upgrading one file at once add it
// once.
func inOrderUp(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := bunmigrate.AddColumns(ctx, tx, bunmigrate.Columns{Table: "outbox", Defs: []string{"seq BIGINT NOT NULL DEFAULT 0"}}); err != nil {
			return err
		}
		return bunmigrate.Exec(ctx, tx, `CREATE INDEX IF NOT EXISTS outbox_head ON outbox (kind, recipient, seq, id) WHERE status = 'pending'`)
	})
}

// firstAttemptUp adds first_attempt_at, set by the first claim of a row:
// a kind retried for a time ([Options.RetryFor]) is retried until that
// long after it, so that a row that waited behind its recipient's head
// (an ordered kind) gets its whole time once it is tried. Rows claimed
// before it have none and count from created_at, as they did. As
// inOrderUp, it reads whether the column exists in its transaction.
func firstAttemptUp(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := bunmigrate.AddColumns(ctx, tx, bunmigrate.Columns{Table: "outbox", Defs: []string{"first_attempt_at TIMESTAMP"}})
		return err
	})
}
