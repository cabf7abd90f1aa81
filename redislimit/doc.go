// Package redislimit keeps rate-limit budgets in Redis, so that every
// replica of the server takes from the same ones: the per-agent and
// per-address limits of httpapi ([middleware.SharedLimits]) hold across N
// replicas instead of giving N budgets.
//
// # Algorithm
//
// Each budget is one Redis key holding the theoretical arrival time of a
// GCRA limiter (github.com/go-redis/redis_rate): events per period on
// average, up to burst at once, decided atomically by a Lua script on
// the Redis server's clock, so replicas need no clock agreement. A key
// is "rate:" (redis_rate's own prefix), then [Options.Prefix] (default
// [DefaultPrefix]), then the limit and the agent or address; it expires
// once its budget is full again.
//
// # Use
//
//	l, err := redislimit.Open("redis://127.0.0.1:6379/0", redislimit.Options{})
//	defer l.Close()
//	delay, err := l.Take(ctx, "agent:forecaster-7", 60, time.Minute, 20)
//
// An error from [Limiter.Take] means Redis did not answer; the caller
// decides what then (httpapi falls back to its local limiters).
package redislimit
