package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ErrNotPending: a failure was reported for a message that is no longer
// pending: another sender, whose claim came after the reporter's lease
// had ended, sent it or gave it up, or its address unsubscribed while it
// was in flight. The report changes nothing.
var ErrNotPending = errors.New("board: outbox message no longer pending")

// OutboxMessage is a message claimed for sending by [Store.ClaimOutbox].
type OutboxMessage struct {
	ID           string
	PredictionID string
	Recipient    string // the address to send to (SMTP RCPT TO)
	From         string // the envelope sender (SMTP MAIL FROM): Mail.From's address
	Message      []byte // the whole message, CRLF line ends, ready for DATA
	Attempts     int    // including this one
}

// OutboxStatus is the state of an outbox row.
type OutboxStatus string

// The outbox states.
const (
	OutboxPending OutboxStatus = "pending" // to be sent, at next_attempt_at
	OutboxSent    OutboxStatus = "sent"
	OutboxFailed  OutboxStatus = "failed" // given up; last_error says why
)

// OutboxEntry is an outbox row, as listed by [Store.Outbox].
type OutboxEntry struct {
	ID            string       `json:"id"`
	PredictionID  string       `json:"prediction_id"`
	ReplyID       string       `json:"reply_id,omitempty"` // "" for the prediction's own notification
	Recipient     string       `json:"recipient"`
	Status        OutboxStatus `json:"status"`
	Attempts      int          `json:"attempts"`
	NextAttemptAt *time.Time   `json:"next_attempt_at,omitempty"` // pending rows only
	CreatedAt     time.Time    `json:"created_at"`
	SentAt        *time.Time   `json:"sent_at,omitempty"`
	LastError     string       `json:"last_error,omitempty"`
	Message       []byte       `json:"-"`
}

// ClaimOutbox claims up to limit pending messages that are due, oldest
// due first, for one sending attempt: it counts the attempt and moves
// their next_attempt_at lease ahead, so that no other sender claims them
// meanwhile. The caller then reports each with [Store.MarkSent] or
// [Store.MarkFailed]; a message neither reported (the sender died) is due
// again when the lease ends, so delivery is at least once: a sender that
// dies after the mail server accepted a message and before MarkSent
// committed leaves it to be sent again, a duplicate. A sender working
// longer than the lease renews it with [Store.RenewLease].
//
// On PostgreSQL several replicas may claim at once: the rows are picked
// with FOR UPDATE SKIP LOCKED, so each claim gets different rows without
// waiting. On SQLite the single writer serialises claims.
func (s *Store) ClaimOutbox(ctx context.Context, limit int, lease time.Duration) ([]OutboxMessage, error) {
	if limit <= 0 {
		limit = 1
	}
	now := s.clock()
	skip := ""
	if s.pg {
		skip = " FOR UPDATE SKIP LOCKED"
	}
	var rows []struct {
		ID           string `bun:"id"`
		PredictionID string `bun:"prediction_id"`
		Recipient    string `bun:"recipient"`
		Message      []byte `bun:"message"`
		Attempts     int    `bun:"attempts"`
	}
	err := s.write.NewRaw(`UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?
	WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= ?
		ORDER BY next_attempt_at, id LIMIT ?`+skip+`)
	RETURNING id, COALESCE(prediction_id, '') AS prediction_id, recipient, message, attempts`, now.Add(lease), now, limit).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("board: claim outbox: %w", err)
	}
	out := make([]OutboxMessage, 0, len(rows))
	from := ""
	if s.mail != nil {
		from = s.mail.from.Address
	}
	for _, r := range rows {
		out = append(out, OutboxMessage{ID: r.ID, PredictionID: r.PredictionID, Recipient: r.Recipient,
			From: from, Message: r.Message, Attempts: r.Attempts})
	}
	return out, nil
}

// RenewLease moves the lease of claimed messages ahead to now + lease: a
// sender calls it while it works (its heartbeat), so that the lease can
// be short and a dead sender's messages are due again soon. A message is
// renewed only while it is still pending with the attempt count of its
// claim; one another sender has claimed since (its attempt count grew) or
// that was reported is left alone. It returns how many were renewed.
func (s *Store) RenewLease(ctx context.Context, msgs []OutboxMessage, lease time.Duration) (int, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	until := s.clock().Add(lease)
	n := 0
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
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
		return 0, fmt.Errorf("board: renew lease: %w", err)
	}
	return n, nil
}

// MarkSent records that a claimed message was accepted by the mail
// server.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id.
func (s *Store) MarkSent(ctx context.Context, id string) error {
	res, err := s.write.ExecContext(ctx, `UPDATE outbox SET status = 'sent', sent_at = ?, next_attempt_at = NULL, last_error = ''
	WHERE id = ?`, s.clock(), id)
	if err != nil {
		return fmt.Errorf("board: mark sent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("outbox message", id)
	}
	return nil
}

// MarkFailed records a failed attempt to send a claimed message. A
// temporary failure makes it due again after [Backoff] of its attempts,
// until [MailOptions.MaxAttempts] attempts have failed; a permanent one
// (the server refused the recipient or the message) gives up at once. A
// message given up keeps status failed and the reason. It returns when
// the message is due again, zero when given up. A report on a message
// that is no longer pending changes nothing: it must neither send again
// what another sender sent after this one's lease ended, nor what an
// address that unsubscribed meanwhile no longer wants.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id; [ErrNotPending]
// (wrapped) for a message sent or given up meanwhile.
func (s *Store) MarkFailed(ctx context.Context, id, reason string, permanent bool) (time.Time, error) {
	maxAttempts := DefaultMaxAttempts
	if s.mail != nil {
		maxAttempts = s.mail.maxAttempts
	}
	now := s.clock()
	var retry time.Time
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var rows []struct {
			Attempts int    `bun:"attempts"`
			Status   string `bun:"status"`
		}
		if err := tx.NewRaw(`SELECT attempts, status FROM outbox WHERE id = ?`+s.forUpdate(), id).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			return notFound("outbox message", id)
		}
		if rows[0].Status != string(OutboxPending) {
			return fmt.Errorf("%w: message %s is %s", ErrNotPending, id, rows[0].Status)
		}
		status, next := "failed", any(nil)
		if !permanent && rows[0].Attempts < maxAttempts {
			retry = now.Add(Backoff(rows[0].Attempts))
			status, next = "pending", retry
		}
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET status = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`,
			status, next, reason, id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotPending) {
			return time.Time{}, err
		}
		return time.Time{}, fmt.Errorf("board: mark failed: %w", err)
	}
	return retry, nil
}

// OutboxBacklog is the number of messages waiting to be sent (pending,
// due or not), for metrics.
func (s *Store) OutboxBacklog(ctx context.Context) (int, error) {
	var n int
	if err := s.read.NewRaw(`SELECT COUNT(*) FROM outbox WHERE status = 'pending'`).Scan(ctx, &n); err != nil {
		return 0, fmt.Errorf("board: outbox backlog: %w", err)
	}
	return n, nil
}

// PruneOutbox deletes the messages sent before t and returns how many.
// Failed messages are kept for the operator to read. It also deletes the
// registrations made and expired before t (t is normally days ago, so the
// caps of the last [CapWindow] still count them).
func (s *Store) PruneOutbox(ctx context.Context, before time.Time) (int, error) {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM email_confirmations WHERE created_at < ? AND expires_at < ?`,
		before.UTC(), before.UTC()); err != nil {
		return 0, fmt.Errorf("board: prune registrations: %w", err)
	}
	res, err := s.write.ExecContext(ctx, `DELETE FROM outbox WHERE status = 'sent' AND sent_at < ?`, before.UTC())
	if err != nil {
		return 0, fmt.Errorf("board: prune outbox: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Outbox lists a prediction's outbox rows, oldest first, for operators
// and tests.
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction.
func (s *Store) Outbox(ctx context.Context, predictionID string) ([]OutboxEntry, error) {
	if err := s.exists(ctx, predictionID); err != nil {
		return nil, err
	}
	var rows []struct {
		ID           string         `bun:"id"`
		PredictionID string         `bun:"prediction_id"`
		ReplyID      sql.NullString `bun:"reply_id"`
		Recipient    string         `bun:"recipient"`
		Status       string         `bun:"status"`
		Attempts     int            `bun:"attempts"`
		NextAttempt  bun.NullTime   `bun:"next_attempt_at"`
		CreatedAt    time.Time      `bun:"created_at"`
		SentAt       bun.NullTime   `bun:"sent_at"`
		LastError    string         `bun:"last_error"`
		Message      []byte         `bun:"message"`
	}
	if err := s.read.NewRaw(`SELECT id, prediction_id, reply_id, recipient, status, attempts, next_attempt_at,
	created_at, sent_at, last_error, message FROM outbox WHERE prediction_id = ? ORDER BY created_at, id`, predictionID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: outbox: %w", err)
	}
	out := make([]OutboxEntry, 0, len(rows))
	for _, r := range rows {
		e := OutboxEntry{ID: r.ID, PredictionID: r.PredictionID, ReplyID: r.ReplyID.String, Recipient: r.Recipient,
			Status: OutboxStatus(r.Status), Attempts: r.Attempts, CreatedAt: r.CreatedAt.UTC(), LastError: r.LastError, Message: r.Message}
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
