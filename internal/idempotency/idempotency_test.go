package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/idempotency"
	"github.com/predictions-md/predictions/internal/testclock"
)

func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

// backends lists a fresh SQLite board always, and a PostgreSQL one when
// boardtest.PostgresEnv names a server.
func backends(t *testing.T) map[string]func(testing.TB) string {
	bs := map[string]func(testing.TB) string{"sqlite": boardtest.SQLite}
	if admin := os.Getenv(boardtest.PostgresEnv); admin != "" {
		bs["postgres"] = func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }
	} else {
		t.Logf("%s is not set: the PostgreSQL variants are skipped", boardtest.PostgresEnv)
	}
	return bs
}

func openBoard(tb testing.TB, dsn string) *board.Store {
	tb.Helper()
	s, err := board.Open(context.Background(), dsn, board.Options{})
	if err != nil {
		tb.Fatalf("board.Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func newKeys(tb testing.TB, s *board.Store, now func() time.Time) *idempotency.Store {
	tb.Helper()
	keys := idempotency.New(s.WriteDB(), idempotency.Options{Now: now})
	if err := keys.Migrate(context.Background()); err != nil {
		tb.Fatalf("Migrate: %v", err)
	}
	return keys
}

// claim runs Claim in a unit of work of its own and, when the key is
// unused, saves answer with it, as a write would.
func claim(s *board.Store, keys *idempotency.Store, k idempotency.Key, answer idempotency.Answer) (*idempotency.Answer, error) {
	var got *idempotency.Answer
	err := s.Atomically(context.Background(), func(ctx context.Context) error {
		var err error
		if got, err = keys.Claim(ctx, k); err != nil || got != nil {
			return err
		}
		return keys.Save(ctx, k, answer)
	})
	return got, err
}

// TestKeys runs one key through its states on each database: first use,
// replay, reuse with another request, another scope, expiry after TTL.
func TestKeys(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			clk := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
			s := openBoard(t, dsn(t))
			keys := newKeys(t, s, clk.Now)
			k := idempotency.Key{Scope: "caller", Route: "create_reply", Key: "k1", RequestHash: "h1"}
			other := k
			other.RequestHash = "h2"
			otherScope := k
			otherScope.Scope = "someone-else"
			answer := idempotency.Answer{Status: 201, Header: map[string]string{"Content-Type": "application/json"}, Body: []byte(`{"status":"reply_created"}`)}
			second := idempotency.Answer{Status: 200, Header: map[string]string{}, Body: []byte(`{}`)}
			steps := []struct {
				name    string
				advance time.Duration
				key     idempotency.Key
				want    *idempotency.Answer
				wantErr error
			}{
				{"first use runs the write", 0, k, nil, nil},
				{"replay", time.Hour, k, &answer, nil},
				{"another request", 0, other, nil, idempotency.ErrReused},
				{"another scope is another key", 0, otherScope, nil, nil},
				{"still replayed just before 24 h", idempotency.TTL - time.Hour - time.Second, k, &answer, nil},
				{"expired after 24 h: runs again", time.Second, other, nil, nil},
				{"the new request's answer is replayed", 0, other, &second, nil},
			}
			for _, st := range steps {
				clk.Advance(st.advance)
				save := answer
				if st.key == other {
					save = second
				}
				got, err := claim(s, keys, st.key, save)
				if !errors.Is(err, st.wantErr) {
					t.Fatalf("%s: error = %v, want %v", st.name, err, st.wantErr)
				}
				if diff := cmp.Diff(st.want, got); diff != "" {
					t.Fatalf("%s: answer (-want +got):\n%s", st.name, diff)
				}
			}
		})
	}
}

// TestRollback: a unit that fails keeps no key, so the retry runs.
func TestRollback(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := openBoard(t, dsn(t))
			keys := newKeys(t, s, nil)
			k := idempotency.Key{Scope: "s", Route: "r", Key: "k", RequestHash: "h"}
			failed := errors.New("the write failed")
			err := s.Atomically(context.Background(), func(ctx context.Context) error {
				if _, err := keys.Claim(ctx, k); err != nil {
					return err
				}
				if err := keys.Save(ctx, k, idempotency.Answer{Status: 201}); err != nil {
					return err
				}
				return failed
			})
			if !errors.Is(err, failed) {
				t.Fatalf("Atomically = %v, want %v", err, failed)
			}
			refusal := idempotency.Answer{Status: 400, Header: map[string]string{}, Body: []byte(`{"error":"p"}`)}
			if got, err := claim(s, keys, k, refusal); err != nil || got != nil {
				t.Fatalf("after a rollback: %v, %v; want the key unused", got, err)
			}
		})
	}
}

// TestNoUnit: Claim and Save outside a unit of work are refused.
func TestNoUnit(t *testing.T) {
	s := openBoard(t, boardtest.SQLite(t))
	keys := newKeys(t, s, nil)
	k := idempotency.Key{Scope: "s", Route: "r", Key: "k", RequestHash: "h"}
	if _, err := keys.Claim(context.Background(), k); !errors.Is(err, idempotency.ErrNoUnit) {
		t.Errorf("Claim = %v, want ErrNoUnit", err)
	}
	if err := keys.Save(context.Background(), k, idempotency.Answer{}); !errors.Is(err, idempotency.ErrNoUnit) {
		t.Errorf("Save = %v, want ErrNoUnit", err)
	}
}

// TestExpire: Expire removes keys stored before the cutoff, at most limit
// per call.
func TestExpire(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			clk := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
			s := openBoard(t, dsn(t))
			keys := newKeys(t, s, clk.Now)
			for _, key := range []string{"a", "b", "c"} {
				if _, err := claim(s, keys, idempotency.Key{Scope: "s", Route: "r", Key: key, RequestHash: "h"}, idempotency.Answer{Status: 201}); err != nil {
					t.Fatal(err)
				}
			}
			clk.Advance(time.Second)
			cutoff := clk.Now()
			for _, want := range []int64{2, 1, 0} {
				if n, err := keys.Expire(context.Background(), cutoff, 2); err != nil || n != want {
					t.Fatalf("Expire = %d, %v; want %d", n, err, want)
				}
			}
		})
	}
}

// TestExpiryKeepsUp: the clean-up inside Claim removes expired keys at
// least as fast as keys are saved, whatever the rate: a day's keys saved
// within one minute of the store's clock are all gone by the time as many
// new keys are saved a day later, and the table never holds more than
// one batch of expired keys beyond them.
func TestExpiryKeepsUp(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			clk := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
			s := openBoard(t, dsn(t))
			keys := newKeys(t, s, clk.Now)
			const n = 1000 // five times the 200 a minute once removed
			save := func(prefix string) {
				for i := range n {
					k := idempotency.Key{Scope: "s", Route: "r", Key: fmt.Sprintf("%s-%d", prefix, i), RequestHash: "h"}
					if _, err := claim(s, keys, k, idempotency.Answer{Status: 201}); err != nil {
						t.Fatal(err)
					}
				}
			}
			save("day1")
			clk.Advance(idempotency.TTL + time.Second)
			save("day2")
			var old, all int
			ctx := context.Background()
			if err := s.WriteDB().NewRaw("SELECT count(*) FROM idempotency_keys WHERE key LIKE 'day1-%'").Scan(ctx, &old); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteDB().NewRaw("SELECT count(*) FROM idempotency_keys").Scan(ctx, &all); err != nil {
				t.Fatal(err)
			}
			if old != 0 || all != n {
				t.Errorf("after %d keys a day after %d others: %d expired keys left of %d rows, want 0 of %d", n, n, old, all, n)
			}
		})
	}
}

// TestReplicas: requests racing with one key on two stores sharing one
// database (two replicas) write exactly once; the others replay the
// answer or are told the key is in flight.
func TestReplicas(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := dsn(t)
			boards := []*board.Store{openBoard(t, db), openBoard(t, db)}
			keys := []*idempotency.Store{newKeys(t, boards[0], nil), newKeys(t, boards[1], nil)}
			for round := range 5 {
				k := idempotency.Key{Scope: "s", Route: "r", Key: string(rune('a' + round)), RequestHash: "h"}
				const racers = 8
				var wg sync.WaitGroup
				var writes atomic.Int32
				errs := make(chan error, racers)
				for i := range racers {
					wg.Go(func() {
						s, ks := boards[i%2], keys[i%2]
						errs <- s.Atomically(context.Background(), func(ctx context.Context) error {
							a, err := ks.Claim(ctx, k)
							if err != nil || a != nil {
								return err
							}
							time.Sleep(time.Millisecond) // the write
							writes.Add(1)
							return ks.Save(ctx, k, idempotency.Answer{Status: 201})
						})
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil && !errors.Is(err, idempotency.ErrInFlight) {
						t.Fatalf("round %d: %v", round, err)
					}
				}
				if n := writes.Load(); n < 1 {
					t.Fatalf("round %d: no write", round)
				}
				// A unit may run its write and then lose the commit only
				// by rolling back, which leaves no key: count the keys.
				var stored int
				if err := boards[0].WriteDB().NewRaw(`SELECT COUNT(*) FROM idempotency_keys WHERE key = ?`, k.Key).Scan(context.Background(), &stored); err != nil {
					t.Fatal(err)
				}
				if stored != 1 || writes.Load() != 1 {
					t.Fatalf("round %d: %d writes, %d keys; want exactly 1 of each", round, writes.Load(), stored)
				}
			}
		})
	}
}

// TestTakeover: a board whose idempotency keys were kept by the board
// itself (the table as board's migration 20261127000030 made it) keeps
// every key when the package takes the table over: a finished key is
// replayed, and a claim left in flight counts as running until Lease.
func TestTakeover(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clk := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
			s := openBoard(t, dsn(t))
			ts := "TIMESTAMP"
			if s.Dialect() == "postgres" {
				ts = "TIMESTAMPTZ"
			}
			for _, q := range []string{
				`CREATE TABLE idempotency_keys (scope TEXT NOT NULL, route TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
	status INTEGER, header TEXT NOT NULL DEFAULT '{}', body TEXT NOT NULL DEFAULT '', created_at ` + ts + ` NOT NULL, PRIMARY KEY (scope, route, key))`,
				`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`,
			} {
				if _, err := s.WriteDB().ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.WriteDB().ExecContext(ctx, `INSERT INTO idempotency_keys (scope, route, key, request_hash, status, header, body, created_at)
	VALUES ('s', 'r', 'done', 'h', 201, '{"Location":"/api/predictions/x"}', '{"ok":true}', ?), ('s', 'r', 'running', 'h', NULL, '{}', '', ?)`,
				clk.Now(), clk.Now()); err != nil {
				t.Fatal(err)
			}
			keys := newKeys(t, s, clk.Now)
			done := idempotency.Key{Scope: "s", Route: "r", Key: "done", RequestHash: "h"}
			running := done
			running.Key = "running"
			want := &idempotency.Answer{Status: 201, Header: map[string]string{"Location": "/api/predictions/x"}, Body: []byte(`{"ok":true}`)}
			if got, err := claim(s, keys, done, idempotency.Answer{Status: 200}); err != nil || !cmp.Equal(got, want) {
				t.Fatalf("finished key after the takeover: %v, %v; want %v", got, err, want)
			}
			clk.Advance(idempotency.Lease - time.Second)
			if _, err := claim(s, keys, running, idempotency.Answer{Status: 201}); !errors.Is(err, idempotency.ErrInFlight) {
				t.Fatalf("claim left in flight, within the lease: %v, want ErrInFlight", err)
			}
			clk.Advance(time.Second)
			if got, err := claim(s, keys, running, idempotency.Answer{Status: 201}); err != nil || got != nil {
				t.Fatalf("claim left in flight, after the lease: %v, %v; want the key unused", got, err)
			}
			if got, err := claim(s, keys, running, idempotency.Answer{Status: 200}); err != nil || got == nil || got.Status != 201 {
				t.Fatalf("after the takeover's write: %v, %v; want its 201 replayed", got, err)
			}
		})
	}
}
