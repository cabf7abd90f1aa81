package middleware

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// SharedLimits keeps rate-limit budgets outside the process, so that
// every replica of the server takes from the same ones. Package
// redislimit implements it with Redis; [RateLimit.Shared] takes it.
//
// A budget allows events per per on average and burst at once (a GCRA or
// token bucket), keyed by the limit and the agent or address.
type SharedLimits interface {
	// Take takes one event from key's budget. It returns 0 when the
	// request may go ahead, else how long until one may. An error means
	// the store did not answer; the server then decides with its own
	// limiters.
	Take(ctx context.Context, key string, events int, per time.Duration, burst int) (time.Duration, error)
	// Refund gives back one event taken from key's budget, for a write
	// that failed.
	Refund(ctx context.Context, key string, events int, per time.Duration, burst int) error
}

// Tuning of the shared store's use. A call that takes longer than
// sharedTimeout counts as an outage, so a slow Redis costs each request
// at most that; while the store is down one request every sharedRetry
// asks it again, and the others go straight to the local limiters.
const (
	sharedTimeout = 250 * time.Millisecond
	sharedRetry   = time.Second
)

// Health of the shared store as the server last saw it.
const (
	sharedUnknown = iota // not asked yet
	sharedUp
	sharedDown
)

// shared is the server's use of a [SharedLimits]: it falls back to the
// local limiters while the store does not answer and reports each outage
// once, when it starts and when it ends.
type shared struct {
	store SharedLimits
	log   *slog.Logger

	mu      sync.Mutex
	state   int
	retryAt time.Time // while down, no request asks the store before this

	up        prometheus.GaugeFunc
	fallbacks prometheus.Counter
}

func newShared(store SharedLimits, log *slog.Logger) *shared {
	sh := &shared{store: store, log: log}
	sh.up = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "predictions_rate_limit_redis_up",
		Help: "1 while the shared rate-limit store (Redis, --redis-url) answers, 0 while the replica uses its own limits.",
	}, func() float64 {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		if sh.state == sharedUp {
			return 1
		}
		return 0
	})
	sh.fallbacks = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "predictions_rate_limit_redis_fallbacks_total",
		Help: "Rate-limit decisions taken with the replica's own limits because the shared store (Redis) did not answer.",
	})
	return sh
}

// collectors are the shared store's metrics.
func (sh *shared) collectors() []prometheus.Collector {
	return []prometheus.Collector{sh.up, sh.fallbacks}
}

// ask says whether to ask the store now: always unless it is down, and
// then once every sharedRetry.
func (sh *shared) ask(now time.Time) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.state != sharedDown {
		return true
	}
	if now.Before(sh.retryAt) {
		return false
	}
	sh.retryAt = now.Add(sharedRetry)
	return true
}

// answered records the store's answer (err nil) or silence, logging the
// change when there is one.
func (sh *shared) answered(err error, now time.Time) {
	sh.mu.Lock()
	was := sh.state
	if err == nil {
		sh.state = sharedUp
	} else {
		sh.state, sh.retryAt = sharedDown, now.Add(sharedRetry)
	}
	sh.mu.Unlock()
	switch {
	case err != nil && was != sharedDown:
		sh.log.Warn("rate limits: the shared store (Redis) does not answer; this replica uses its own limits until it does",
			"error", err.Error())
	case err == nil && was == sharedDown:
		sh.log.Info("rate limits: the shared store (Redis) answers again; budgets are shared by the replicas")
	case err == nil && was == sharedUnknown:
		sh.log.Info("rate limits: budgets are shared by the replicas through Redis")
	}
}

// take takes one event from key's shared budget. ok is false when the
// store was not asked or did not answer: the caller then uses its local
// limiter (a fallback, counted).
func (sh *shared) take(ctx context.Context, key string, r Rate, now time.Time) (d time.Duration, ok bool) {
	if sh.ask(now) {
		tctx, cancel := context.WithTimeout(ctx, sharedTimeout)
		d, err := sh.store.Take(tctx, key, r.Events, r.Per, r.Burst)
		cancel()
		if err == nil {
			sh.answered(nil, now)
			return d, true
		}
		// A request whose client went away says nothing of the store.
		if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
			sh.answered(err, now)
		}
	}
	sh.fallbacks.Inc()
	return 0, false
}

// refund gives one event back to key's shared budget. A refund that
// fails is lost: the agent waits a little longer, which is the safe side.
func (sh *shared) refund(ctx context.Context, key string, r Rate) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedTimeout)
	defer cancel()
	if err := sh.store.Refund(ctx, key, r.Events, r.Per, r.Burst); err != nil {
		sh.log.Debug("rate limits: refund to the shared store failed", "key", key, "error", err.Error())
	}
}
