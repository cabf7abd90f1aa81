package board

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// CheckWrite checks that the database accepts writes, for readiness
// probes (/healthz), and leaves nothing behind. On SQLite it takes the
// write lock (BEGIN IMMEDIATE, through the single writer connection) and
// rolls back: it fails when the store is closed, the file cannot be
// opened or written, or another process holds the lock beyond the busy
// timeout. On PostgreSQL it takes a transaction id and plans an update
// of the predictions table, then rolls back: it fails when the server is
// down or read-only (a standby) or the role cannot write the board. It
// returns an error wrapping [ErrUnavailable] for those, bounded by ctx.
//
// A write transaction of the store that committed less than
// [RecentWrite] ago answers for the database without a probe: under a
// write flood the probe would wait for SQLite's single writer connection
// and could time out although every write succeeds.
func (s *Store) CheckWrite(ctx context.Context) error {
	if t := s.lastWrite.Load(); t != 0 && time.Since(time.Unix(0, t)) < RecentWrite {
		return nil
	}
	tx, err := s.write.BeginTx(ctx, nil) // BEGIN IMMEDIATE on SQLite (_txlock=immediate)
	if err != nil {
		return checkErr(err)
	}
	defer tx.Rollback() //nolint:errcheck // the probe writes nothing to keep
	if s.pg {
		if _, err := tx.ExecContext(ctx, "SELECT txid_current()"); err != nil {
			return checkErr(err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE predictions SET id = id WHERE false"); err != nil {
			return checkErr(err)
		}
	}
	if err := tx.Rollback(); err != nil {
		return checkErr(err)
	}
	return nil
}

// RecentWrite is how recent a committed write must be for
// [Store.CheckWrite] to take it as the answer.
const RecentWrite = time.Second

// checkErr marks an error of the probe as the database's unavailability
// even when the driver's error is not one Classify knows: the probe
// asks nothing of the input.
func checkErr(err error) error {
	if c := Classify(err); errors.Is(c, ErrUnavailable) {
		return c
	}
	return &unavailableError{err: fmt.Errorf("write check: %w", err)}
}
