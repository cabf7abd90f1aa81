package loadbench

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/board"
	"github.com/uptrace/bun"
)

// rawInserter is the baseline of the board writes: goroutines insert
// prediction rows of the shape CreatePrediction writes through one
// bun/SQLite connection with the board's durability settings (WAL,
// synchronous=FULL, immediate transactions, foreign keys), each row its own
// committed transaction. The table and its indexes are the board's,
// created by board.Open; the agents exist beforehand.
type rawInserter struct {
	db     *bun.DB
	agents int
	seq    atomic.Uint64
}

func openRawInserter(ctx context.Context, dir string, agents int) (*rawInserter, error) {
	path := filepath.Join(dir, "raw.db")
	s, err := board.Open(ctx, path, board.Options{}) // the board's schema and indexes
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	db, err := openSQLite(path)
	if err != nil {
		return nil, err
	}
	ri := &rawInserter{db: db, agents: agents}
	now := time.Now().UTC()
	err = ri.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for a := range agents {
			id := fmt.Sprintf("agent-%d", a)
			if _, err := tx.ExecContext(ctx, `INSERT INTO agents (id, name, first_seen, last_seen) VALUES (?, ?, ?, ?)`, id, id, now, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		ri.db.Close()
		return nil, err
	}
	return ri, nil
}

func (ri *rawInserter) close() error { return ri.db.Close() }

func (ri *rawInserter) insert(ctx context.Context) error {
	i := ri.seq.Add(1)
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	domain := benchDomains[i%uint64(len(benchDomains))]
	_, err = ri.db.ExecContext(ctx, `INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, flags)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id.String(), fmt.Sprintf("agent-%d", i%uint64(ri.agents)), fmt.Sprintf("Load test prediction %d", i),
		"A prediction of typical length posted by the load benchmark: the open-weight model ranks first on the public leaderboard before the end of the quarter.",
		float64(i%99+1)/100, "Q4 2026", domain, time.Now().UTC().Truncate(time.Microsecond), "[]")
	return err
}

// run inserts from conns goroutines for d, adding to t unless it is nil.
func (ri *rawInserter) run(ctx context.Context, conns int, d time.Duration, t *tally) {
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		lat    []time.Duration
		errors uint64
	)
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	began := time.Now()
	for range conns {
		wg.Go(func() {
			var mine []time.Duration
			var errs []string
			for rctx.Err() == nil {
				start := time.Now()
				// A statement runs to its end once started: a cut-off
				// insert would count as neither a row nor an error.
				if err := ri.insert(context.WithoutCancel(rctx)); err != nil {
					errs = append(errs, err.Error())
					continue
				}
				mine = append(mine, time.Since(start))
			}
			if t == nil {
				return
			}
			mu.Lock()
			lat = append(lat, mine...)
			errors += uint64(len(errs))
			for _, e := range errs {
				t.fail(e)
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if t != nil {
		t.rounds = append(t.rounds, roundOf(lat, errors, time.Since(began)))
	}
}
