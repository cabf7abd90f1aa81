package board_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// TestIdempotencyKeys runs one key through its states on each database:
// claim, finish, replay, reuse with another request, in flight, release,
// expiry after board.KeyTTL and takeover of a claim abandoned beyond
// board.KeyLease (the store's clock is injected).
func TestIdempotencyKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		k := board.IdemKey{Scope: "caller", Route: "create_reply", Key: "k1", RequestHash: "h1"}
		other := k
		other.RequestHash = "h2"
		answer := board.Answer{Status: 201, Header: map[string]string{"Content-Type": "application/json"}, Body: []byte(`{"status":"reply_created"}`)}

		steps := []struct {
			name    string
			advance time.Duration
			do      func() (*board.Answer, error)
			want    *board.Answer
			wantErr error
		}{
			{"first claim runs the write", 0, func() (*board.Answer, error) { return s.ClaimKey(ctx, k) }, nil, nil},
			{"in flight", 0, func() (*board.Answer, error) { return s.ClaimKey(ctx, k) }, nil, board.ErrKeyInFlight},
			{"another request in flight", 0, func() (*board.Answer, error) { return s.ClaimKey(ctx, other) }, nil, board.ErrKeyReused},
			{"finish", 0, func() (*board.Answer, error) { return nil, s.FinishKey(ctx, k, answer) }, nil, nil},
			{"replay", time.Hour, func() (*board.Answer, error) { return s.ClaimKey(ctx, k) }, &answer, nil},
			{"another request", 0, func() (*board.Answer, error) { return s.ClaimKey(ctx, other) }, nil, board.ErrKeyReused},
			{"another scope is another key", 0, func() (*board.Answer, error) {
				o := k
				o.Scope = "someone-else"
				return s.ClaimKey(ctx, o)
			}, nil, nil},
			{"still replayed just before 24 h", board.KeyTTL - time.Hour - time.Second, func() (*board.Answer, error) { return s.ClaimKey(ctx, k) }, &answer, nil},
			{"expired after 24 h: claimed again", time.Second, func() (*board.Answer, error) { return s.ClaimKey(ctx, other) }, nil, nil},
			{"release", 0, func() (*board.Answer, error) { return nil, s.ReleaseKey(ctx, other) }, nil, nil},
			{"released: claimed again", 0, func() (*board.Answer, error) { return s.ClaimKey(ctx, k) }, nil, nil},
			{"in flight within the lease", board.KeyLease - time.Second, func() (*board.Answer, error) { return s.ClaimKey(ctx, k) }, nil, board.ErrKeyInFlight},
			{"abandoned beyond the lease: taken over", time.Second, func() (*board.Answer, error) { return s.ClaimKey(ctx, k) }, nil, nil},
		}
		for _, st := range steps {
			clk.Advance(st.advance)
			got, err := st.do()
			if !errors.Is(err, st.wantErr) {
				t.Fatalf("%s: error = %v, want %v", st.name, err, st.wantErr)
			}
			if diff := cmp.Diff(st.want, got); diff != "" {
				t.Fatalf("%s: answer (-want +got):\n%s", st.name, diff)
			}
		}
	})
}

// TestExpireKeys: ExpireKeys removes keys claimed before the cutoff, at
// most limit per call.
func TestExpireKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		for _, key := range []string{"a", "b", "c"} {
			if _, err := s.ClaimKey(ctx, board.IdemKey{Scope: "s", Route: "r", Key: key, RequestHash: "h"}); err != nil {
				t.Fatal(err)
			}
		}
		cutoff := clk.Advance(time.Second)
		for _, want := range []int64{2, 1, 0} {
			if n, err := s.ExpireKeys(ctx, cutoff, 2); err != nil || n != want {
				t.Fatalf("ExpireKeys = %d, %v; want %d", n, err, want)
			}
		}
	})
}

// TestClaimKeyReplicas: requests racing with one key on two stores
// sharing one database (two replicas) claim it exactly once.
func TestClaimKeyReplicas(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			dsn := b.dsn(t)
			stores := []*board.Store{mustOpen(t, dsn, board.Options{}), mustOpen(t, dsn, board.Options{})}
			for round := range 5 {
				k := board.IdemKey{Scope: "s", Route: "r", Key: string(rune('a' + round)), RequestHash: "h"}
				const racers = 8
				var wg sync.WaitGroup
				results := make(chan error, racers)
				for i := range racers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						a, err := stores[i%2].ClaimKey(context.Background(), k)
						if err == nil && a != nil {
							err = errors.New("replayed an answer that was never stored")
						}
						results <- err
					}()
				}
				wg.Wait()
				close(results)
				claimed := 0
				for err := range results {
					switch {
					case err == nil:
						claimed++
					case !errors.Is(err, board.ErrKeyInFlight):
						t.Fatalf("ClaimKey: %v", err)
					}
				}
				if claimed != 1 {
					t.Fatalf("round %d: %d claims, want exactly 1", round, claimed)
				}
			}
		})
	}
}
