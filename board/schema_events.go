package board

import (
	"context"
	"time"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// eventsSchema is migration 20261128000010: the event log (events.go).
//
// board_events holds one row per event, its id increasing in commit
// order: on SQLite an AUTOINCREMENT key, never reused even once the rows
// before it are trimmed; on PostgreSQL an identity column whose values
// are taken under the appends' advisory lock ([Store.appendEvents]). The
// rows name no other table (no foreign keys), so trimming locks nothing
// a write needs. board_event_state is one row: trimmed, the highest id
// trimmed (a reader behind it missed events), and closes_to, up to when
// the scheduled closes were announced ([Store.AnnounceCloses]); it starts
// at 1970, so the first announcement after the upgrade names every
// prediction then closed and not yet resolved.
func eventsSchema(pg bool) []string {
	id := `id INTEGER PRIMARY KEY AUTOINCREMENT`
	if pg {
		id = `id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY`
	}
	return []string{
		`CREATE TABLE IF NOT EXISTS board_events (
	` + id + `,
	type TEXT NOT NULL,
	at TIMESTAMP NOT NULL,
	prediction_id TEXT NOT NULL,
	domain TEXT NOT NULL,
	author_id TEXT NOT NULL,
	agent_id TEXT NOT NULL DEFAULT '',
	to_agent_id TEXT NOT NULL DEFAULT '',
	data TEXT NOT NULL DEFAULT '{}'
)`,
		// Trimming finds the oldest rows by time.
		`CREATE INDEX IF NOT EXISTS board_events_at ON board_events (at)`,
		`CREATE TABLE IF NOT EXISTS board_event_state (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	trimmed BIGINT NOT NULL DEFAULT 0,
	closes_to TIMESTAMP NOT NULL
)`,
	}
}

// migrateEvents creates the event log and its state row, in one
// transaction.
func migrateEvents(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := bunmigrate.Exec(ctx, tx, eventsSchema(isPG(tx))...); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO board_event_state (id, trimmed, closes_to) VALUES (1, 0, ?) ON CONFLICT (id) DO NOTHING`,
			time.Unix(0, 0).UTC())
		return err
	})
}
