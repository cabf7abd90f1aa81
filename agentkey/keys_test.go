package agentkey_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/agentkey"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/uptrace/bun"
)

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

// forEachDB runs fn on SQLite and, when PREDICTIONS_TEST_POSTGRES is
// set, on PostgreSQL, each with a migrated empty board.
func forEachDB(t *testing.T, fn func(t *testing.T, b *board.Store)) {
	t.Helper()
	dsns := map[string]func(testing.TB) string{"sqlite": boardtest.SQLite}
	if admin := os.Getenv("PREDICTIONS_TEST_POSTGRES"); admin != "" {
		dsns["postgres"] = func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }
	}
	for _, name := range []string{"sqlite", "postgres"} {
		if dsn, ok := dsns[name]; ok {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				b, err := board.Open(context.Background(), dsn(t), board.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { b.Close() })
				fn(t, b)
			})
		}
	}
}

func mustOpen(t *testing.T, b *board.Store, opt agentkey.Options) *agentkey.Store {
	t.Helper()
	s, err := agentkey.Open(context.Background(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storedHash returns what agent_keys holds for the agent.
func storedHash(ctx context.Context, b *board.Store, agentID string) (string, error) {
	var h string
	err := b.WriteDB().NewRaw(`SELECT hash FROM agent_keys WHERE agent_id = ?`, agentID).Scan(ctx, &h)
	return h, err
}

func TestKeys(t *testing.T) {
	forEachDB(t, func(t *testing.T, b *board.Store) {
		s := mustOpen(t, b, agentkey.Options{Now: testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)).Now})
		ctx := context.Background()

		if err := s.CheckKey(ctx, "agent-a", "pk_anything"); !errors.Is(err, agentkey.ErrNoKey) {
			t.Errorf("CheckKey before IssueKey = %v, want ErrNoKey", err)
		}
		if _, err := s.RotateKey(ctx, "agent-a", "pk_anything"); !errors.Is(err, agentkey.ErrNoKey) {
			t.Errorf("RotateKey before IssueKey = %v, want ErrNoKey", err)
		}

		key, err := s.IssueKey(ctx, "agent-a")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(key, agentkey.KeyPrefix) || len(key) != 46 {
			t.Errorf("key = %q, want pk_ and 43 base64url characters", key)
		}

		// Only the hash is stored.
		stored, err := storedHash(ctx, b, "agent-a")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(key))
		if stored == key || strings.Contains(stored, key) || stored != hex.EncodeToString(sum[:]) {
			t.Errorf("stored %q for key %q, want its SHA-256 in hex", stored, key)
		}

		// First come registers: a second issue is refused.
		if _, err := s.IssueKey(ctx, "agent-a"); !errors.Is(err, agentkey.ErrKeyExists) {
			t.Errorf("second IssueKey = %v, want ErrKeyExists", err)
		}

		for _, tc := range []struct {
			agent, key string
			want       error
		}{
			{"agent-a", key, nil},
			{"agent-a", "agent-a", agentkey.ErrWrongKey},
			{"agent-a", "", agentkey.ErrWrongKey},
			{"agent-a", key + "x", agentkey.ErrWrongKey},
			{"agent-a", key[:len(key)-1], agentkey.ErrWrongKey},
			{"agent-a", stored, agentkey.ErrWrongKey}, // the hash is not a key
			{"agent-b", key, agentkey.ErrNoKey},
			{"Agent-A", key, agentkey.ErrNoKey}, // ids are case-sensitive
			{"bad id/..", key, agentkey.ErrNoKey},
		} {
			if err := s.CheckKey(ctx, tc.agent, tc.key); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("CheckKey(%q, %.12q) = %v, want %v", tc.agent, tc.key, err, tc.want)
			}
		}

		// Rotation needs the current key and invalidates it at once.
		if _, err := s.RotateKey(ctx, "agent-a", "agent-a"); !errors.Is(err, agentkey.ErrWrongKey) {
			t.Errorf("RotateKey with the agent id = %v, want ErrWrongKey", err)
		}
		key2, err := s.RotateKey(ctx, "agent-a", key)
		if err != nil {
			t.Fatal(err)
		}
		if key2 == key {
			t.Fatal("rotation returned the same key")
		}
		if err := s.CheckKey(ctx, "agent-a", key); !errors.Is(err, agentkey.ErrWrongKey) {
			t.Errorf("old key after rotation: %v, want ErrWrongKey", err)
		}
		if err := s.CheckKey(ctx, "agent-a", key2); err != nil {
			t.Errorf("new key after rotation: %v", err)
		}
		if _, err := s.RotateKey(ctx, "agent-a", key); !errors.Is(err, agentkey.ErrWrongKey) {
			t.Errorf("rotating with the old key = %v, want ErrWrongKey", err)
		}

		var ve *board.ValidationError
		for _, id := range []string{"", "a b", strings.Repeat("x", 65)} {
			if _, err := s.IssueKey(ctx, id); !errors.As(err, &ve) || ve.Field != "agent_id" {
				t.Errorf("IssueKey(%q) = %v, want a ValidationError on agent_id", id, err)
			}
		}
	})
}

// TestKeysRace: of many concurrent first registrations exactly one gets a
// key, and of many concurrent rotations with the same key exactly one wins.
func TestKeysRace(t *testing.T) {
	forEachDB(t, func(t *testing.T, b *board.Store) {
		s := mustOpen(t, b, agentkey.Options{})
		ctx := context.Background()
		const n = 16
		run := func(f func() (string, error)) (keys []string, errs []error) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					k, err := f()
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						errs = append(errs, err)
					} else {
						keys = append(keys, k)
					}
				})
			}
			wg.Wait()
			return keys, errs
		}
		keys, errs := run(func() (string, error) { return s.IssueKey(ctx, "racer") })
		if len(keys) != 1 {
			t.Fatalf("%d keys issued, want 1 (errors %v)", len(keys), errs)
		}
		for _, err := range errs {
			if !errors.Is(err, agentkey.ErrKeyExists) {
				t.Errorf("losing IssueKey: %v, want ErrKeyExists", err)
			}
		}
		rotated, errs := run(func() (string, error) { return s.RotateKey(ctx, "racer", keys[0]) })
		if len(rotated) != 1 {
			t.Fatalf("%d rotations won, want 1 (errors %v)", len(rotated), errs)
		}
		for _, err := range errs {
			if !errors.Is(err, agentkey.ErrWrongKey) {
				t.Errorf("losing RotateKey: %v, want ErrWrongKey", err)
			}
		}
		if err := s.CheckKey(ctx, "racer", rotated[0]); err != nil {
			t.Errorf("the winning rotation's key: %v", err)
		}
	})
}

// An agent id with NUL or another control character has no key, on both
// databases, never a database error (PostgreSQL refuses NUL in text).
func TestControlCharactersInIDs(t *testing.T) {
	forEachDB(t, func(t *testing.T, b *board.Store) {
		s := mustOpen(t, b, agentkey.Options{})
		ctx := context.Background()
		for _, bad := range []string{"\x00", "ada\x00", "a\x1fb", "\x7f", "\xff\xfe"} {
			if err := s.CheckKey(ctx, bad, "pk_x"); !errors.Is(err, agentkey.ErrNoKey) {
				t.Errorf("CheckKey(%q) = %v, want ErrNoKey", bad, err)
			}
		}
	})
}

// TestUpgrade opens the keys on a board made while the board kept them:
// its migration 20261122000002 made agent_keys, with the columns the
// keys' own first migration creates, and no agentkey_migrations table
// exists. Every key still authenticates its agent after the upgrade,
// its hash and times unchanged, and a rotated key stays rotated.
func TestUpgrade(t *testing.T) {
	forEachDB(t, func(t *testing.T, b *board.Store) {
		ctx := context.Background()
		s := mustOpen(t, b, agentkey.Options{})
		keys := map[string]string{}
		for _, agent := range []string{"ada", "bob", "carol"} {
			k, err := s.IssueKey(ctx, agent)
			if err != nil {
				t.Fatal(err)
			}
			keys[agent] = k
		}
		old := keys["bob"]
		k, err := s.RotateKey(ctx, "bob", old)
		if err != nil {
			t.Fatal(err)
		}
		keys["bob"] = k
		type row struct {
			AgentID   string       `bun:"agent_id"`
			Hash      string       `bun:"hash"`
			CreatedAt time.Time    `bun:"created_at"`
			RotatedAt bun.NullTime `bun:"rotated_at"`
		}
		read := func() []row {
			var rows []row
			if err := b.WriteDB().NewRaw(`SELECT agent_id, hash, created_at, rotated_at FROM agent_keys ORDER BY agent_id`).Scan(ctx, &rows); err != nil {
				t.Fatal(err)
			}
			return rows
		}
		before := read()

		// The board as today's main left it: the keys' table, and no
		// migration set of their own.
		for _, q := range []string{`DROP TABLE agentkey_migrations`, `DROP TABLE agentkey_migration_locks`} {
			if _, err := b.WriteDB().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		s = mustOpen(t, b, agentkey.Options{})
		var applied []string
		if err := b.WriteDB().NewRaw(`SELECT name FROM agentkey_migrations ORDER BY name`).Scan(ctx, &applied); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"20261202000020"}, applied); diff != "" {
			t.Errorf("migrations applied by the upgrade (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, read()); diff != "" {
			t.Errorf("agent_keys after the upgrade (-before +after):\n%s", diff)
		}
		for agent, key := range keys {
			if err := s.CheckKey(ctx, agent, key); err != nil {
				t.Errorf("CheckKey(%s) after the upgrade: %v", agent, err)
			}
		}
		if err := s.CheckKey(ctx, "bob", old); !errors.Is(err, agentkey.ErrWrongKey) {
			t.Errorf("bob's rotated-away key after the upgrade: %v, want ErrWrongKey", err)
		}
		// Opening again (another replica, a restart) changes nothing.
		mustOpen(t, b, agentkey.Options{})
		if diff := cmp.Diff(before, read()); diff != "" {
			t.Errorf("agent_keys after a second open (-before +after):\n%s", diff)
		}
	})
}
