package loadbench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/board"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// rawInsert is the baseline of the board writes: conns goroutines insert
// prediction rows of the shape CreatePrediction writes, for d, through one
// bun/SQLite connection with the board's durability settings (WAL,
// synchronous=FULL, immediate transactions, foreign keys), each row its own
// committed transaction. The table and its indexes are the board's,
// created by board.Open. It returns rows per second.
func rawInsert(ctx context.Context, dir string, conns, agents int, warm, d time.Duration) (figures, error) {
	path := filepath.Join(dir, "raw.db")
	s, err := board.Open(ctx, path, board.Options{}) // the board's schema and indexes
	if err != nil {
		return figures{}, err
	}
	if err := s.Close(); err != nil {
		return figures{}, err
	}
	params := url.Values{}
	params.Add("_pragma", "busy_timeout(10000)")
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(FULL)")
	params.Add("_pragma", "foreign_keys(1)")
	sqldb, err := sql.Open(sqliteshim.ShimName, path+"?"+params.Encode()+"&_txlock=immediate")
	if err != nil {
		return figures{}, err
	}
	sqldb.SetMaxOpenConns(1)
	sqldb.SetMaxIdleConns(1)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()

	now := time.Now().UTC()
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for a := range agents {
			id := fmt.Sprintf("agent-%d", a)
			if _, err := tx.ExecContext(ctx, `INSERT INTO agents (id, name, first_seen, last_seen) VALUES (?, ?, ?, ?)`, id, id, now, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return figures{}, err
	}

	var seq atomic.Uint64
	insert := func(ctx context.Context) error {
		i := seq.Add(1)
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		domain := benchDomains[i%uint64(len(benchDomains))]
		_, err = db.ExecContext(ctx, `INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, flags)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id.String(), fmt.Sprintf("agent-%d", i%uint64(agents)), fmt.Sprintf("Load test prediction %d", i),
			"A prediction of typical length posted by the load benchmark: the open-weight model ranks first on the public leaderboard before the end of the quarter.",
			float64(i%99+1)/100, "Q4 2026", domain, time.Now().UTC().Truncate(time.Microsecond), "[]")
		return err
	}
	run := func(d time.Duration) figures {
		var (
			mu   sync.Mutex
			lat  []time.Duration
			errs atomic.Uint64
			wg   sync.WaitGroup
		)
		rctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		began := time.Now()
		for range conns {
			wg.Go(func() {
				var mine []time.Duration
				for rctx.Err() == nil {
					t := time.Now()
					// The statement runs to its end once started: a cut-off
					// insert would count as neither a row nor an error.
					if err := insert(context.WithoutCancel(rctx)); err != nil {
						errs.Add(1)
						continue
					}
					mine = append(mine, time.Since(t))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
		return latencyFigures(lat, errs.Load(), time.Since(began))
	}
	run(warm)
	f := run(d)
	if f.errors > 0 {
		f.errText = []string{"insert errors"}
	}
	return f, ctx.Err()
}
