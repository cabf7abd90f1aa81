package outbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Kind says who delivers a row: the sender that claims that kind.
type Kind string

// The kinds of delivery.
const (
	Email   Kind = "email"   // an RFC 5322 message, sent over SMTP (package notify)
	Webhook Kind = "webhook" // an HTTP POST signed as Standard Webhooks (package webhooks)
)

// InOrder says whether rows of kind k are delivered in order per
// recipient: a row is claimed only once every earlier row of its kind to
// the same recipient (by [Item.Seq], then id) is sent or given up, so a
// failure holds back the recipient's later rows until its retry, and
// other recipients not at all. Webhooks are: a receiver down for a while
// gets every event afterwards in the order of the event log. E-mail is
// not: a message waiting out its backoff holds up no other.
func (k Kind) InOrder() bool { return k == Webhook }

// Status is the state of a row.
type Status string

// The states of a row.
const (
	Pending Status = "pending" // to be delivered, at next_attempt_at
	Sent    Status = "sent"
	Failed  Status = "failed" // given up; last_error says why
)

// Errors of the outbox's methods.
var (
	// ErrNotFound: no row has the id given.
	ErrNotFound = errors.New("outbox: no such row")
	// ErrNotPending: a failure was reported for a row that is no longer
	// pending: another sender, whose claim came after the reporter's lease
	// had ended, delivered it or gave it up, or it was cancelled while in
	// flight. The report changes nothing.
	ErrNotPending = errors.New("outbox: row no longer pending")
)

// Retry schedule: the wait after the n-th failed attempt is [Backoff](n),
// RetryBase doubling up to RetryMax, with jitter; [DefaultMaxAttempts]
// tries in all (about seven hours from the first to the last).
const (
	RetryBase          = 30 * time.Second
	RetryMax           = time.Hour
	DefaultMaxAttempts = 12
)

// Backoff is the longest wait after the attempt-th failed attempt
// (1-based): RetryBase · 2^(attempt−1), at most RetryMax. The wait
// [Outbox.MarkFailed] schedules is between half of it and all of it.
func Backoff(attempt int) time.Duration {
	d := RetryBase
	for i := 1; i < attempt && d < RetryMax; i++ {
		d *= 2
	}
	return min(d, RetryMax)
}

// jittered is "equal jitter" (Brooker, "Exponential Backoff And Jitter",
// AWS Architecture Blog, 2015): the backoff less a uniform share of its
// half, so that rows that failed together (a receiver that was down) do
// not all come due in the same instant. u is in [0, 1); 0 waits the whole
// backoff.
func jittered(d time.Duration, u float64) time.Duration {
	return d - time.Duration(u*float64(d/2))
}

// Options configure an [Outbox]. The zero value is usable.
type Options struct {
	// Now returns the current time; nil means time.Now. Stored times are
	// truncated to microseconds and kept in UTC.
	Now func() time.Time
	// MaxAttempts is how many times a row is tried before it is given up;
	// 0 means [DefaultMaxAttempts].
	MaxAttempts int
	// Rand returns a number in [0, 1) for the jitter of the backoff (0
	// waits the whole [Backoff]); nil means math/rand/v2's Float64.
	Rand func() float64
	// RetryFor gives the kinds retried for a time rather than a number of
	// attempts: a row of such a kind is tried until this long after its
	// first attempt (at once, or, for an ordered kind, when the rows
	// before it are done), whatever MaxAttempts says, its last retry at
	// that time. Standard Webhooks senders retry
	// for about a day; nil means every kind counts attempts.
	RetryFor map[Kind]time.Duration
}

// Outbox is the durable queue of deliveries, kept in a table of the
// database it is given. It is safe for concurrent use.
type Outbox struct {
	db          *bun.DB
	pg          bool
	now         func() time.Time
	rand        func() float64
	maxAttempts int
	retryFor    map[Kind]time.Duration
}

// Open returns the outbox kept in db, creating its table or moving into
// it the rows of the board's former e-mail outbox (see the package
// documentation, "Upgrade"). db is the pool that writes: on SQLite the
// board's single writer ([board.Store.WriteDB]), so that enqueueing inside a
// board transaction and claiming take turns on one connection.
func Open(ctx context.Context, db *bun.DB, opt Options) (*Outbox, error) {
	o := &Outbox{db: db, pg: db.Dialect().Name() == dialect.PG, now: opt.Now, rand: opt.Rand, maxAttempts: opt.MaxAttempts,
		retryFor: opt.RetryFor}
	if o.now == nil {
		o.now = time.Now
	}
	if o.rand == nil {
		o.rand = rand.Float64
	}
	if o.maxAttempts <= 0 {
		o.maxAttempts = DefaultMaxAttempts
	}
	if err := migrateDB(ctx, db); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Outbox) clock() time.Time { return o.now().UTC().Truncate(time.Microsecond) }

func (o *Outbox) forUpdate() string {
	if o.pg {
		return " FOR UPDATE"
	}
	return ""
}

// Item is a delivery to enqueue.
type Item struct {
	Kind      Kind
	Topic     string // what it is about, for [Outbox.List]; may be ""
	Ref       string // the record that caused it; may be ""
	Recipient string // an address, or an endpoint
	Payload   []byte // what the sender delivers, as it is
	// Seq orders a recipient's rows of a kind delivered in order
	// ([Kind.InOrder]): lower first, equal ones by id (enqueue order). The
	// fan-out of an event log gives the event's id; 0 otherwise.
	Seq int64
	// Failed, when not "", stores the item given up at once with this
	// reason: a payload that could not be made is kept for the operator to
	// read, not delivered.
	Failed string
}

// Enqueue writes items through db, normally the transaction of the change
// that caused them, so that they are stored if and only if it commits. It
// returns their ids, in order. A pending item is due at once. The items
// go in multi-row statements ([database.InsertRows]): a fan-out of an
// event to a thousand endpoints is two statements, not a thousand.
func (o *Outbox) Enqueue(ctx context.Context, db bun.IDB, items ...Item) ([]string, error) {
	now := o.clock()
	ids := make([]string, 0, len(items))
	rows := make([][]any, 0, len(items))
	for _, it := range items {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("outbox: generating an id: %w", err)
		}
		status, next, payload := Pending, any(now), it.Payload
		if it.Failed != "" {
			status, next = Failed, nil
		}
		if payload == nil {
			payload = []byte{}
		}
		rows = append(rows, []any{id.String(), string(it.Kind), it.Topic, it.Ref, it.Recipient, payload, string(status), next, now, it.Failed, it.Seq})
		ids = append(ids, id.String())
	}
	if len(rows) == 0 {
		return ids, nil
	}
	if err := database.InsertRows(ctx, db, `INSERT INTO outbox
	(id, kind, topic, ref, recipient, payload, status, next_attempt_at, created_at, last_error, seq) VALUES `, rows, ""); err != nil {
		return nil, fmt.Errorf("outbox: enqueue: %w", err)
	}
	return ids, nil
}

// Message is a row claimed for one delivery attempt by [Outbox.Claim].
type Message struct {
	ID        string
	Kind      Kind
	Topic     string
	Ref       string
	Recipient string
	Payload   []byte
	Attempts  int // including this one
}

// Claim claims up to limit pending rows of kind that are due, oldest due
// first, for one delivery attempt: it counts the attempt and moves their
// next_attempt_at ahead by lease, so that no other sender claims them
// meanwhile. The caller then reports each with [Outbox.MarkSent] or
// [Outbox.MarkFailed]; a row neither reported (the sender died) is due
// again when the lease ends, so delivery is at least once: a sender that
// dies after the receiver accepted a payload and before MarkSent
// committed leaves it to be delivered again, a duplicate. A sender
// working longer than the lease renews it ([Outbox.Renew], [Heartbeat]).
//
// Of a kind delivered in order ([Kind.InOrder]) a claim takes only the
// head of each recipient, its earliest pending row, and only when it is
// due: a recipient's rows are attempted one at a time, in order, and a
// head that is leased or backing off holds back the rest of its
// recipient, no other.
//
// On PostgreSQL several replicas may claim at once: the rows are picked
// with FOR UPDATE SKIP LOCKED, so each claim gets different rows without
// waiting. On SQLite the single writer serialises claims.
func (o *Outbox) Claim(ctx context.Context, kind Kind, limit int, lease time.Duration) ([]Message, error) {
	if limit <= 0 {
		limit = 1
	}
	now := o.clock()
	skip := ""
	if o.pg {
		skip = " FOR UPDATE SKIP LOCKED"
	}
	var rows []struct {
		ID        string `bun:"id"`
		Kind      string `bun:"kind"`
		Topic     string `bun:"topic"`
		Ref       string `bun:"ref"`
		Recipient string `bun:"recipient"`
		Payload   []byte `bun:"payload"`
		Attempts  int    `bun:"attempts"`
	}
	head := ""
	if kind.InOrder() {
		// The recipient's earliest pending row, read from index
		// outbox_head. A correlated scalar subquery, not NOT EXISTS: on a
		// table PostgreSQL has not analyzed yet, it planned the anti-join
		// as a scan of every pending row per candidate (0.5 s for 1,000
		// rows behind 25 leased heads, against 8 ms).
		head = `
		AND o.id = (SELECT e.id FROM outbox e WHERE e.kind = o.kind AND e.recipient = o.recipient AND e.status = 'pending'
			ORDER BY e.seq, e.id LIMIT 1)`
	}
	err := database.Retry(ctx, func() error {
		rows = rows[:0]
		return o.db.NewRaw(`UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, first_attempt_at = COALESCE(first_attempt_at, ?)
	WHERE id IN (SELECT o.id FROM outbox o WHERE o.kind = ? AND o.status = 'pending' AND o.next_attempt_at <= ?`+head+`
		ORDER BY o.next_attempt_at, o.id LIMIT ?`+skip+`)
	RETURNING id, kind, topic, ref, recipient, payload, attempts`, now.Add(lease), now, string(kind), now, limit).Scan(ctx, &rows)
	})
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	out := make([]Message, 0, len(rows))
	for _, r := range rows {
		out = append(out, Message{ID: r.ID, Kind: Kind(r.Kind), Topic: r.Topic, Ref: r.Ref, Recipient: r.Recipient,
			Payload: r.Payload, Attempts: r.Attempts})
	}
	return out, nil
}

// Renew moves the lease of claimed rows ahead to now + lease: a sender
// calls it while it works (its heartbeat), so that the lease can be short
// and a dead sender's rows are due again soon. A row is renewed only
// while it is still pending with the attempt count of its claim; one
// another sender has claimed since (its attempt count grew) or that was
// reported is left alone. It returns how many were renewed.
func (o *Outbox) Renew(ctx context.Context, msgs []Message, lease time.Duration) (int, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	until := o.clock().Add(lease)
	n := 0
	err := database.RunInTx(ctx, o.db, func(ctx context.Context, tx bun.Tx) error {
		n = 0
		for _, m := range msgs {
			res, err := tx.ExecContext(ctx, `UPDATE outbox SET next_attempt_at = ?
	WHERE id = ? AND status = 'pending' AND attempts = ?`, until, m.ID, m.Attempts)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += int(k)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("outbox: renew lease: %w", err)
	}
	return n, nil
}

// MarkSent records that a claimed row was accepted by its receiver.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id.
func (o *Outbox) MarkSent(ctx context.Context, id string) error {
	var res sql.Result
	err := database.Retry(ctx, func() (err error) {
		res, err = o.db.ExecContext(ctx, `UPDATE outbox SET status = 'sent', sent_at = ?, next_attempt_at = NULL, last_error = ''
	WHERE id = ?`, o.clock(), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("outbox: mark sent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return nil
}

// MarkSentAll records that claimed rows were accepted by their receivers,
// in one statement: a sender with many attempts running reports them
// together, so that its reports take the write connection (on SQLite
// the board's only one) once rather than once a row. Ids of rows that do
// not exist are ignored.
func (o *Outbox) MarkSentAll(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	err := database.Retry(ctx, func() error {
		_, err := o.db.NewRaw(`UPDATE outbox SET status = 'sent', sent_at = ?, next_attempt_at = NULL, last_error = ''
	WHERE id IN (?)`, o.clock(), bun.List(ids)).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("outbox: mark sent: %w", err)
	}
	return nil
}

// MarkFailed records a failed attempt to deliver a claimed row. A
// temporary failure makes it due again after a jittered [Backoff] of its
// attempts, until [Options.MaxAttempts] attempts have failed; a permanent
// one (the receiver refused it) gives up at once. A row given up keeps
// status failed and the reason. It returns when the row is due again,
// zero when given up. A report on a row that is no longer pending changes
// nothing: it must neither deliver again what another sender delivered
// after this one's lease ended, nor what was cancelled meanwhile.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id; [ErrNotPending]
// (wrapped) for a row delivered, given up or cancelled meanwhile.
func (o *Outbox) MarkFailed(ctx context.Context, id, reason string, permanent bool) (time.Time, error) {
	now := o.clock()
	var retry time.Time
	err := database.RunInTx(ctx, o.db, func(ctx context.Context, tx bun.Tx) error {
		retry = time.Time{}
		var rows []struct {
			Attempts     int        `bun:"attempts"`
			Status       string     `bun:"status"`
			Kind         string     `bun:"kind"`
			CreatedAt    time.Time  `bun:"created_at"`
			FirstAttempt *time.Time `bun:"first_attempt_at"`
		}
		if err := tx.NewRaw(`SELECT attempts, status, kind, created_at, first_attempt_at FROM outbox WHERE id = ?`+o.forUpdate(), id).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		if rows[0].Status != string(Pending) {
			return fmt.Errorf("%w: %s is %s", ErrNotPending, id, rows[0].Status)
		}
		status, next := Failed, any(nil)
		retryFor, byTime := o.retryFor[Kind(rows[0].Kind)]
		// Counted from the first attempt: a row of an ordered kind may
		// wait behind its recipient's head for hours before it is tried.
		// A row claimed before first_attempt_at existed counts from its
		// creation.
		start := rows[0].CreatedAt
		if rows[0].FirstAttempt != nil {
			start = *rows[0].FirstAttempt
		}
		deadline := start.UTC().Add(retryFor)
		switch {
		case permanent:
		case byTime && now.Before(deadline):
			retry = now.Add(jittered(Backoff(rows[0].Attempts), o.rand())).Truncate(time.Microsecond)
			if retry.After(deadline) {
				retry = deadline
			}
			status, next = Pending, retry
		case !byTime && rows[0].Attempts < o.maxAttempts:
			retry = now.Add(jittered(Backoff(rows[0].Attempts), o.rand())).Truncate(time.Microsecond)
			status, next = Pending, retry
		}
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET status = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`,
			string(status), next, reason, id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotPending) {
			return time.Time{}, err
		}
		return time.Time{}, fmt.Errorf("outbox: mark failed: %w", err)
	}
	return retry, nil
}

// Cancel gives up, through db (normally the transaction of the change
// that asks for it, such as an address unsubscribing), every pending row
// of kind to one of recipients, with reason as its last error. It returns
// how many it gave up. A sender holding one of them finds it no longer
// pending when it reports.
func (o *Outbox) Cancel(ctx context.Context, db bun.IDB, kind Kind, recipients []string, reason string) (int, error) {
	if len(recipients) == 0 {
		return 0, nil
	}
	res, err := db.NewRaw(`UPDATE outbox SET status = 'failed', next_attempt_at = NULL, last_error = ?
	WHERE kind = ? AND status = 'pending' AND recipient IN (?)`, reason, string(kind), bun.List(recipients)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox: cancel: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Backlog is the number of rows waiting to be delivered (pending, due or
// not), of every kind, for metrics.
func (o *Outbox) Backlog(ctx context.Context) (int, error) {
	var n int
	if err := o.db.NewRaw(`SELECT COUNT(*) FROM outbox WHERE status = 'pending'`).Scan(ctx, &n); err != nil {
		return 0, fmt.Errorf("outbox: backlog: %w", err)
	}
	return n, nil
}

// Prune deletes the rows delivered before t and returns how many. Rows
// given up are kept for the operator to read.
func (o *Outbox) Prune(ctx context.Context, before time.Time) (int, error) {
	var res sql.Result
	err := database.Retry(ctx, func() (err error) {
		res, err = o.db.ExecContext(ctx, `DELETE FROM outbox WHERE status = 'sent' AND sent_at < ?`, before.UTC())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("outbox: prune: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Entry is a row, as listed by [Outbox.List].
type Entry struct {
	ID            string     `json:"id"`
	Kind          Kind       `json:"kind"`
	Topic         string     `json:"topic,omitempty"`
	Ref           string     `json:"ref,omitempty"`
	Recipient     string     `json:"recipient"`
	Status        Status     `json:"status"`
	Attempts      int        `json:"attempts"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"` // pending rows only
	CreatedAt     time.Time  `json:"created_at"`
	SentAt        *time.Time `json:"sent_at,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
	Payload       []byte     `json:"-"`
}

// List returns the rows about topic ("" lists those about nothing, such
// as confirmation messages), oldest first, for operators and tests.
func (o *Outbox) List(ctx context.Context, topic string) ([]Entry, error) {
	var rows []struct {
		ID          string       `bun:"id"`
		Kind        string       `bun:"kind"`
		Topic       string       `bun:"topic"`
		Ref         string       `bun:"ref"`
		Recipient   string       `bun:"recipient"`
		Status      string       `bun:"status"`
		Attempts    int          `bun:"attempts"`
		NextAttempt bun.NullTime `bun:"next_attempt_at"`
		CreatedAt   time.Time    `bun:"created_at"`
		SentAt      bun.NullTime `bun:"sent_at"`
		LastError   string       `bun:"last_error"`
		Payload     []byte       `bun:"payload"`
	}
	if err := o.db.NewRaw(`SELECT id, kind, topic, ref, recipient, status, attempts, next_attempt_at,
	created_at, sent_at, last_error, payload FROM outbox WHERE topic = ? ORDER BY created_at, id`, topic).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("outbox: list: %w", err)
	}
	out := make([]Entry, 0, len(rows))
	for _, r := range rows {
		e := Entry{ID: r.ID, Kind: Kind(r.Kind), Topic: r.Topic, Ref: r.Ref, Recipient: r.Recipient,
			Status: Status(r.Status), Attempts: r.Attempts, CreatedAt: r.CreatedAt.UTC(), LastError: r.LastError, Payload: r.Payload}
		if !r.NextAttempt.IsZero() {
			t := r.NextAttempt.UTC()
			e.NextAttemptAt = &t
		}
		if !r.SentAt.IsZero() {
			t := r.SentAt.UTC()
			e.SentAt = &t
		}
		out = append(out, e)
	}
	return out, nil
}

// Position returns, through tx, where the reader named reader has read
// to in an event log (0 at first), and locks its row until tx ends
// (FOR UPDATE on PostgreSQL; SQLite's single writer serialises tx): the
// reader enqueues what follows from the events after it and moves it
// ([Outbox.SetPosition]) in the same transaction, so that each event is
// enqueued once, whatever crashes, and replicas take turns.
func (o *Outbox) Position(ctx context.Context, tx bun.Tx, reader string) (int64, error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox_positions (reader, position) VALUES (?, 0) ON CONFLICT (reader) DO NOTHING`, reader); err != nil {
		return 0, fmt.Errorf("outbox: position of %s: %w", reader, err)
	}
	var pos int64
	if err := tx.NewRaw(`SELECT position FROM outbox_positions WHERE reader = ?`+o.forUpdate(), reader).Scan(ctx, &pos); err != nil {
		return 0, fmt.Errorf("outbox: position of %s: %w", reader, err)
	}
	return pos, nil
}

// SetPosition moves the reader's position to pos through tx, the
// transaction of its [Outbox.Position].
func (o *Outbox) SetPosition(ctx context.Context, tx bun.Tx, reader string, pos int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE outbox_positions SET position = ? WHERE reader = ?`, pos, reader); err != nil {
		return fmt.Errorf("outbox: set position of %s: %w", reader, err)
	}
	return nil
}
