package middleware

import (
	"container/list"
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/predictions-md/predictions/internal/httpio"
	"golang.org/x/time/rate"
)

// RateLimit configures the rate limits: token buckets
// (golang.org/x/time/rate) per agent on board writes and per client
// address on every request. The zero value applies the defaults.
//
// A request over a limit gets 429 with Retry-After (whole seconds until a
// token is free) and a Problem naming the limit. The per-address limit has
// two buckets per address, one for GET, HEAD and OPTIONS and one for every
// other method, so a client flooding POSTs still reads. Health, /metrics
// and the published documents count toward the per-address limit only.
type RateLimit struct {
	// Off turns every rate limit off.
	Off bool
	// Agent is the limit on each agent's board writes (predictions,
	// replies, reactions), counted after authentication. Zero (or Events
	// or Per not positive) means [DefaultAgentRate]; a Burst below 1
	// means Events.
	Agent Rate
	// Address is the limit on each client address, for reads and for
	// writes separately. IPv6 addresses are grouped by /64, the block one
	// subscriber usually holds. Zero means [DefaultAddressRate], as for
	// Agent.
	Address Rate
	// Registration is the limit on each client address's registrations
	// of what the board keeps serving at its own cost (webhook
	// endpoints), counted besides Address and refunded when the
	// registration fails: agent ids cost nothing, so a per-agent limit
	// alone lets one address register for many. Zero means
	// [DefaultRegistrationRate], as for Agent.
	Registration Rate
	// MaxClients bounds each table of limiters (agents, addresses for
	// reads, addresses for writes); zero means [DefaultMaxClients]. Entries
	// idle long enough to have a full bucket are dropped first (this loses
	// nothing); beyond MaxClients the least recently seen is dropped.
	MaxClients int
	// Shared, when non-nil, keeps the per-agent and per-address budgets
	// in a store every replica of the server shares (Redis: see package
	// redislimit), so that N replicas give one budget, not N. While it
	// does not answer, each replica falls back to its own limiters above,
	// says so once in the log, and counts the fallbacks in /metrics.
	// Nil means each replica (each process) has budgets of its own.
	Shared SharedLimits
}

// Rate is a token bucket: Events per Per on average, up to Burst at once.
type Rate struct {
	Events int
	Per    time.Duration
	Burst  int
}

// The defaults of [RateLimit], as the project decided: generous enough
// that a well-behaved agent or client never meets them.
var (
	DefaultAgentRate   = Rate{Events: 60, Per: time.Minute, Burst: 20}
	DefaultAddressRate = Rate{Events: 1200, Per: time.Minute, Burst: 200}
	// DefaultRegistrationRate: a client that sets up a few agents'
	// endpoints at once is served; one that registers them by the
	// thousand is not.
	DefaultRegistrationRate = Rate{Events: 20, Per: time.Hour, Burst: 10}
)

// DefaultMaxClients is the default of [RateLimit.MaxClients]: about 10 MB
// of limiters per table at most.
const DefaultMaxClients = 50_000

// maxRateNumber bounds the numbers [ParseRate] accepts.
const maxRateNumber = 1_000_000_000

// ParseRate reads a rate written "EVENTS/UNIT[:BURST]", such as "60/min:20"
// or "1200/minute:200". UNIT is s (sec, second), m (min, minute), h (hr,
// hour) or a Go duration such as 10s. BURST defaults to EVENTS.
func ParseRate(s string) (Rate, error) {
	bad := func(problem string) (Rate, error) {
		return Rate{}, fmt.Errorf("rate %q: %s; write EVENTS/UNIT[:BURST], such as 60/min:20", s, problem)
	}
	spec, burstText, hasBurst := strings.Cut(strings.TrimSpace(s), ":")
	eventsText, unit, ok := strings.Cut(spec, "/")
	if !ok {
		return bad("no /UNIT")
	}
	events, err := strconv.Atoi(strings.TrimSpace(eventsText))
	if err != nil || events < 1 || events > maxRateNumber {
		return bad("EVENTS must be a whole number from 1 to 1000000000")
	}
	var per time.Duration
	switch u := strings.ToLower(strings.TrimSpace(unit)); u {
	case "s", "sec", "second":
		per = time.Second
	case "m", "min", "minute":
		per = time.Minute
	case "h", "hr", "hour":
		per = time.Hour
	default:
		per, err = time.ParseDuration(u)
		if err != nil || per < time.Millisecond || per > 24*time.Hour {
			return bad("UNIT must be s, min, hour or a duration from 1ms to 24h such as 10s")
		}
	}
	burst := events
	if hasBurst {
		burst, err = strconv.Atoi(strings.TrimSpace(burstText))
		if err != nil || burst < 1 || burst > maxRateNumber {
			return bad("BURST must be a whole number from 1 to 1000000000")
		}
	}
	return Rate{Events: events, Per: per, Burst: burst}, nil
}

// String writes r as [ParseRate] reads it: "60/min:20".
func (r Rate) String() string {
	unit := r.Per.String()
	switch r.Per {
	case time.Second:
		unit = "s"
	case time.Minute:
		unit = "min"
	case time.Hour:
		unit = "h"
	}
	return fmt.Sprintf("%d/%s:%d", r.Events, unit, r.Burst)
}

// text writes r for people: "60 writes a minute (bursts of 20)".
func (r Rate) text(noun string) string {
	per := "every " + r.Per.String()
	switch r.Per {
	case time.Second:
		per = "a second"
	case time.Minute:
		per = "a minute"
	case time.Hour:
		per = "an hour"
	}
	return fmt.Sprintf("%d %s %s (bursts of %d)", r.Events, noun, per, r.Burst)
}

func (r Rate) limit() rate.Limit { return rate.Limit(float64(r.Events) / r.Per.Seconds()) }

// maxIdle caps how long an idle limiter is kept, for rates so slow that
// refilling would take longer.
const maxIdle = 7 * 24 * time.Hour

// refill is how long an idle bucket takes to fill up: after that its
// limiter is as good as a new one and can be dropped.
func (r Rate) refill() time.Duration {
	secs := math.Ceil(float64(r.Burst)/float64(r.limit())) + 1
	if secs >= maxIdle.Seconds() {
		return maxIdle
	}
	return time.Duration(secs) * time.Second
}

// orDefault returns r, or def when r is zero or unusable (Events or Per
// not positive); a Burst below 1 becomes Events.
func (r Rate) orDefault(def Rate) Rate {
	if r.Events < 1 || r.Per <= 0 {
		return def
	}
	if r.Burst < 1 {
		r.Burst = r.Events
	}
	return r
}

// limiterTable holds one token bucket per key (an agent or an address),
// most recently used first, bounded in size.
type limiterTable struct {
	rate  Rate
	max   int
	idle  time.Duration
	mu    sync.Mutex
	order *list.List // of *limiterEntry, front = most recently used
	byKey map[string]*list.Element
}

type limiterEntry struct {
	key  string
	lim  *rate.Limiter
	last time.Time
}

func newLimiterTable(r Rate, max int) *limiterTable {
	return &limiterTable{rate: r, max: max, idle: r.refill(), order: list.New(), byKey: map[string]*list.Element{}}
}

// take takes one token from key's bucket at now. It returns 0 and the
// reservation (whose CancelAt(now) gives the token back) when the request
// may go ahead, else how long until a token is free (the reservation's
// delay; the reservation itself is cancelled) and nil.
func (t *limiterTable) take(key string, now time.Time) (time.Duration, *rate.Reservation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	lim := t.use(t.byKey[key], key, now)
	res := lim.ReserveN(now, 1)
	if !res.OK() { // cannot happen: Burst ≥ 1
		return t.rate.Per, nil
	}
	d := res.DelayFrom(now)
	if d > 0 {
		res.CancelAt(now)
		return d, nil
	}
	return 0, res
}

// allow is take without the reservation, for a token that is never
// given back: it returns 0 when the request may go ahead, else how long
// until a token is free. It allocates nothing for a key it holds: key is
// bytes, and a map index string(key) does not copy them (a Go compiler
// optimization), and Limiter.AllowN, unlike ReserveN, returns no
// *Reservation. AllowN takes nothing when it refuses, so the delay is
// then read from a reservation cancelled at once, as take does.
func (t *limiterTable) allow(key []byte, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	el := t.byKey[string(key)]
	var lim *rate.Limiter
	if el != nil {
		lim = t.use(el, "", now)
	} else {
		lim = t.use(nil, string(key), now)
	}
	if lim.AllowN(now, 1) {
		return 0
	}
	res := lim.ReserveN(now, 1)
	if !res.OK() { // cannot happen: Burst ≥ 1
		return t.rate.Per
	}
	d := res.DelayFrom(now)
	res.CancelAt(now)
	return max(d, 1) // AllowN refused: no token is free now
}

// use returns the limiter of el, or of a new entry for key when el is
// nil, marks it used at now and evicts what has to go. t.mu is held.
func (t *limiterTable) use(el *list.Element, key string, now time.Time) *rate.Limiter {
	var e *limiterEntry
	if el != nil {
		e = el.Value.(*limiterEntry)
		t.order.MoveToFront(el)
	} else {
		e = &limiterEntry{key: key, lim: rate.NewLimiter(t.rate.limit(), t.rate.Burst)}
		t.byKey[key] = t.order.PushFront(e)
	}
	if now.After(e.last) {
		e.last = now
	}
	t.evict(now)
	return e.lim
}

// evict drops entries from the least recently used end while they are
// idle long enough to be full, or while the table is over its bound.
func (t *limiterTable) evict(now time.Time) {
	for t.order.Len() > 0 {
		el := t.order.Back()
		e := el.Value.(*limiterEntry)
		if t.order.Len() <= t.max && now.Sub(e.last) < t.idle {
			return
		}
		t.order.Remove(el)
		delete(t.byKey, e.key)
	}
}

// len is the number of limiters held.
func (t *limiterTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.order.Len()
}

// limits are the server's limiter tables; nil when rate limits are off.
type limits struct {
	cfg                        RateLimit
	agent, addrRead, addrWrite *limiterTable
	addrRegister               *limiterTable
	shared                     *shared // nil without RateLimit.Shared
}

// newLimits builds the limiters; log hears of the shared store's outages.
func newLimits(cfg RateLimit, log *slog.Logger) *limits {
	if cfg.Off {
		return nil
	}
	cfg.Agent = cfg.Agent.orDefault(DefaultAgentRate)
	cfg.Address = cfg.Address.orDefault(DefaultAddressRate)
	cfg.Registration = cfg.Registration.orDefault(DefaultRegistrationRate)
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	l := &limits{cfg: cfg,
		agent:        newLimiterTable(cfg.Agent, cfg.MaxClients),
		addrRead:     newLimiterTable(cfg.Address, cfg.MaxClients),
		addrWrite:    newLimiterTable(cfg.Address, cfg.MaxClients),
		addrRegister: newLimiterTable(cfg.Registration, cfg.MaxClients),
	}
	if cfg.Shared != nil {
		l.shared = newShared(cfg.Shared, log)
	}
	return l
}

// take takes one event from key's budget of the named limit: from the
// shared store when there is one and it answers, else from the local
// table. It returns the delay (0: go ahead) and, when refundable and an
// event was taken, a function that gives it back.
func (l *limits) take(ctx context.Context, limit, key string, now time.Time, refundable bool) (time.Duration, func()) {
	table := l.table(limit)
	if l.shared != nil {
		if d, ok := l.shared.take(ctx, limit+":"+key, table.rate, now); ok {
			if d > 0 || !refundable {
				return d, nil
			}
			return 0, func() { l.shared.refund(ctx, limit+":"+key, table.rate) }
		}
	}
	d, res := table.take(key, now)
	if res == nil || !refundable {
		return d, nil
	}
	// CancelAt at the time of the take gives the token back in full unless
	// the same key took another since; it never fills the bucket past Burst.
	return 0, func() { res.CancelAt(now) }
}

// allow is take for an event that is never refunded (the per-address
// limit of every request), with the key as bytes: see limiterTable.allow.
func (l *limits) allow(ctx context.Context, limit string, key []byte, now time.Time) time.Duration {
	table := l.table(limit)
	if l.shared != nil {
		if d, ok := l.shared.take(ctx, limit+":"+string(key), table.rate, now); ok {
			return d
		}
	}
	return table.allow(key, now)
}

// table is the local table of the named limit.
func (l *limits) table(limit string) *limiterTable {
	switch limit {
	case limitAgent:
		return l.agent
	case limitAddressRead:
		return l.addrRead
	case limitAddressRegister:
		return l.addrRegister
	}
	return l.addrWrite
}

// Names of the limits, in Problems and in the metrics' limit label.
const (
	limitAgent        = "agent"
	limitAddressRead  = "address_read"
	limitAddressWrite = "address_write"
	// limitAddressRegister is RateLimit.Registration.
	limitAddressRegister = "address_register"
)

// tooMany sets Retry-After and returns the 429 Problem.
func (s *Chain) tooMany(w http.ResponseWriter, limit string, delay time.Duration, problem, hint string) error {
	s.metrics.rateLimited(limit)
	secs := max(1, int(math.Ceil(delay.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return &httpio.Error{Field: "rate limit", Err: httpio.ErrRateLimited, Problem: problem,
		Hint: fmt.Sprintf("retry after %d s (the Retry-After header); %s", secs, hint)}
}

// LimitAgent takes one write from the agent's bucket (see
// [httpio.Host]). The write is counted only if it succeeds: the board
// calls refund when the route fails (invalid body, unknown prediction,
// database down), so that failed writes sent in an agent's name do not
// spend its budget.
func (s *Chain) LimitAgent(w http.ResponseWriter, r *http.Request, agentID string) (refund func(), err error) {
	if s.limits == nil {
		return nil, nil
	}
	d, refund := s.limits.take(r.Context(), limitAgent, agentID, s.now(), true)
	if d <= 0 {
		return refund, nil
	}
	rt := s.limits.cfg.Agent
	return nil, s.tooMany(w, limitAgent, d, fmt.Sprintf("agent %q is over its limit of %s", agentID, rt.text("writes")),
		"each agent may write "+rt.text("times")+"; spread writes out")
}

// LimitRegistration takes one registration from the client address's
// budget ([RateLimit.Registration]; see [httpio.Host]). As with
// LimitAgent, refund gives it back when the registration then fails.
func (s *Chain) LimitRegistration(w http.ResponseWriter, r *http.Request) (refund func(), err error) {
	if s.limits == nil {
		return nil, nil
	}
	addr := s.clientAddr(r)
	d, refund := s.limits.take(r.Context(), limitAddressRegister, addr, s.now(), true)
	if d <= 0 {
		return refund, nil
	}
	rt := s.limits.cfg.Registration
	return nil, s.tooMany(w, limitAddressRegister, d, fmt.Sprintf("client address %s is over its limit of %s", addr, rt.text("registrations")),
		"each client address may register "+rt.text("endpoints")+", whichever agents they are for; register only the endpoints you use")
}

// requestTime is the limits' clock for r: the time the chain took the
// request when the clock is the real one (one reading serves the log, the
// metrics and the limit), else [Options.Now].
func (s *Chain) requestTime(r *http.Request) time.Time {
	if s.opt.Now == nil {
		if info := infoOf(r); info != nil {
			return info.start
		}
	}
	return s.now()
}

// isRead says which per-address bucket a request takes from.
func isRead(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// limitAddress is the per-address limit, for every request (404s,
// preflights and MCP included).
func (s *Chain) limitAddress(next http.Handler) http.Handler {
	if s.limits == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf [48]byte // room for an IPv6 /64 prefix, the longest key but an unreadable RemoteAddr
		key := s.appendClientAddr(buf[:0], r)
		limit, noun := limitAddressWrite, "writes (requests other than GET, HEAD and OPTIONS)"
		if isRead(r.Method) {
			limit, noun = limitAddressRead, "reads (GET, HEAD and OPTIONS requests)"
		}
		d := s.limits.allow(r.Context(), limit, key, s.requestTime(r))
		if d <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		addr := string(key)
		s.noteRoute(r)
		setCORS(w.Header())
		rt := s.limits.cfg.Address
		err := s.tooMany(w, limit, d, fmt.Sprintf("client address %s is over its limit of %s", addr, rt.text(noun)),
			"reads and writes are counted separately per address; slow down, and reuse results where you can")
		s.opt.WriteError(w, r, err)
	})
}

// clientAddr is the address the per-address limit counts: the peer's IP
// address or, with [Options.TrustProxy], the last address in
// X-Forwarded-For (the one the proxy in front appended). IPv6 addresses
// are cut to their /64.
func (s *Chain) clientAddr(r *http.Request) string {
	return string(s.appendClientAddr(nil, r))
}

// appendClientAddr appends [Chain.clientAddr] to b.
func (s *Chain) appendClientAddr(b []byte, r *http.Request) []byte {
	if s.opt.TrustProxy {
		if a, ok := lastForwarded(r.Header.Values("X-Forwarded-For")); ok {
			return appendAddrKey(b, a)
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return appendAddrKey(b, a)
	}
	return append(b, host...)
}

// lastForwarded returns the last address of X-Forwarded-For, over every
// line of the header; a port, if any, is dropped.
func lastForwarded(values []string) (netip.Addr, bool) {
	for i := len(values) - 1; i >= 0; i-- {
		parts := strings.Split(values[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			p := strings.TrimSpace(parts[j])
			if p == "" {
				continue
			}
			if a, err := netip.ParseAddr(p); err == nil {
				return a, true
			}
			if ap, err := netip.ParseAddrPort(p); err == nil {
				return ap.Addr(), true
			}
			return netip.Addr{}, false // the proxy's own entry is unreadable: do not trust earlier ones
		}
	}
	return netip.Addr{}, false
}

// appendAddrKey appends the limiter key of an address to b: IPv4 as it
// is, IPv6 by /64.
func appendAddrKey(b []byte, a netip.Addr) []byte {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.AppendTo(b)
	}
	return a.AppendTo(b)
}

// RateLimitText describes the limits for llms.txt and the manifest
// (with the board's per-agent limit when board is true); "" when off.
func (s *Chain) RateLimitText(board bool) string {
	if s.limits == nil {
		return ""
	}
	c := s.limits.cfg
	agent := ""
	if board {
		agent = "each agent may make " + c.Agent.text("writes") + " on the board; "
	}
	return fmt.Sprintf("Rate limits: %seach client address may make %s and %s. "+
		"Over a limit the answer is 429 with a Retry-After header (seconds) and a Problem naming the limit.",
		agent, c.Address.text("reads (GET, HEAD, OPTIONS)"), c.Address.text("other requests"))
}
