package board

import (
	"context"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
)

// CheckWrite checks that the database accepts writes, for readiness
// probes (/healthz): it writes one row of the table board_health (the
// time of the check and a count) in a write transaction, as every write
// of the board does, so it fails whenever they would: the store is
// closed, the server is down, refuses connections or is read-only, the
// SQLite file cannot be opened or written (read-only, a full disk, an I/O
// error) or another process holds its write lock beyond the busy timeout.
// On PostgreSQL the transaction also plans an update of the predictions
// table, so that a role that lost its write privilege on the board fails
// too. It returns an error wrapping [ErrUnavailable] for those, bounded by
// ctx.
//
// Probes cost nothing under load ([database.Probe]): a write of the store
// committed less than [RecentWrite] ago answers for the database, and a
// probe's result is the answer for [CheckInterval], so that the store
// writes board_health at most once per interval however often it is asked.
func (s *Store) CheckWrite(ctx context.Context) error { return s.health.Check(ctx, s.probeWrite) }

// probeWrite writes the row of board_health.
func (s *Store) probeWrite(ctx context.Context) error {
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO board_health (id, checked_at, checks) VALUES (1, ?, 1)
	ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at, checks = board_health.checks + 1`, s.clock()); err != nil {
			return err
		}
		if s.pg {
			_, err := tx.ExecContext(ctx, "UPDATE predictions SET id = id WHERE false")
			return err
		}
		return nil
	})
	if err != nil {
		return database.Unavailable(err)
	}
	return nil
}

// RecentWrite is how recent a committed write must be for
// [Store.CheckWrite] to take it as the answer.
const RecentWrite = time.Second

// CheckInterval is how long the result of a probe of [Store.CheckWrite]
// is its answer ([database.Probe]).
const CheckInterval = time.Second
