package webhooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// DefaultInterval is how often a [Sender] polls the outbox when no
// [Sender.Kick] comes: rarely needed, since the fan-out kicks it.
const DefaultInterval = 2 * time.Second

// Sender delivers the queued webhooks. Its fields are set before
// [Sender.Run] or [Sender.Drain] and not changed after.
type Sender struct {
	// Endpoints are the endpoints delivered to, read and updated by
	// each delivery.
	Endpoints *Store
	Outbox    outbox.Queue
	// Client POSTs the deliveries: [NewClient]'s, which refuses the
	// addresses a webhook may not reach at each connection.
	Client *http.Client
	// Log receives a line per failure; nil means slog.Default().
	Log *slog.Logger
	// Interval is the wait between polls of the outbox when no
	// [Sender.Kick] comes; 0 means [DefaultInterval].
	Interval time.Duration
	// Batch is how many deliveries one claim takes; 0 means
	// outbox.DefaultBatch.
	Batch int
	// Lease is how long a claimed delivery is reserved without a
	// heartbeat; 0 means outbox.DefaultLease.
	Lease time.Duration
	// FailFor is how long an endpoint may fail before it is disabled; 0
	// means [RetryFor].
	FailFor time.Duration
	// Retention is how long delivered rows are kept before Run prunes
	// them (about once an hour); 0 means outbox.DefaultRetention.
	Retention time.Duration
	// Now is the clock of the signatures and of the failures; nil means
	// time.Now.
	Now func() time.Time

	kickOnce sync.Once
	kick     chan struct{}
}

func (s *Sender) kicks() chan struct{} {
	s.kickOnce.Do(func() { s.kick = make(chan struct{}, 1) })
	return s.kick
}

// Kick says that deliveries were queued ([FanOut.Queued]): Run drains at
// once rather than at its next poll. It never blocks.
func (s *Sender) Kick() {
	select {
	case s.kicks() <- struct{}{}:
	default:
	}
}

// Result counts what one [Sender.Drain] did.
type Result struct {
	Sent     int // accepted with a 2xx
	Retried  int // failed, due again later
	GaveUp   int // failed for good: out of time, or the endpoint deleted or disabled
	Disabled int // endpoints disabled
}

func (s *Sender) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Drain delivers every row that is due, batch by batch, and returns when
// none is left or ctx is done. The error is the store's; failed
// deliveries are recorded on their rows and counted in the result.
//
// A batch holds at most one row per endpoint (the outbox claims webhooks
// in order, only each endpoint's head), so its rows are attempted at
// once, each in a goroutine of its own: an endpoint that hangs until the
// client's timeout delays the others' deliveries by no more than that
// timeout, however many hang.
func (s *Sender) Drain(ctx context.Context) (Result, error) {
	var res Result
	err := outbox.Batches(ctx, s.Outbox, outbox.Webhook, s.Batch, s.Lease, s.log(), func(ctx context.Context, hb *outbox.Heartbeat, msgs []outbox.Message) (bool, error) {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs []error
		)
		for _, m := range msgs {
			wg.Go(func() {
				var one Result
				err := s.deliver(ctx, m, &one)
				hb.Release(m.ID)
				mu.Lock()
				defer mu.Unlock()
				res.add(one)
				if err != nil {
					errs = append(errs, err)
				}
			})
		}
		wg.Wait()
		if ctx.Err() != nil { // stopping: what was not reported is due again when its lease ends
			return true, nil
		}
		err := errors.Join(errs...)
		return err != nil, err
	})
	return res, err
}

func (r *Result) add(o Result) {
	r.Sent += o.Sent
	r.Retried += o.Retried
	r.GaveUp += o.GaveUp
	r.Disabled += o.Disabled
}

// deliver makes one attempt of m and records its outcome.
func (s *Sender) deliver(ctx context.Context, m outbox.Message, res *Result) error {
	hook, err := s.Endpoints.WebhookByID(ctx, m.Recipient)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return s.giveUp(ctx, m, "the endpoint was deleted", res)
	case err != nil:
		return err
	case hook.Status != WebhookActive:
		return s.giveUp(ctx, m, "the endpoint is disabled: "+hook.StatusReason, res)
	}
	secret, err := signature.ParseSecret(hook.Secret)
	if err != nil {
		return s.giveUp(ctx, m, "the endpoint's secret cannot be read: "+err.Error(), res)
	}
	h := http.Header{}
	if err := signature.SetHeaders(h, m.Ref, s.now(), m.Payload, secret); err != nil {
		return s.giveUp(ctx, m, err.Error(), res)
	}
	ans, err := Post(ctx, s.Client, hook.URL, h, m.Payload)
	if err == nil && ans.OK() {
		if err := s.Outbox.MarkSent(ctx, m.ID); err != nil {
			return err
		}
		res.Sent++
		if hook.FailingSince != nil {
			return s.Endpoints.WebhookDelivered(ctx, hook.ID)
		}
		return nil
	}
	reason := failure(ans, err)
	if ctx.Err() != nil { // stopping: the lease ends and another attempt follows
		return nil
	}
	since, ferr := s.Endpoints.WebhookFailed(ctx, hook.ID, s.now())
	if errors.Is(ferr, board.ErrNotFound) {
		return s.giveUp(ctx, m, "the endpoint was deleted", res)
	}
	if ferr != nil {
		return ferr
	}
	failFor := s.FailFor
	if failFor <= 0 {
		failFor = RetryFor
	}
	if s.now().Sub(since) >= failFor {
		why := fmt.Sprintf("deliveries failed for %s since %s; the last: %s", failFor, since.Format(time.RFC3339), reason)
		done, err := s.Endpoints.DisableWebhook(ctx, hook.ID, why)
		if err != nil && !errors.Is(err, board.ErrNotFound) {
			return err
		}
		if done {
			res.Disabled++
			s.log().Error("webhook endpoint disabled", "webhook_id", hook.ID, "agent_id", hook.AgentID, "reason", why)
		}
		return s.giveUp(ctx, m, "the endpoint is disabled: "+why, res)
	}
	retry, err := s.Outbox.MarkFailed(ctx, m.ID, reason, false)
	if errors.Is(err, outbox.ErrNotPending) {
		return nil
	}
	if err != nil {
		return err
	}
	if retry.IsZero() {
		res.GaveUp++
		s.log().Warn("webhook given up", "outbox_id", m.ID, "webhook_id", hook.ID, "webhook_msg", m.Ref, "attempts", m.Attempts, "error", reason)
		return nil
	}
	res.Retried++
	s.log().Info("webhook not delivered; will retry", "outbox_id", m.ID, "webhook_id", hook.ID, "webhook_msg", m.Ref,
		"attempts", m.Attempts, "retry_at", retry.Format(time.RFC3339), "error", reason)
	return nil
}

// failure says why an attempt failed: the transport's error, or the
// status and the start of the answer.
func failure(ans Answer, err error) string {
	if err != nil {
		return err.Error()
	}
	body := strings.ToValidUTF8(string(ans.Body), "?")
	if len(body) > 200 {
		body = body[:200]
	}
	return fmt.Sprintf("answered %d %s", ans.Status, strings.TrimSpace(body))
}

func (s *Sender) giveUp(ctx context.Context, m outbox.Message, reason string, res *Result) error {
	_, err := s.Outbox.MarkFailed(ctx, m.ID, reason, true)
	if err != nil && !errors.Is(err, outbox.ErrNotPending) {
		return err
	}
	res.GaveUp++
	return nil
}

// Run drains at once, then at each [Sender.Kick] and every Interval, until
// ctx is done, and prunes the rows delivered more than Retention ago
// (of every kind) about once an hour. Failures are logged and tried
// again at the next poll.
func (s *Sender) Run(ctx context.Context) {
	outbox.Loop{What: "webhooks", Interval: cmp.Or(s.Interval, DefaultInterval), Retention: s.Retention, Now: s.now, Log: s.log(), Wake: s.kicks(),
		Drain: func(ctx context.Context) error { _, err := s.Drain(ctx); return err },
		Prune: func(ctx context.Context, before time.Time) error { _, err := s.Outbox.Prune(ctx, before); return err }}.Run(ctx)
}
