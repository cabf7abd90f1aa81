package notify

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/predictions-md/predictions/outbox"
)

// Outbox is what a [Sender] needs of the outbox; *outbox.Outbox
// implements it.
type Outbox = outbox.Queue

// Registrations is the mailbox's part of the hourly pruning: the
// registrations that expired; *mailbox.Box implements it.
type Registrations interface {
	PruneRegistrations(ctx context.Context, before time.Time) (int, error)
}

// Defaults of [Sender]. The lease is short because a working sender
// renews it (every third of a lease, its heartbeat): the messages a dead
// sender had claimed are due again DefaultLease after its last heartbeat,
// and another sender polling every DefaultInterval sends them within
// DefaultLease + DefaultInterval (35 s), under a minute.
const (
	DefaultInterval  = 5 * time.Second
	DefaultBatch     = outbox.DefaultBatch
	DefaultLease     = outbox.DefaultLease
	DefaultRetention = outbox.DefaultRetention
)

// Sender drains an outbox through an SMTP server. Its fields are set
// before [Sender.Run] or [Sender.Drain] and not changed after.
type Sender struct {
	Outbox Outbox
	SMTP   SMTP
	// From is the envelope sender (MAIL FROM): the board's address.
	From string
	// Registrations, when set, has its expired registrations pruned with
	// the sent messages.
	Registrations Registrations
	// Log receives a line per failure; nil means slog.Default().
	Log *slog.Logger
	// Interval is the wait between polls of the outbox; 0 means
	// [DefaultInterval].
	Interval time.Duration
	// Batch is how many messages one claim takes; 0 means [DefaultBatch].
	Batch int
	// Lease is how long a claimed message is reserved for this sender
	// without a heartbeat; 0 means [DefaultLease]. While it sends, the
	// sender renews the lease of the messages it holds every Lease/3, so
	// a batch may take longer than one lease.
	Lease time.Duration
	// Retention is how long sent messages are kept before Run prunes
	// them; 0 means [DefaultRetention].
	Retention time.Duration
	// Now is the clock for pruning; nil means time.Now.
	Now func() time.Time
}

// Result counts what one [Sender.Drain] did.
type Result struct {
	Sent    int // accepted by the server
	Retried int // failed, due again later
	GaveUp  int // failed for good: refused permanently or out of attempts
}

func (s *Sender) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Drain sends every message that is due, batch by batch, over one SMTP
// session (reopened after a broken one), and returns when none is left or
// ctx is done. ctx is checked between messages; a message claimed and not
// sent when ctx ends stays reserved until its lease ends and is then
// retried. The error is the store's; SMTP failures are recorded on the
// messages and counted in the result.
func (s *Sender) Drain(ctx context.Context) (Result, error) {
	var res Result
	var c *conn
	defer func() {
		if c != nil {
			c.close()
		}
	}()
	err := outbox.Batches(ctx, s.Outbox, outbox.Email, s.Batch, s.Lease, s.log(), func(ctx context.Context, hb *outbox.Heartbeat, msgs []outbox.Message) (bool, error) {
		for i, m := range msgs {
			if ctx.Err() != nil {
				return true, nil
			}
			if c == nil {
				var err error
				if c, err = dial(s.SMTP); err != nil {
					// The server cannot be reached: every claimed message
					// waits for its backoff.
					for _, rest := range msgs[i:] {
						hb.Release(rest.ID)
						if err := s.failed(ctx, rest, "connecting to "+s.SMTP.String()+": "+err.Error(), false, &res); err != nil {
							return true, err
						}
					}
					return true, nil
				}
			}
			err := c.send(s.From, m.Recipient, m.Payload)
			hb.Release(m.ID)
			if err == nil {
				if err := s.Outbox.MarkSent(ctx, m.ID); err != nil {
					return true, err
				}
				res.Sent++
				continue
			}
			var se *sendError
			permanent := errors.As(err, &se) && se.permanent
			if se == nil || se.broken {
				c.close()
				c = nil
			}
			if err := s.failed(ctx, m, err.Error(), permanent, &res); err != nil {
				return true, err
			}
		}
		return false, nil
	})
	return res, err
}

func (s *Sender) failed(ctx context.Context, m outbox.Message, reason string, permanent bool, res *Result) error {
	retry, err := s.Outbox.MarkFailed(ctx, m.ID, reason, permanent)
	if errors.Is(err, outbox.ErrNotPending) {
		// Sent by another sender after this one's lease ended, or its
		// address unsubscribed meanwhile: nothing to retry.
		s.log().Info("e-mail not sent, and no longer pending", "outbox_id", m.ID, "prediction_id", m.Topic,
			"recipient", m.Recipient, "error", reason, "status", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	if retry.IsZero() {
		res.GaveUp++
		s.log().Error("e-mail given up", "outbox_id", m.ID, "prediction_id", m.Topic, "recipient", m.Recipient,
			"attempts", m.Attempts, "error", reason)
		return nil
	}
	res.Retried++
	s.log().Warn("e-mail not sent; will retry", "outbox_id", m.ID, "prediction_id", m.Topic, "recipient", m.Recipient,
		"attempts", m.Attempts, "retry_at", retry.Format(time.RFC3339), "error", reason)
	return nil
}

// Run drains the outbox at once and then every Interval until ctx is
// done, and prunes sent messages older than Retention about once an hour.
// It never returns an error: a failing database or server is logged and
// tried again at the next poll. It returns when ctx is done, after the
// message being sent, if any, is finished (bounded by SMTP.Timeout).
func (s *Sender) Run(ctx context.Context) {
	outbox.Loop{What: "e-mail", Interval: cmp.Or(s.Interval, DefaultInterval), Retention: s.Retention, Now: s.Now, Log: s.log(),
		Drain: func(ctx context.Context) error { _, err := s.Drain(ctx); return err },
		Prune: s.prune}.Run(ctx)
}

// prune deletes the messages sent before t and the registrations made and
// expired before it.
func (s *Sender) prune(ctx context.Context, before time.Time) error {
	if s.Registrations != nil {
		if _, err := s.Registrations.PruneRegistrations(ctx, before); err != nil {
			return err
		}
	}
	_, err := s.Outbox.Prune(ctx, before)
	return err
}
