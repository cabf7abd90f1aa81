package outbox

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Heartbeat renews the lease of the rows a sender holds (claimed, not yet
// reported) every third of a lease until stopped, so that a delivery may
// take longer than a lease while the rows of a sender that died are due
// again within one.
type Heartbeat struct {
	mu     sync.Mutex
	held   map[string]Message
	cancel context.CancelFunc
	done   chan struct{}
}

// Renewer renews leases; *[Outbox] is one.
type Renewer interface {
	Renew(ctx context.Context, msgs []Message, lease time.Duration) (int, error)
}

// StartHeartbeat starts renewing through o the rows given to
// [Heartbeat.Hold], every lease/3, until [Heartbeat.Stop] or the end of
// ctx. A renewal that fails is logged to log (nil means slog.Default()):
// the lease then ends as claimed, and another sender may deliver the row
// too (at least once).
func StartHeartbeat(ctx context.Context, o Renewer, lease time.Duration, log *slog.Logger) *Heartbeat {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &Heartbeat{held: map[string]Message{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.NewTicker(max(lease/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// The lock is held through the renewal so that a row released
			// meanwhile (and then marked failed with its backoff) is not
			// renewed after its report.
			h.mu.Lock()
			msgs := make([]Message, 0, len(h.held))
			for _, m := range h.held {
				msgs = append(msgs, m)
			}
			_, err := o.Renew(ctx, msgs, lease)
			h.mu.Unlock()
			if err != nil && ctx.Err() == nil {
				log.Warn("renewing the outbox lease", "rows", len(msgs), "error", err.Error())
			}
		}
	}()
	return h
}

// Hold starts renewing the lease of msgs.
func (h *Heartbeat) Hold(msgs []Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range msgs {
		h.held[m.ID] = m
	}
}

// Release stops renewing a row once its attempt is over: the receiver
// answered, and MarkSent or MarkFailed follows.
func (h *Heartbeat) Release(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, id)
}

// Stop stops the renewals and waits for one in progress to end.
func (h *Heartbeat) Stop() {
	h.cancel()
	<-h.done
}
