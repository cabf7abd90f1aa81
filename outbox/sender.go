package outbox

import (
	"context"
	"log/slog"
	"time"
)

// The parts every sender of the outbox shares (package notify's e-mail,
// package webhooks's sender): what it needs of the outbox, its batches of
// claims under a heartbeat, and its loop of drains and prunes.

// Queue is what a sender needs of the outbox; *[Outbox] implements it.
type Queue interface {
	Renewer
	Claim(ctx context.Context, kind Kind, limit int, lease time.Duration) ([]Message, error)
	MarkSent(ctx context.Context, id string) error
	MarkFailed(ctx context.Context, id, reason string, permanent bool) (time.Time, error)
	Prune(ctx context.Context, before time.Time) (int, error)
}

// Defaults of the senders. The lease is short because a working sender
// renews it (every third of a lease, its [Heartbeat]): the rows a dead
// sender had claimed are due again DefaultLease after its last
// heartbeat.
const (
	DefaultBatch     = 20
	DefaultLease     = 30 * time.Second
	DefaultRetention = 7 * 24 * time.Hour
)

// Batches claims rows of kind from q, up to batch at a time (0 means
// [DefaultBatch]) with a lease (0 means [DefaultLease]) renewed by a
// [Heartbeat] while it works, and gives each batch to deliver, until
// none is due, ctx ends, deliver says stop or fails. deliver releases
// each row from the heartbeat ([Heartbeat.Release]) once its attempt is
// over. The error is the claim's or deliver's.
func Batches(ctx context.Context, q Queue, kind Kind, batch int, lease time.Duration, log *slog.Logger,
	deliver func(ctx context.Context, hb *Heartbeat, msgs []Message) (stop bool, err error)) error {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if lease <= 0 {
		lease = DefaultLease
	}
	hb := StartHeartbeat(ctx, q, lease, log)
	defer hb.Stop()
	for ctx.Err() == nil {
		msgs, err := q.Claim(ctx, kind, batch, lease)
		if err != nil || len(msgs) == 0 {
			return err
		}
		hb.Hold(msgs)
		if stop, err := deliver(ctx, hb, msgs); stop || err != nil {
			return err
		}
	}
	return nil
}

// Loop runs a sender: Drain at once, then at each Wake and every
// Interval, until ctx is done, and Prune of what was delivered more than
// Retention ago (0 means [DefaultRetention]) about once an hour. A
// failure is logged (as What, such as "e-mail") and tried again at the
// next poll.
type Loop struct {
	What      string
	Drain     func(ctx context.Context) error
	Prune     func(ctx context.Context, before time.Time) error
	Interval  time.Duration    // required
	Wake      <-chan struct{}  // nil: polls only
	Now       func() time.Time // nil means time.Now
	Log       *slog.Logger     // nil means slog.Default()
	Retention time.Duration
}

// Run runs the loop until ctx is done.
func (l Loop) Run(ctx context.Context) {
	log, now, keep := l.Log, l.Now, l.Retention
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	if keep <= 0 {
		keep = DefaultRetention
	}
	t := time.NewTicker(l.Interval)
	defer t.Stop()
	var pruned time.Time
	for {
		if err := l.Drain(ctx); err != nil && ctx.Err() == nil {
			log.Error("draining the outbox", "what", l.What, "error", err.Error())
		}
		if n := now(); ctx.Err() == nil && n.Sub(pruned) >= time.Hour {
			if err := l.Prune(ctx, n.Add(-keep)); err != nil && ctx.Err() == nil {
				log.Error("pruning the outbox", "what", l.What, "error", err.Error())
			} else {
				pruned = n
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-l.Wake:
		case <-t.C:
		}
	}
}
