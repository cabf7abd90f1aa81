package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Idempotency keys: the storage side of the Idempotency-Key header of the
// IETF httpapi draft "The Idempotency-Key HTTP Header Field". The adapter
// claims a key before it runs a write, then finishes it with the answer
// (replayed to the same request sent again) or releases it (the write
// failed and may be retried). The store keeps keys; it does not know HTTP.

// KeyTTL is how long a finished key is kept and replayed.
const KeyTTL = 24 * time.Hour

// KeyLease is how long a claim may stay in flight: a claim older than
// this was left by a process that stopped during the write, and the next
// request with the key takes it over. It exceeds any request's budget.
const KeyLease = 5 * time.Minute

// Errors of [Store.ClaimKey]. Test for them with [errors.Is].
var (
	// ErrKeyInFlight: a request with the key is still running.
	ErrKeyInFlight = errors.New("board: idempotency key is in use by a request still running")
	// ErrKeyReused: the key was used with another request (another
	// method, path or body).
	ErrKeyReused = errors.New("board: idempotency key was used with another request")
)

// IdemKey names one idempotency key: the caller and route it is scoped
// to, the key the caller sent and a hash of the request it came with.
type IdemKey struct {
	Scope       string // the caller, such as a hash of its credential
	Route       string // the route's name
	Key         string // the Idempotency-Key value
	RequestHash string // a hash of the method, path and body
}

// Answer is the answer stored with a finished key.
type Answer struct {
	Status int
	Header map[string]string // the headers that are replayed, such as Location
	Body   []byte
}

// ClaimKey claims k for a write that is about to run, atomically: of
// requests racing with one key, on any number of stores sharing the
// database, exactly one claims it. It returns (nil, nil) when the caller
// claimed the key and must run the write, then call [Store.FinishKey] or
// [Store.ReleaseKey]; the stored [Answer] when the same request finished
// with the key within [KeyTTL]. A key older than KeyTTL counts as unused,
// as does a claim in flight for longer than [KeyLease].
//
// Errors: [ErrKeyReused] (wrapped) when the key was used with another
// RequestHash; [ErrKeyInFlight] (wrapped) while the request that claimed
// it runs; otherwise a database error ([ErrUnavailable] for an outage).
func (s *Store) ClaimKey(ctx context.Context, k IdemKey) (*Answer, error) {
	s.expireKeysSometimes(ctx)
	for range 3 { // a row that expires or is released between the statements is claimed again
		now := s.clock()
		res, err := s.write.ExecContext(ctx, `INSERT INTO idempotency_keys (scope, route, key, request_hash, created_at)
	VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, route, key) DO NOTHING`, k.Scope, k.Route, k.Key, k.RequestHash, now)
		if err != nil {
			return nil, Classify(fmt.Errorf("board: claim key: %w", err))
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, Classify(fmt.Errorf("board: claim key: %w", err))
		} else if n == 1 {
			s.lastWrite.Store(time.Now().UnixNano())
			return nil, nil
		}
		var row struct {
			RequestHash string        `bun:"request_hash"`
			Status      sql.NullInt64 `bun:"status"`
			Header      string        `bun:"header"`
			Body        string        `bun:"body"`
			CreatedAt   time.Time     `bun:"created_at"`
		}
		err = s.write.NewRaw(`SELECT request_hash, status, header, body, created_at FROM idempotency_keys
	WHERE scope = ? AND route = ? AND key = ?`, k.Scope, k.Route, k.Key).Scan(ctx, &row)
		if errors.Is(err, sql.ErrNoRows) {
			continue // released or expired meanwhile
		}
		if err != nil {
			return nil, Classify(fmt.Errorf("board: claim key: %w", err))
		}
		age := now.Sub(row.CreatedAt)
		if age >= KeyTTL || (!row.Status.Valid && age >= KeyLease) {
			// Expired, or abandoned in flight: take it over if no one else did.
			res, err := s.write.ExecContext(ctx, `UPDATE idempotency_keys SET request_hash = ?, status = NULL, header = '{}', body = '', created_at = ?
	WHERE scope = ? AND route = ? AND key = ? AND (created_at <= ? OR (status IS NULL AND created_at <= ?))`,
				k.RequestHash, now, k.Scope, k.Route, k.Key, now.Add(-KeyTTL), now.Add(-KeyLease))
			if err != nil {
				return nil, Classify(fmt.Errorf("board: claim key: %w", err))
			}
			if n, err := res.RowsAffected(); err == nil && n == 1 {
				return nil, nil
			}
			continue
		}
		if row.RequestHash != k.RequestHash {
			return nil, fmt.Errorf("%w: %q", ErrKeyReused, k.Key)
		}
		if !row.Status.Valid {
			return nil, fmt.Errorf("%w: %q", ErrKeyInFlight, k.Key)
		}
		a := &Answer{Status: int(row.Status.Int64), Body: []byte(row.Body)}
		if err := json.Unmarshal([]byte(row.Header), &a.Header); err != nil {
			return nil, fmt.Errorf("board: claim key: stored header: %w", err)
		}
		return a, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrKeyInFlight, k.Key)
}

// FinishKey stores the answer of the write that claimed k, to be replayed
// by [Store.ClaimKey].
func (s *Store) FinishKey(ctx context.Context, k IdemKey, a Answer) error {
	h := a.Header
	if h == nil {
		h = map[string]string{}
	}
	header, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("board: finish key: %w", err)
	}
	_, err = s.write.ExecContext(ctx, `UPDATE idempotency_keys SET status = ?, header = ?, body = ?
	WHERE scope = ? AND route = ? AND key = ? AND request_hash = ? AND status IS NULL`,
		a.Status, string(header), string(a.Body), k.Scope, k.Route, k.Key, k.RequestHash)
	if err != nil {
		return Classify(fmt.Errorf("board: finish key: %w", err))
	}
	return nil
}

// ReleaseKey gives up the claim on k, for a write that failed in a way a
// retry may not (a 5xx): the next request with the key runs again.
func (s *Store) ReleaseKey(ctx context.Context, k IdemKey) error {
	_, err := s.write.ExecContext(ctx, `DELETE FROM idempotency_keys
	WHERE scope = ? AND route = ? AND key = ? AND request_hash = ? AND status IS NULL`, k.Scope, k.Route, k.Key, k.RequestHash)
	if err != nil {
		return Classify(fmt.Errorf("board: release key: %w", err))
	}
	return nil
}

// ExpireKeys removes at most limit keys claimed before cutoff and returns
// how many it removed. One bounded statement, so that it never holds the
// write lock for long.
func (s *Store) ExpireKeys(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE (scope, route, key) IN
	(SELECT scope, route, key FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)`, cutoff.UTC(), limit)
	if err != nil {
		return 0, Classify(fmt.Errorf("board: expire keys: %w", err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("board: expire keys: %w", err)
	}
	return n, nil
}

// expireBatch and expireEvery bound the clean-up ClaimKey does: at most
// expireBatch expired keys, at most once per expireEvery (store clock).
const (
	expireBatch = 200
	expireEvery = time.Minute
)

// expireKeysSometimes removes a batch of expired keys when the last
// batch is older than expireEvery; an error is left for the next time.
func (s *Store) expireKeysSometimes(ctx context.Context) {
	now := s.clock()
	last := s.keysExpired.Load()
	if now.UnixNano()-last < int64(expireEvery) || !s.keysExpired.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	_, _ = s.ExpireKeys(ctx, now.Add(-KeyTTL), expireBatch)
}
