package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// What the packages around the board use that keep tables of their own in
// its database and write them together with an agent or a reply (package
// mailbox: the agents' e-mail addresses and the replies that come by
// e-mail). They write the board's records only through these methods, and
// check their input by the board's rules, with its error shape.

// InTx runs fn in one write transaction of the store's database, as
// every write of the board runs: a transaction that the database aborted
// for a deadlock or a serialization failure runs again from the start,
// and an error that says the database is unavailable comes back wrapping
// [ErrUnavailable]. fn must therefore do all its work through tx.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return s.inTx(ctx, fn)
}

// Now is the store's clock ([Options.Now]) as it stamps its rows: UTC,
// to the microsecond.
func (s *Store) Now() time.Time { return s.clock() }

// LockClause is " FOR UPDATE" on PostgreSQL and "" on SQLite, whose
// single writer and immediate transactions serialise writes without row
// locks: what a SELECT inside [Store.InTx] appends to lock the rows it
// reads.
func (s *Store) LockClause() string { return s.forUpdate() }

// SeeAgent records, inside tx (a transaction of [Store.InTx]), that the
// agent id was active now: an agent that does not exist is created, named
// name (its id when name is ""); an existing one gets its last_seen and,
// when name is not "" and chosen is true or its name is still the default
// (its id), the name name. On PostgreSQL the agent's row stays locked
// until tx ends. It returns the agent as written, read through tx, and
// whether it was created.
//
// The caller checks id and name first ([CheckAgentID], [CheckAgentName]).
func (s *Store) SeeAgent(ctx context.Context, tx bun.Tx, id, name string, chosen bool) (Agent, bool, error) {
	now := s.clock()
	var prev []string
	if err := tx.NewRaw(`SELECT name FROM agents WHERE id = ?`+s.forUpdate(), id).Scan(ctx, &prev); err != nil {
		return Agent{}, false, err
	}
	created := len(prev) == 0
	switch {
	case created:
		if name == "" {
			name = id
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO agents (id, name, flags, first_seen, last_seen)
	VALUES (?, ?, ?, ?, ?)`, id, name, s.flags(name), now, now); err != nil {
			return Agent{}, false, err
		}
	case name != "" && (chosen || prev[0] == id):
		if _, err := tx.ExecContext(ctx, `UPDATE agents SET last_seen = ?, name = ?, flags = ? WHERE id = ?`, now, name, s.flags(name), id); err != nil {
			return Agent{}, false, err
		}
	default:
		if _, err := tx.ExecContext(ctx, `UPDATE agents SET last_seen = ? WHERE id = ?`, now, id); err != nil {
			return Agent{}, false, err
		}
	}
	a, err := s.agentFrom(ctx, tx, id)
	return a, created, err
}

// AddPerson creates, inside tx (a transaction of [Store.InTx]), the
// forecaster id of kind [KindPerson], named name (its id when name is
// ""), first and last seen now, and returns it as written. Its writes
// then carry Kind [KindPerson].
//
// Errors: a *[ValidationError] on agent_id or agent_name for an id or a
// name the board refuses ([CheckAgentID], [CheckAgentName]); a
// *[ValidationError] on person_id wrapping [ErrTaken] (and
// [ErrConflict]) when a forecaster of either kind has the id, even one
// created by a transaction racing with this one (the insert does nothing
// on a conflict, and its returning no row is the refusal).
func (s *Store) AddPerson(ctx context.Context, tx bun.Tx, id, name string) (Agent, error) {
	if err := checkAgentID(id); err != nil {
		return Agent{}, err
	}
	name, err := checkAgentName(name)
	if err != nil {
		return Agent{}, err
	}
	if name == "" {
		name = id
	}
	now := s.clock()
	var made []string
	if err := tx.NewRaw(`INSERT INTO agents (id, name, kind, flags, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO NOTHING RETURNING id`, id, name, KindPerson, s.flags(name), now, now).Scan(ctx, &made); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Agent{}, fmt.Errorf("board: add person: %w", err)
	}
	if len(made) == 0 {
		return Agent{}, Invalid("person_id", fmt.Sprintf("%q is taken", id), "choose another id", ErrTaken, ErrConflict)
	}
	return s.agentFrom(ctx, tx, id)
}

// ReplyThen records a reply as [Store.Reply] does and runs then inside
// the reply's transaction, after the reply is written: an error from
// then rolls the reply back, and a retried transaction runs it again.
// Package mailbox records there the e-mail a reply came by, so that the
// same message delivered twice makes one reply.
func (s *Store) ReplyThen(ctx context.Context, predictionID string, nr NewReply, then func(ctx context.Context, tx bun.Tx, r Reply) error) (Reply, error) {
	return s.reply(ctx, predictionID, nr, then)
}

// ReplyByID returns one reply, as [Store.Thread] lists it.
//
// Errors: [ErrNotFound] (wrapped) for an unknown reply.
func (s *Store) ReplyByID(ctx context.Context, id string) (Reply, error) {
	if err := checkRef("id", id); err != nil {
		return Reply{}, err
	}
	var rows []replyRow
	if err := s.read.NewRaw(`SELECT `+replyCols+` FROM replies AS r WHERE r.id = ?`, id).Scan(ctx, &rows); err != nil {
		return Reply{}, fmt.Errorf("board: reply: %w", err)
	}
	if len(rows) == 0 {
		return Reply{}, notFound("reply", id)
	}
	return rows[0].reply(), nil
}

// CheckAgentID refuses an agent id that does not follow [AgentIDPattern],
// with a *[ValidationError] on agent_id.
func CheckAgentID(id string) error { return checkAgentID(id) }

// CheckAgentName checks an optional display name and returns it trimmed
// ("" when not given); a *[ValidationError] on agent_name when it is too
// long or not one line of UTF-8.
func CheckAgentName(name string) (string, error) { return checkAgentName(name) }

// CheckRef refuses an id that no row can have (a control character, not
// UTF-8) with a *[ValidationError] on field, before it reaches the
// database.
func CheckRef(field, id string) error { return checkRef(field, id) }

// CanonicalDomain returns the spelling in [Domains] of s, compared
// without regard to case; a *[ValidationError] on field when it is none.
func CanonicalDomain(field, s string) (string, error) { return canonicalDomain(field, s) }

// agentFrom reads one agent through db (a transaction, or the write pool
// right after a write, so that a SQLite reader cannot miss it).
func (s *Store) agentFrom(ctx context.Context, db bun.IDB, id string) (Agent, error) {
	var rows []agentRow
	if err := db.NewRaw(`SELECT `+agentCols+` FROM agents WHERE id = ?`, id).Scan(ctx, &rows); err != nil {
		return Agent{}, fmt.Errorf("board: agent: %w", err)
	}
	if len(rows) == 0 {
		return Agent{}, notFound("agent", id)
	}
	return rows[0].agent(), nil
}
