package idempotency

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// TTL is how long a key is kept and its answer replayed.
const TTL = 24 * time.Hour

// Lease bounds a claim left in flight by a server that kept keys apart
// from their writes (before this package): such a row, with no answer,
// counts as a request still running for Lease after it was claimed, and
// as unused after. Claims of this package are never left in flight.
const Lease = 5 * time.Minute

// Errors of [Store.Claim]. Test for them with [errors.Is].
var (
	// ErrInFlight: a request with the key is still running.
	ErrInFlight = errors.New("idempotency: key is in use by a request still running")
	// ErrReused: the key was used with another request (another
	// method, path or body).
	ErrReused = errors.New("idempotency: key was used with another request")
	// ErrNoUnit: Claim or Save was called with a context that carries no
	// unit of work on the store's database.
	ErrNoUnit = errors.New("idempotency: no unit of work in the context")
)

// Key names one idempotency key: the caller and route it is scoped to,
// the key the caller sent and a hash of the request it came with.
type Key struct {
	Scope       string // the caller, such as a hash of its credential
	Route       string // the route's name
	Key         string // the Idempotency-Key value
	RequestHash string // a hash of the method, path and body
}

// Answer is the answer stored with a key.
type Answer struct {
	Status int
	Header map[string]string // the headers that are replayed, such as Location
	Body   []byte
}

// Options configure a [Store]. The zero value is useful.
type Options struct {
	// Now returns the current time; nil means [time.Now].
	Now func() time.Time
}

// Store keeps the keys in the database of the records they guard. It is
// safe for concurrent use.
type Store struct {
	db  *bun.DB
	pg  bool
	now func() time.Time

	mu       sync.Mutex
	migrated bool
	// running holds the keys of this process's requests in flight
	// (Hold), so that a second request with one waits for nothing.
	running sync.Map // scope, route and key → struct{}
	// expired is when Claim last removed expired keys (UnixNano, store
	// clock), saved how many keys were saved since, expiring is held by
	// the request removing them.
	expired  atomic.Int64
	saved    atomic.Int64
	expiring sync.Mutex
}

// New returns a store of keys in db, which must be the pool that writes
// the records the keys guard (board's Store.WriteDB), so that a unit of work
// on it holds both. Its tables are made by [Store.Migrate], or on first
// use.
func New(db *bun.DB, opt Options) *Store {
	s := &Store{db: db, pg: db.Dialect().Name() == dialect.PG, now: opt.Now}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Migrate applies the package's pending migrations. It is safe to call
// more than once, and from replicas at once. Call it before the first
// unit of work that claims a key.
func (s *Store) Migrate(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.migrated {
		return nil
	}
	if err := applyMigrations(ctx, s.db); err != nil {
		return err
	}
	s.migrated = true
	return nil
}

// Hold marks k as in use by a request of this process until release is
// called, before the request's unit of work begins: a second request with
// k meanwhile gets [ErrInFlight] (wrapped) at once, instead of waiting
// for the connection or the lock the first one holds. Requests of other
// processes are told apart by [Store.Claim].
func (s *Store) Hold(k Key) (release func(), err error) {
	name := k.Scope + "\x00" + k.Route + "\x00" + k.Key
	if _, taken := s.running.LoadOrStore(name, struct{}{}); taken {
		return nil, fmt.Errorf("%w: %q", ErrInFlight, k.Key)
	}
	return func() { s.running.Delete(name) }, nil
}

// keyRow is a row of idempotency_keys.
type keyRow struct {
	RequestHash string        `bun:"request_hash"`
	Status      sql.NullInt64 `bun:"status"`
	Header      string        `bun:"header"`
	Body        string        `bun:"body"`
	CreatedAt   time.Time     `bun:"created_at"`
}

// Claim reads k in the unit of work that ctx carries on the store's
// database, before the write it guards runs in the same unit. It returns
// (nil, nil) when the key is unused, and the caller runs the write and
// then [Store.Save]s its answer; the stored [Answer] when the same request
// was answered with the key within [TTL] (the caller replays it and
// writes nothing). An expired key counts as unused.
//
// The store's tables must exist ([Store.Migrate]): on SQLite the unit
// holds the only connection that could make them.
//
// Errors: [ErrReused] (wrapped) when the key was used with another
// RequestHash; [ErrInFlight] (wrapped) while another request with the key
// runs (PostgreSQL; on SQLite requests take turns); [ErrNoUnit] without a
// unit; otherwise a database error.
func (s *Store) Claim(ctx context.Context, k Key) (*Answer, error) {
	tx, ok := database.JoinedTx(ctx, s.db)
	if !ok {
		return nil, ErrNoUnit
	}
	now := s.clock()
	if err := s.expireSometimes(ctx, tx, now); err != nil {
		return nil, fmt.Errorf("idempotency: claim: %w", err)
	}
	if s.pg {
		var got bool
		if err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(?, ?)", lockClass, lockOf(k)).Scan(&got); err != nil {
			return nil, fmt.Errorf("idempotency: claim: %w", err)
		}
		if !got {
			return nil, fmt.Errorf("%w: %q", ErrInFlight, k.Key)
		}
	}
	var rows []keyRow
	err := tx.NewRaw(`SELECT request_hash, status, header, body, created_at FROM idempotency_keys
	WHERE scope = ? AND route = ? AND key = ?`, k.Scope, k.Route, k.Key).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("idempotency: claim: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	row := rows[0]
	age := now.Sub(row.CreatedAt)
	switch {
	case age >= TTL, !row.Status.Valid && age >= Lease:
		return nil, nil // Save replaces it
	case row.RequestHash != k.RequestHash:
		return nil, fmt.Errorf("%w: %q", ErrReused, k.Key)
	case !row.Status.Valid:
		return nil, fmt.Errorf("%w: %q", ErrInFlight, k.Key)
	}
	a := &Answer{Status: int(row.Status.Int64), Body: []byte(row.Body)}
	if err := json.Unmarshal([]byte(row.Header), &a.Header); err != nil {
		return nil, fmt.Errorf("idempotency: claim: stored header: %w", err)
	}
	return a, nil
}

// Save stores the answer of the write that claimed k, in the unit of work
// that ctx carries: it commits with the write.
//
// Errors: [ErrNoUnit] without a unit; otherwise a database error.
func (s *Store) Save(ctx context.Context, k Key, a Answer) error {
	tx, ok := database.JoinedTx(ctx, s.db)
	if !ok {
		return ErrNoUnit
	}
	return s.put(ctx, tx, k, a)
}

// put inserts the key with its answer, or replaces an expired one.
func (s *Store) put(ctx context.Context, db bun.IDB, k Key, a Answer) error {
	h := a.Header
	if h == nil {
		h = map[string]string{}
	}
	header, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("idempotency: save: %w", err)
	}
	now := s.clock()
	_, err = db.ExecContext(ctx, `INSERT INTO idempotency_keys (scope, route, key, request_hash, status, header, body, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (scope, route, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
	header = excluded.header, body = excluded.body, created_at = excluded.created_at
	WHERE idempotency_keys.created_at <= ? OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at <= ?)`,
		k.Scope, k.Route, k.Key, k.RequestHash, a.Status, string(header), string(a.Body), now,
		now.Add(-TTL), now.Add(-Lease))
	if err != nil {
		return fmt.Errorf("idempotency: save: %w", err)
	}
	s.saved.Add(1)
	return nil
}

// Expire removes at most limit keys stored before cutoff and returns how
// many it removed: one bounded statement, so that it never holds the
// write lock for long.
func (s *Store) Expire(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	if err := s.Migrate(ctx); err != nil {
		return 0, err
	}
	return expire(ctx, s.db, cutoff, limit)
}

func expire(ctx context.Context, db bun.IDB, cutoff time.Time, limit int) (int64, error) {
	res, err := db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE (scope, route, key) IN
	(SELECT scope, route, key FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)`, cutoff.UTC(), limit)
	if err != nil {
		return 0, fmt.Errorf("idempotency: expire: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("idempotency: expire: %w", err)
	}
	return n, nil
}

// expireBatch and expireEvery pace the clean-up Claim does: a statement
// removing at most 2×expireBatch expired keys, run once expireBatch keys
// were saved since the last, or expireEvery passed (store clock). Each
// replica so removes at least twice the keys it stores, whatever rate the
// limits allow (a key is saved only with a successful write), and the
// table holds about [TTL] of writes, never more; one statement deletes a
// few hundred rows, so it holds the write lock for little.
const (
	expireBatch = 200
	expireEvery = time.Minute
)

// expireSometimes removes a batch of expired keys in tx when it is due
// (see expireBatch). A batch that rolls back with its unit is not made up
// at once; the next is due expireBatch keys later.
func (s *Store) expireSometimes(ctx context.Context, tx bun.IDB, now time.Time) error {
	if s.saved.Load() < expireBatch && now.UnixNano()-s.expired.Load() < int64(expireEvery) {
		return nil
	}
	if !s.expiring.TryLock() {
		return nil // another request runs the batch
	}
	defer s.expiring.Unlock()
	n := s.saved.Load()
	if n < expireBatch && now.UnixNano()-s.expired.Load() < int64(expireEvery) {
		return nil
	}
	s.saved.Add(-n)
	s.expired.Store(now.UnixNano())
	_, err := expire(ctx, tx, now.Add(-TTL), 2*expireBatch)
	return err
}

// lockClass is the first key of the PostgreSQL advisory locks on
// idempotency keys ("idem" in ASCII); two-key locks do not share the
// space of the one-key locks of the migrations and the event log.
const lockClass int32 = 0x6964656d

// lockOf is the second key of k's advisory lock: a 32-bit hash, so two
// keys may share a lock, which only makes one wait for the other (a 409).
func lockOf(k Key) int32 {
	h := fnv.New32a()
	for _, s := range []string{k.Scope, k.Route, k.Key} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return int32(h.Sum32())
}
