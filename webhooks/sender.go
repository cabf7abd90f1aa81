package webhooks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// Queue is what a [Sender] needs of the outbox; *outbox.Outbox
// implements it. Deliveries accepted at about the same time are recorded
// together (MarkSentAll), so that a sender with many attempts running
// takes the write connection, on SQLite the board's only one, once per
// batch of them rather than once per delivery.
type Queue interface {
	outbox.Queue
	MarkSentAll(ctx context.Context, ids []string) error
}

// DefaultInterval is how often a [Sender] polls the outbox when no
// [Sender.Kick] comes: rarely needed, since the fan-out kicks it.
const DefaultInterval = 2 * time.Second

// Sender delivers the queued webhooks. Its fields are set before
// [Sender.Run] or [Sender.Drain] and not changed after.
type Sender struct {
	// Endpoints are the endpoints delivered to, read and updated by
	// each delivery.
	Endpoints *Store
	Outbox    Queue
	// Client POSTs the deliveries: [NewClient]'s, which refuses the
	// addresses a webhook may not reach at each connection.
	Client *http.Client
	// Log receives a line per failure; nil means slog.Default().
	Log *slog.Logger
	// Interval is the wait between polls of the outbox when no
	// [Sender.Kick] comes; 0 means [DefaultInterval].
	Interval time.Duration
	// Workers bounds the attempts running at once, each to another
	// endpoint; 0 means [DefaultWorkers].
	Workers int
	// Batch bounds the deliveries one claim takes (fewer when fewer
	// workers are free); 0 means outbox.DefaultBatch.
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

// DefaultWorkers is how many attempts a [Sender] runs at once unless
// told otherwise: one per endpoint at most, so that this many endpoints
// may hang to the client's timeout before any other waits for a slot.
const DefaultWorkers = 100

// Drain delivers every row that is due and returns when none is left
// and no attempt runs, or when ctx is done. The error is the store's
// (the claim's, or the record of an outcome); failed deliveries are
// recorded on their rows and counted in the result.
//
// It claims while attempts run: each claimed row is attempted in a
// goroutine of its own, at most Workers at once, and a slot freed is
// filled by the next claim, so an endpoint that hangs until the client's
// timeout holds its own slot and delays no other endpoint. Order per
// endpoint is the claim's: only an endpoint's head is claimed
// ([outbox.Kind.InOrder]), and a head in flight is leased, so an
// endpoint has at most one attempt in flight.
func (s *Sender) Drain(ctx context.Context) (Result, error) {
	return s.pump(ctx, nil)
}

// pump claims and attempts rows, at most Workers at once. With wake nil
// it returns when nothing is due and nothing runs ([Sender.Drain]), or
// once the attempts running end after an error; with wake it runs until
// ctx is done, claiming again at each kick, each freed slot and each
// tick, logging failures, and calls wake.idle before each wait.
func (s *Sender) pump(ctx context.Context, wake *pumpWake) (Result, error) {
	workers, batch, lease := s.Workers, s.Batch, s.Lease
	if workers <= 0 {
		workers = DefaultWorkers
	}
	if batch <= 0 {
		batch = outbox.DefaultBatch
	}
	if lease <= 0 {
		lease = outbox.DefaultLease
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		res  Result
		errs []error
		busy int
		done = make(chan error, workers)
		kick <-chan struct{}
		tick <-chan time.Time
	)
	if wake != nil {
		kick, tick = wake.kick, wake.tick
	}
	fail := func(err error) {
		switch {
		case err == nil || ctx.Err() != nil: // stopping: what was not reported is due again when its lease ends
		case wake != nil:
			s.log().Error("delivering webhooks", "error", err.Error())
		default:
			errs = append(errs, err)
		}
	}
	hb := outbox.StartHeartbeat(ctx, s.Outbox, lease, s.log())
	defer hb.Stop()
	marks := startMarks(ctx, s.Outbox)
	defer marks.stop()
	claimOK := true // false after a failed claim in Run: the next waits for the tick
	for ctx.Err() == nil {
		claimed := 0
		if free := min(workers-busy, batch); free > 0 && claimOK && len(errs) == 0 {
			msgs, err := s.Outbox.Claim(ctx, outbox.Webhook, free, lease)
			if err != nil {
				claimOK = wake == nil
				fail(err)
			}
			hb.Hold(msgs)
			for _, m := range msgs {
				busy++
				wg.Go(func() {
					var one Result
					err := s.deliver(ctx, m, &one, marks.mark)
					hb.Release(m.ID)
					mu.Lock()
					res.add(one)
					mu.Unlock()
					done <- err
				})
			}
			if claimed = len(msgs); claimed == free && busy < workers {
				continue // more may be due
			}
		}
		if wake == nil && busy == 0 && (claimed == 0 || len(errs) > 0) {
			break
		}
		if wake != nil && wake.idle != nil {
			wake.idle(ctx)
		}
		select {
		case err := <-done:
			busy--
			fail(err)
		case <-kick:
		case <-tick:
			claimOK = true
		case <-ctx.Done():
		}
	collect:
		for busy > 0 { // every other attempt that ended meanwhile: one claim fills their slots
			select {
			case err := <-done:
				busy--
				fail(err)
			default:
				break collect
			}
		}
	}
	wg.Wait()
	for ; busy > 0; busy-- {
		fail(<-done)
	}
	mu.Lock()
	defer mu.Unlock()
	if ctx.Err() != nil {
		return res, nil
	}
	return res, errors.Join(errs...)
}

// pumpWake is what wakes a running [Sender] besides its attempts'
// ends: its kicks and its poll; idle is called before each wait.
type pumpWake struct {
	kick <-chan struct{}
	tick <-chan time.Time
	idle func(ctx context.Context)
}

func (r *Result) add(o Result) {
	r.Sent += o.Sent
	r.Retried += o.Retried
	r.GaveUp += o.GaveUp
	r.Disabled += o.Disabled
}

// deliver makes one attempt of m and records its outcome.
func (s *Sender) deliver(ctx context.Context, m outbox.Message, res *Result, markSent func(ctx context.Context, id string) error) error {
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
		if err := markSent(ctx, m.ID); err != nil {
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
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return "no answer (status and headers) in the time allowed: " + err.Error()
	}
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

// Run delivers until ctx is done: it claims at once, then at each
// [Sender.Kick], each attempt's end and every Interval, with attempts
// running as [Sender.Drain] runs them, and prunes the rows delivered
// more than Retention ago (of every kind) about once an hour. Failures
// are logged; a failed claim is tried again at the next Interval.
func (s *Sender) Run(ctx context.Context) {
	t := time.NewTicker(cmp.Or(s.Interval, DefaultInterval))
	defer t.Stop()
	keep := s.Retention
	if keep <= 0 {
		keep = outbox.DefaultRetention
	}
	var pruned time.Time
	prune := func(ctx context.Context) {
		n := s.now()
		if ctx.Err() != nil || n.Sub(pruned) < time.Hour {
			return
		}
		if _, err := s.Outbox.Prune(ctx, n.Add(-keep)); err != nil {
			if ctx.Err() == nil {
				s.log().Error("pruning the outbox", "what", "webhooks", "error", err.Error())
			}
			return
		}
		pruned = n
	}
	_, _ = s.pump(ctx, &pumpWake{kick: s.kicks(), tick: t.C, idle: prune})
}

// marks records the deliveries accepted, as group commit does: the
// first waits for nothing, and those that come while a record is being
// written go together in the next.
type marks struct {
	q    chan markReq
	quit chan struct{}
	done chan struct{}
}

type markReq struct {
	id   string
	done chan error
}

func startMarks(ctx context.Context, q Queue) *marks {
	m := &marks{q: make(chan markReq), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		var batch []markReq
		for {
			select {
			case r := <-m.q:
				batch = append(batch[:0], r)
			case <-m.quit:
				return
			}
		more:
			for {
				select {
				case r := <-m.q:
					batch = append(batch, r)
				default:
					break more
				}
			}
			ids := make([]string, len(batch))
			for i, r := range batch {
				ids[i] = r.id
			}
			err := q.MarkSentAll(ctx, ids)
			for _, r := range batch {
				r.done <- err
			}
		}
	}()
	return m
}

// mark records that row id was delivered, with the others of its batch.
func (m *marks) mark(ctx context.Context, id string) error {
	r := markReq{id: id, done: make(chan error, 1)}
	select {
	case m.q <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-r.done
}

// stop ends the recording once no attempt runs.
func (m *marks) stop() {
	close(m.quit)
	<-m.done
}
