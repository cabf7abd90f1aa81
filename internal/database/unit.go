package database

import (
	"context"
	"sync"

	"github.com/uptrace/bun"
)

// A unit of work is one write transaction that several stores sharing a
// database join, so that what must hold together commits together: a
// write and the idempotency key that guards it, a record and the event
// that reports it. The code that begins the transaction puts it in the
// context with [WithTx]; a store about to begin its own transaction on
// the same pool asks [JoinedTx] first and, when the context carries one,
// does its work in it instead ([RunInTx] does so itself), leaving the commit (and any retry of the
// whole unit) to the code that began it. Work that must wait for the
// commit, such as waking the readers of an event log, is handed to
// [AfterCommit].

// unitKey is the context key of the unit of work on one pool.
type unitKey struct{ db *bun.DB }

// Unit is the unit of work [WithTx] put in a context.
type Unit struct {
	tx    bun.Tx
	mu    sync.Mutex
	after []func()
}

// WithTx returns a context carrying tx as the unit of work on db, and the
// unit, whose [Unit.Committed] the caller calls once tx has committed.
func WithTx(ctx context.Context, db *bun.DB, tx bun.Tx) (context.Context, *Unit) {
	u := &Unit{tx: tx}
	return context.WithValue(ctx, unitKey{db}, u), u
}

// JoinedTx returns the transaction of the unit of work that ctx carries
// for db, and whether it carries one.
func JoinedTx(ctx context.Context, db *bun.DB) (bun.Tx, bool) {
	u, ok := ctx.Value(unitKey{db}).(*Unit)
	if !ok {
		return bun.Tx{}, false
	}
	return u.tx, true
}

// AfterCommit hands f to the unit of work that ctx carries for db, to run
// once it has committed (never, if it rolls back), and reports whether
// ctx carries one. When it does not, the caller's own transaction is the
// whole unit and the caller runs f after its commit itself.
func AfterCommit(ctx context.Context, db *bun.DB, f func()) bool {
	u, ok := ctx.Value(unitKey{db}).(*Unit)
	if !ok {
		return false
	}
	u.mu.Lock()
	u.after = append(u.after, f)
	u.mu.Unlock()
	return true
}

// Committed runs, in order, what was handed to [AfterCommit]; the code
// that began the unit calls it after the commit.
func (u *Unit) Committed() {
	if u == nil {
		return
	}
	u.mu.Lock()
	after := u.after
	u.after = nil
	u.mu.Unlock()
	for _, f := range after {
		f()
	}
}

// Within is what a store writes a single statement through: the
// transaction of the unit of work that ctx carries on db, or db itself
// (the statement then its own transaction). On SQLite a statement sent
// to db's one connection while a unit holds it would wait for the unit
// that waits for it.
func Within(ctx context.Context, db *bun.DB) bun.IDB {
	if tx, ok := JoinedTx(ctx, db); ok {
		return tx
	}
	return db
}
