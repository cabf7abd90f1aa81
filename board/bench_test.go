package board

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

func benchStore(b *testing.B, opt Options) *Store {
	b.Helper()
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), opt)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchPrediction(i int) NewPrediction {
	c := float64(i%101) / 100
	return NewPrediction{
		AgentID: fmt.Sprintf("agent-%d", i%50), Title: fmt.Sprintf("Prediction %d", i),
		Body: "Body text of a typical length for a forecast on the board.", Confidence: &c,
		Timeframe: "Q4 2026", Domain: domains[i%len(domains)],
	}
}

// BenchmarkCreatePrediction measures a full CreatePrediction on SQLite:
// validation, agent upsert, insert and domain counters in one durable
// transaction. Compare with BenchmarkCreatePredictionBaseline.
func BenchmarkCreatePrediction(b *testing.B) {
	s := benchStore(b, Options{})
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.CreatePrediction(ctx, benchPrediction(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkForecast measures a full Forecast on SQLite: validation, the
// prediction row lock, the agent upsert, the standing forecast, the
// community recomputed from the standing forecasts of 50 agents with
// package pool, and the history row, in one durable transaction. Compare
// with BenchmarkCreatePredictionBaseline.
func BenchmarkForecast(b *testing.B) {
	s := benchStore(b, Options{})
	ctx := context.Background()
	p, err := s.CreatePrediction(ctx, benchPrediction(0))
	if err != nil {
		b.Fatal(err)
	}
	ps := []json.RawMessage{json.RawMessage(`0.31`), json.RawMessage(`"62%"`), json.RawMessage(`0.77`)}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		nf := NewForecast{AgentID: fmt.Sprintf("agent-%d", i%50), P: ps[i%len(ps)]}
		if _, err := s.Forecast(ctx, p.ID, nf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreatePredictionBaseline is a raw bun insert of the same row into
// the same table (same indexes, WAL, synchronous=FULL, one autocommit
// transaction per row): the floor CreatePrediction is measured against.
func BenchmarkCreatePredictionBaseline(b *testing.B) {
	s := benchStore(b, Options{})
	ctx := context.Background()
	now := time.Now().UTC()
	if _, err := s.write.ExecContext(ctx, `INSERT INTO agents (id, name, first_seen, last_seen) VALUES ('agent-0', 'agent-0', ?, ?)`, now, now); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		np := benchPrediction(i)
		id, _ := newID()
		if _, err := s.write.ExecContext(ctx, `INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, flags)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, "agent-0", np.Title, np.Body, *np.Confidence, np.Timeframe, np.Domain, time.Now().UTC(), "[]"); err != nil {
			b.Fatal(err)
		}
	}
}

// fill bulk-inserts n predictions (multi-row inserts, 500 a transaction)
// with random confidence, popularity and domain, and sets the counters.
func fill(b *testing.B, s *Store, n int) {
	b.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.write.ExecContext(ctx, `INSERT INTO agents (id, name, first_seen, last_seen) VALUES ('bulk', 'bulk', ?, ?)`, start, start); err != nil {
		b.Fatal(err)
	}
	perDomain := map[string]int{}
	const batch = 500
	for done := 0; done < n; {
		err := s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var sb strings.Builder
			args := make([]any, 0, batch*8)
			sb.WriteString(`INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at, agree, popularity) VALUES `)
			for j := 0; j < batch && done < n; j, done = j+1, done+1 {
				if j > 0 {
					sb.WriteString(",")
				}
				sb.WriteString("(?, 'bulk', ?, 'body', ?, 'Q1', ?, ?, ?, ?)")
				id, _ := newID()
				d := domains[rng.IntN(len(domains))]
				perDomain[d]++
				pop := rng.IntN(50)
				args = append(args, id, fmt.Sprintf("p%d", done), float64(rng.IntN(101))/100, d,
					start.Add(time.Duration(done)*time.Second), pop, pop)
			}
			_, err := tx.ExecContext(ctx, sb.String(), args...)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	err := s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for d, k := range perDomain {
			if err := bumpDomain(ctx, tx, d, domainDelta{predictions: k}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFeed measures a feed page (limit 20, offset 0) for each sort,
// with and without the domain filter, over 10,000 predictions; set
// PREDICTIONS_BENCH_LARGE=1 for 1,000,000 (the fill takes minutes). Each
// is read from the page cache (cached: no write between the reads, so
// every read after the first is a hit) and from the database (uncached:
// what a read after a write costs).
func BenchmarkFeed(b *testing.B) {
	n := 10_000
	if os.Getenv("PREDICTIONS_BENCH_LARGE") == "1" {
		n = 1_000_000
	}
	dir := b.TempDir()
	ctx := context.Background()
	seeded, err := Open(ctx, filepath.Join(dir, "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	fill(b, seeded, n)
	if err := seeded.Close(); err != nil {
		b.Fatal(err)
	}
	for _, cache := range []struct {
		name string
		opt  Options
	}{{"cached", Options{}}, {"uncached", Options{noPageCache: true}}} {
		s, err := Open(ctx, filepath.Join(dir, "bench.db"), cache.opt)
		if err != nil {
			b.Fatal(err)
		}
		for _, sort := range []Sort{SortRecent, SortConfidence, SortPopular} {
			for _, domain := range []string{"", "Science"} {
				name := fmt.Sprintf("n=%d/sort=%s/domain=%s/%s", n, sort, domain, cache.name)
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						f, err := s.Feed(ctx, FeedQuery{Sort: sort, Domain: domain})
						if err != nil || len(f.Predictions) != DefaultLimit {
							b.Fatalf("Feed: %d predictions, %v", len(f.Predictions), err)
						}
					}
				})
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMixedParallel compares the SQLite pool layouts under a mixed
// load (one prediction written per ten feed reads, from parallel
// goroutines): a single connection for everything against one writer plus
// a read pool (the default).
func BenchmarkMixedParallel(b *testing.B) {
	for _, layout := range []struct {
		name string
		opt  Options
	}{{"one-pool", Options{singlePool: true}}, {"write+read-pools", Options{}}} {
		b.Run(layout.name, func(b *testing.B) {
			s := benchStore(b, layout.opt)
			fill(b, s, 2000)
			ctx := context.Background()
			var n atomic.Int64
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(n.Add(1))
					var err error
					if i%10 == 0 {
						_, err = s.CreatePrediction(ctx, benchPrediction(i))
					} else {
						_, err = s.Feed(ctx, FeedQuery{Sort: SortPopular})
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkParallelPost compares CreatePrediction with a plain INSERT of
// the same row into the same table (the board's indexes, made by Open)
// through the same *bun.DB, from 64 goroutines (b.SetParallelism(32) on
// the 2 cores these figures were taken on; scale -cpu to keep 64), on
// SQLite and, when PREDICTIONS_TEST_POSTGRES names a server, on a fresh
// PostgreSQL database. The posts come from 1,000 agents over the 13
// domains, as in the load benchmark. The ratio of the two ns/op is the
// figure in docs/RELIABILITY.md ("Writes on PostgreSQL: no hot rows").
func BenchmarkParallelPost(b *testing.B) {
	type target struct {
		name string
		dsn  func(b *testing.B) string
	}
	targets := []target{{"sqlite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "bench.db") }}}
	if admin := os.Getenv("PREDICTIONS_TEST_POSTGRES"); admin != "" {
		targets = append(targets, target{"postgres", func(b *testing.B) string { return pgTestDatabase(b, admin) }})
	}
	const agents = 1000
	for _, tg := range targets {
		for _, kind := range []string{"plain-insert", "board-post"} {
			b.Run(tg.name+"/"+kind, func(b *testing.B) {
				ctx := context.Background()
				s, err := Open(ctx, tg.dsn(b), Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				now := time.Now().UTC()
				err = s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
					for a := range agents {
						id := fmt.Sprintf("agent-%d", a)
						if _, err := tx.ExecContext(ctx, `INSERT INTO agents (id, name, first_seen, last_seen) VALUES (?, ?, ?, ?)`, id, id, now, now); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				var n atomic.Int64
				b.SetParallelism(32)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := int(n.Add(1))
						np := benchPrediction(i)
						np.AgentID = fmt.Sprintf("agent-%d", i%agents)
						if kind == "board-post" {
							if _, err := s.CreatePrediction(ctx, np); err != nil {
								b.Error(err)
								return
							}
							continue
						}
						id, _ := newID()
						if _, err := s.write.ExecContext(ctx, `INSERT INTO predictions
	(id, agent_id, title, body, confidence, timeframe, domain, created_at, flags, resolves, resolve_by)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
							id, np.AgentID, np.Title, np.Body, *np.Confidence, np.Timeframe, np.Domain, time.Now().UTC(), "[]", "", nil); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
