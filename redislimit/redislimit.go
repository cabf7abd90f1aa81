package redislimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix is the default of [Options.Prefix].
const DefaultPrefix = "predictions:"

// DefaultTimeout is the default of [Options.Timeout].
const DefaultTimeout = 250 * time.Millisecond

// Options configure [Open]. The zero value is useful.
type Options struct {
	// Prefix begins every key the limiter writes, so that several
	// services (or test runs) share one Redis database. Empty means
	// [DefaultPrefix].
	Prefix string
	// Timeout bounds connecting to Redis and each read or write, unless
	// the URL sets dial_timeout, read_timeout or write_timeout. A rate
	// limit that waits long for Redis costs every request that long, so
	// it is short; zero means [DefaultTimeout].
	Timeout time.Duration
}

// Limiter takes from budgets kept in Redis. It is safe for concurrent
// use, and implements middleware.SharedLimits.
type Limiter struct {
	rdb    *redis.Client
	gcra   *redis_rate.Limiter
	prefix string
	addr   string
}

// Open returns a limiter on the Redis server named by url, such as
// redis://127.0.0.1:6379/0 or rediss://user:pass@host:6380/1 (the
// go-redis URL form). It does not connect: the first call does, and a
// Redis that is down makes calls fail, not Open. Open fails only for a
// URL it cannot read.
func Open(url string, opt Options) (*Limiter, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w; write redis://host:6379/0", err)
	}
	t := opt.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	if ro.DialTimeout == 0 {
		ro.DialTimeout = t
	}
	if ro.ReadTimeout == 0 {
		ro.ReadTimeout = t
	}
	if ro.WriteTimeout == 0 {
		ro.WriteTimeout = t
	}
	// A retry doubles the wait of every request while Redis is down; the
	// caller's fallback is the retry.
	ro.MaxRetries = -1
	ro.DialerRetries = 1
	ro.ContextTimeoutEnabled = true
	prefix := opt.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	quietOnce.Do(func() { redis.SetLogger(debugLog{}) })
	rdb := redis.NewClient(ro)
	return &Limiter{rdb: rdb, gcra: redis_rate.NewLimiter(rdb), prefix: prefix, addr: ro.Addr}, nil
}

// Take takes one event from key's budget: events per per on average, up
// to burst at once. It returns 0 when the event may happen, else how long
// until one may; an error when Redis did not answer.
func (l *Limiter) Take(ctx context.Context, key string, events int, per time.Duration, burst int) (time.Duration, error) {
	lim, err := limit(events, per, burst)
	if err != nil {
		return 0, err
	}
	res, err := l.gcra.Allow(ctx, l.prefix+key, lim)
	if err != nil {
		return 0, fmt.Errorf("redislimit: %s: %w", l.addr, err)
	}
	if res.Allowed > 0 {
		return 0, nil
	}
	return max(res.RetryAfter, time.Nanosecond), nil
}

// Refund gives back one event taken from key's budget with the same
// rate, as if it had not been taken. It never fills a budget beyond its
// burst: it moves the key's theoretical arrival time back one emission
// interval (per/events), and deletes the key when that reaches the
// present (a full budget).
func (l *Limiter) Refund(ctx context.Context, key string, events int, per time.Duration, burst int) error {
	if _, err := limit(events, per, burst); err != nil {
		return err
	}
	interval := per.Seconds() / float64(events)
	if err := refund.Run(ctx, l.rdb, []string{gcraPrefix + l.prefix + key}, interval).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("redislimit: %s: %w", l.addr, err)
	}
	return nil
}

// gcraPrefix is the prefix redis_rate v10 puts before every key; its
// value is the theoretical arrival time in seconds since 2017-01-01 on
// the Redis clock. refund writes that format (TestRefund fails if a new
// redis_rate changes it). redis_rate has no refund of its own: a negative
// cost cannot bring back a budget that was full before the take.
const gcraPrefix = "rate:"

var refund = redis.NewScript(`
local tat = redis.call("GET", KEYS[1])
if not tat then
  return 0
end
local now = redis.call("TIME")
now = (now[1] - 1483228800) + (now[2] / 1000000)
local new_tat = tonumber(tat) - tonumber(ARGV[1])
if new_tat <= now then
  redis.call("DEL", KEYS[1])
  return 1
end
redis.call("SET", KEYS[1], new_tat, "EX", math.ceil(new_tat - now))
return 1
`)

// Ping checks that Redis answers.
func (l *Limiter) Ping(ctx context.Context) error {
	if err := l.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redislimit: %s: %w", l.addr, err)
	}
	return nil
}

// Close closes the connections to Redis.
func (l *Limiter) Close() error { return l.rdb.Close() }

// Prefix returns the key prefix in use.
func (l *Limiter) Prefix() string { return l.prefix }

// quietOnce routes go-redis's own log lines to slog's debug level, once
// per process (go-redis has one logger for every client). It would
// otherwise print a line for every failed dial, one per request while
// Redis is down; the caller reports outages once (httpapi does).
var quietOnce sync.Once

type debugLog struct{}

func (debugLog) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, fmt.Sprintf(format, v...))
}

// errLimit is a rate the limiter cannot hold.
var errLimit = errors.New("redislimit: events, per and burst must be positive")

func limit(events int, per time.Duration, burst int) (redis_rate.Limit, error) {
	if events < 1 || per <= 0 || burst < 1 {
		return redis_rate.Limit{}, errLimit
	}
	return redis_rate.Limit{Rate: events, Period: per, Burst: burst}, nil
}
