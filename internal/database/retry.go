package database

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/uptrace/bun"
)

// MaxAttempts bounds how often [Retry] runs a write when the database
// aborts it for a deadlock or a serialization failure.
const MaxAttempts = 5

// RunInTx runs fn in a transaction of db, as [Retry] runs a write: a
// transaction that the database aborted for a deadlock or a
// serialization failure runs again from the start, so fn must do all its
// work through tx and set what it returns afresh on each run. Its error
// is classified ([Classify]).
//
// When ctx carries a unit of work on db ([WithTx], [Atomically]), fn runs
// once in the unit's transaction instead: the unit commits, and runs
// again after an abort.
func RunInTx(ctx context.Context, db *bun.DB, fn func(ctx context.Context, tx bun.Tx) error) error {
	if tx, ok := JoinedTx(ctx, db); ok {
		return fn(ctx, tx)
	}
	return Retry(ctx, func() error { return db.RunInTx(ctx, nil, fn) })
}

// Atomically runs fn as one unit of work on db: every [RunInTx] on db
// with the context fn is given (and every store that asks [JoinedTx])
// does its work in one transaction, which commits when fn returns nil and
// rolls back otherwise. The unit runs again from the start after a
// deadlock or a serialization failure, as RunInTx does, so fn must have
// no effect outside the database that a second run would repeat. What was
// handed to [AfterCommit] runs after the commit. The error is classified.
func Atomically(ctx context.Context, db *bun.DB, fn func(ctx context.Context) error) error {
	var unit *Unit
	err := Retry(ctx, func() error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			ctx, unit = WithTx(ctx, db, tx)
			return fn(ctx)
		})
	})
	if err == nil {
		unit.Committed()
	}
	return err
}

// Retry runs a write (one transaction, or one statement that is its own
// transaction). A write that the database aborted for a deadlock or a
// serialization failure ([Retryable]: PostgreSQL 40P01 and 40001,
// SQLite's SQLITE_BUSY_SNAPSHOT) runs again, up to [MaxAttempts] times
// with a jittered backoff of a few milliseconds, while ctx lasts. The
// error it returns is classified: one that says the database is
// unavailable wraps [ErrUnavailable].
func Retry(ctx context.Context, write func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = write(); err == nil {
			return nil
		}
		if attempt == MaxAttempts || !Retryable(err) {
			return Classify(err)
		}
		backoff := time.Duration(1<<attempt) * time.Millisecond // 2, 4, 8, 16 ms
		t := time.NewTimer(backoff/2 + rand.N(backoff))
		select {
		case <-ctx.Done():
			t.Stop()
			return Classify(err)
		case <-t.C:
		}
	}
}

// Retryable reports whether the database aborted a transaction that may
// succeed when run again: a deadlock or a serialization failure.
func Retryable(err error) bool {
	var pg interface{ Field(byte) string } // pgdriver.Error
	if errors.As(err, &pg) {
		code := pg.Field('C')
		return code == "40P01" || code == "40001"
	}
	var lite interface{ Code() int } // modernc.org/sqlite's *Error
	if errors.As(err, &lite) {
		return lite.Code() == 517 // SQLITE_BUSY_SNAPSHOT: a WAL snapshot went stale
	}
	return false
}
