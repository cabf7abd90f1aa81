package board_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/predictions-md/predictions/board"
)

func TestKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{Now: newClock().Now})
		ctx := context.Background()

		if err := s.CheckKey(ctx, "agent-a", "pk_anything"); !errors.Is(err, board.ErrNoKey) {
			t.Errorf("CheckKey before IssueKey = %v, want ErrNoKey", err)
		}
		if _, err := s.RotateKey(ctx, "agent-a", "pk_anything"); !errors.Is(err, board.ErrNoKey) {
			t.Errorf("RotateKey before IssueKey = %v, want ErrNoKey", err)
		}

		key, err := s.IssueKey(ctx, "agent-a")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(key, board.KeyPrefix) || len(key) != 46 {
			t.Errorf("key = %q, want pk_ and 43 base64url characters", key)
		}

		// Only the hash is stored.
		stored, err := board.StoredKeyHash(ctx, s, "agent-a")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(key))
		if stored == key || strings.Contains(stored, key) || stored != hex.EncodeToString(sum[:]) {
			t.Errorf("stored %q for key %q, want its SHA-256 in hex", stored, key)
		}

		// First come registers: a second issue is refused.
		if _, err := s.IssueKey(ctx, "agent-a"); !errors.Is(err, board.ErrKeyExists) {
			t.Errorf("second IssueKey = %v, want ErrKeyExists", err)
		}

		for _, tc := range []struct {
			agent, key string
			want       error
		}{
			{"agent-a", key, nil},
			{"agent-a", "agent-a", board.ErrWrongKey},
			{"agent-a", "", board.ErrWrongKey},
			{"agent-a", key + "x", board.ErrWrongKey},
			{"agent-a", key[:len(key)-1], board.ErrWrongKey},
			{"agent-a", stored, board.ErrWrongKey}, // the hash is not a key
			{"agent-b", key, board.ErrNoKey},
			{"Agent-A", key, board.ErrNoKey}, // ids are case-sensitive
			{"bad id/..", key, board.ErrNoKey},
		} {
			if err := s.CheckKey(ctx, tc.agent, tc.key); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("CheckKey(%q, %.12q) = %v, want %v", tc.agent, tc.key, err, tc.want)
			}
		}

		// Rotation needs the current key and invalidates it at once.
		if _, err := s.RotateKey(ctx, "agent-a", "agent-a"); !errors.Is(err, board.ErrWrongKey) {
			t.Errorf("RotateKey with the agent id = %v, want ErrWrongKey", err)
		}
		key2, err := s.RotateKey(ctx, "agent-a", key)
		if err != nil {
			t.Fatal(err)
		}
		if key2 == key {
			t.Fatal("rotation returned the same key")
		}
		if err := s.CheckKey(ctx, "agent-a", key); !errors.Is(err, board.ErrWrongKey) {
			t.Errorf("old key after rotation: %v, want ErrWrongKey", err)
		}
		if err := s.CheckKey(ctx, "agent-a", key2); err != nil {
			t.Errorf("new key after rotation: %v", err)
		}
		if _, err := s.RotateKey(ctx, "agent-a", key); !errors.Is(err, board.ErrWrongKey) {
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
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
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
			if !errors.Is(err, board.ErrKeyExists) {
				t.Errorf("losing IssueKey: %v, want ErrKeyExists", err)
			}
		}
		rotated, errs := run(func() (string, error) { return s.RotateKey(ctx, "racer", keys[0]) })
		if len(rotated) != 1 {
			t.Fatalf("%d rotations won, want 1 (errors %v)", len(rotated), errs)
		}
		for _, err := range errs {
			if !errors.Is(err, board.ErrWrongKey) {
				t.Errorf("losing RotateKey: %v, want ErrWrongKey", err)
			}
		}
		if err := s.CheckKey(ctx, "racer", rotated[0]); err != nil {
			t.Errorf("the winning rotation's key: %v", err)
		}
	})
}
