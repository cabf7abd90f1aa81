// Package legacymailtest gives upgrade tests the e-mail schema that a
// board made with its own migrations before packages mailbox and outbox
// kept their tables: the e-mail steps of board's migrations
// 20261122000001 (e-mail threads) and 20261125000002 (double opt-in),
// which do nothing now. Packages mailbox and outbox take that schema over
// in their first migrations; their tests make it with [Make] on a new
// board, write rows as the board wrote them, and open the package.
//
//	s, err := board.Open(ctx, dsn, board.Options{})
//	// ...
//	err = legacymailtest.Make(ctx, s.WriteDB(), legacymailtest.OptIn)
package legacymailtest

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/predictions-md/predictions/internal/bunmigrate"
)

// Stage is how far a board's own e-mail migrations went.
type Stage int

const (
	// Threads is migration 20261122000001's e-mail step: the agents'
	// addresses (agents.email, and email_key unique) and the e-mail
	// outbox, one message to one recipient about a prediction
	// (prediction_id required).
	Threads Stage = iota + 1
	// OptIn is Threads and migration 20261125000002: agents.subscribe
	// and the outbox's kind (notification, or confirmation about no
	// prediction). That migration also made the tables
	// email_confirmations, mail_addresses and inbound_messages with the
	// statements that package mailbox's first migration has now, where
	// its tests take them from.
	OptIn
)

// Make makes the e-mail schema of stage in db, the database of a
// migrated board that has none of it, in one transaction. The outbox's
// columns are those the board's migrations left, in another order on
// PostgreSQL (where they added kind last).
func Make(ctx context.Context, db *bun.DB, stage Stage) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		blob := "BLOB"
		if tx.Dialect().Name() == dialect.PG {
			blob = "BYTEA"
		}
		kind, prediction := "", "prediction_id TEXT NOT NULL"
		stmts := []string{`ALTER TABLE agents ADD COLUMN email TEXT`, `ALTER TABLE agents ADD COLUMN email_key TEXT`,
			`CREATE UNIQUE INDEX agents_email_key ON agents (email_key)`}
		if stage >= OptIn {
			kind = `kind TEXT NOT NULL DEFAULT 'notification' CHECK (kind IN ('notification', 'confirmation')), `
			prediction = "prediction_id TEXT"
			stmts = append(stmts, `ALTER TABLE agents ADD COLUMN subscribe TEXT NOT NULL DEFAULT ''`)
		}
		stmts = append(stmts, `CREATE TABLE outbox (id TEXT PRIMARY KEY, `+kind+prediction+` REFERENCES predictions (id),
	reply_id TEXT REFERENCES replies (id), recipient TEXT NOT NULL, message `+blob+` NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')), attempts BIGINT NOT NULL DEFAULT 0,
	next_attempt_at TIMESTAMP, created_at TIMESTAMP NOT NULL, sent_at TIMESTAMP, last_error TEXT NOT NULL DEFAULT '')`,
			`CREATE INDEX outbox_due ON outbox (status, next_attempt_at, id)`,
			`CREATE INDEX outbox_prediction ON outbox (prediction_id, created_at)`)
		return bunmigrate.Exec(ctx, tx, stmts...)
	})
}
