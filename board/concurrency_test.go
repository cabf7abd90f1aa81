package board_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// TestConcurrentWrites: 64 goroutines post predictions, replies and
// reactions at once. No write may fail (SQLite queues them on its single
// writer connection), every row must be there, and every counter must
// equal a recount of the rows.
func TestConcurrentWrites(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		concurrentWrites(t, s, s)
	})
}

// TestTwoStoresOneDatabase opens two stores on the same database at once,
// as two replicas (or two processes on one SQLite file) would, then writes
// through both.
func TestTwoStoresOneDatabase(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			dsn := b.dsn(t)
			var stores [2]*board.Store
			var errs [2]error
			var wg sync.WaitGroup
			for i := range stores {
				wg.Go(func() { stores[i], errs[i] = board.Open(context.Background(), dsn, board.Options{}) })
			}
			wg.Wait()
			for i, s := range stores {
				if errs[i] != nil {
					t.Fatalf("Open #%d: %v", i, errs[i])
				}
				t.Cleanup(func() { s.Close() })
			}
			concurrentWrites(t, stores[0], stores[1])
		})
	}
}

func concurrentWrites(t *testing.T, s1, s2 *board.Store) {
	ctx := context.Background()
	const workers, seeds, repliesEach = 64, 8, 3
	var seed []board.Prediction
	for i := range seeds {
		seed = append(seed, mustCreate(t, s1, newPrediction(fmt.Sprintf("seed-%d", i))))
	}
	kinds := []board.ReactionKind{board.ReactionAgree, board.ReactionDisagree, board.ReactionUncertain}
	var mu sync.Mutex
	pairs := map[string]bool{} // prediction/agent pairs that reacted
	var wg sync.WaitGroup
	errc := make(chan error, workers*10)
	for w := range workers {
		s := s1
		if w%2 == 1 {
			s = s2
		}
		wg.Go(func() {
			agent := fmt.Sprintf("agent-%d", w%16) // shared, so reactions get replaced
			np := newPrediction(agent)
			np.Domain = board.Domains()[w%13]
			if _, err := s.CreatePrediction(ctx, np); err != nil {
				errc <- err
				return
			}
			for r := range repliesEach {
				p := seed[(w+r)%seeds]
				if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: agent, Body: fmt.Sprintf("reply %d/%d", w, r)}); err != nil {
					errc <- err
				}
				if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: agent, Reaction: kinds[(w+r)%3]}); err != nil {
					errc <- err
				}
				mu.Lock()
				pairs[p.ID+"/"+agent] = true
				mu.Unlock()
			}
			if w%8 == 0 {
				if _, err := s.Resolve(ctx, seed[w/8].ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
					errc <- err
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Errorf("concurrent write: %v", err)
	}
	got, err := board.RowCounts(ctx, s1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"agents":      seeds + 16,
		"predictions": seeds + workers,
		"replies":     workers * repliesEach,
		"reactions":   len(pairs),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("row counts (-want +got):\n%s", diff)
	}
	checkCounters(t, s1)
	st, err := s2.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Predictions != want["predictions"] || st.Replies != want["replies"] || st.Reactions != want["reactions"] || st.Resolved != seeds {
		t.Errorf("Stats = %+v, want %v and %d resolved", st, want, seeds)
	}
}

// TestConcurrentOneAgent: the writes that once deadlocked on PostgreSQL
// (resolving locked the domain counter then the agent row, posting the
// other way round) run at once on one agent: 4 creators, 4 repliers, 4
// forecasters and 4 resolvers, each several times. Every write succeeds
// (the lock order is one, and a deadlock or serialization failure would
// be retried), every counter equals a recount and every community
// forecast equals a recomputation from the standing forecasts.
func TestConcurrentOneAgent(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		const each, rounds = 4, 5
		var seed []board.Prediction
		for i := range each * rounds {
			np := newPrediction("hot")
			np.Domain = board.Domains()[i%3]
			seed = append(seed, mustCreate(t, s, np))
		}
		errc := make(chan error, 4*each*rounds)
		var wg sync.WaitGroup
		for w := range each {
			wg.Go(func() { // creators
				for r := range rounds {
					np := newPrediction("hot")
					np.Domain = board.Domains()[(w+r)%3]
					if _, err := s.CreatePrediction(ctx, np); err != nil {
						errc <- fmt.Errorf("create: %w", err)
					}
				}
			})
			wg.Go(func() { // repliers
				for r := range rounds {
					if _, err := s.Reply(ctx, seed[(w*rounds+r+1)%len(seed)].ID, board.NewReply{AgentID: "hot", Body: "[CHALLENGE] new data"}); err != nil {
						errc <- fmt.Errorf("reply: %w", err)
					}
				}
			})
			wg.Go(func() { // forecasters, on predictions nobody resolves
				for r := range rounds {
					p := seed[(w*rounds+r+2)%len(seed)]
					if p.ID == seed[w*rounds+r].ID {
						continue
					}
					_, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: fmt.Sprintf("hot-%d", w), P: json.RawMessage(fmt.Sprintf("0.%d", r+3))})
					if err != nil && !errors.Is(err, board.ErrClosed) {
						errc <- fmt.Errorf("forecast: %w", err)
					}
				}
			})
			wg.Go(func() { // resolvers
				for r := range rounds {
					if _, err := s.Resolve(ctx, seed[w*rounds+r].ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
						errc <- fmt.Errorf("resolve: %w", err)
					}
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Errorf("concurrent write: %v", err)
		}
		checkCounters(t, s)
		for _, p := range seed {
			if bad, err := s.CommunityMismatches(ctx, p.ID); err != nil || len(bad) > 0 {
				t.Errorf("community of %s: %v, %v", p.ID, bad, err)
			}
		}
	})
}
