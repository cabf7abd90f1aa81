package board

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seedBulk fills an empty board with n predictions in one INSERT ... SELECT
// over a recursive CTE (no per-row round trip; the FTS5 triggers and
// every index are kept as for any insert), one second apart from
// 2025-01-01, the domains in turn, confidence and popularity spread, and
// sets the domain counters from them.
func seedBulk(tb testing.TB, s *Store, n int) {
	tb.Helper()
	ctx := context.Background()
	var cases strings.Builder
	for i, d := range domains {
		fmt.Fprintf(&cases, " WHEN %d THEN '%s'", i, d)
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if s.pg {
		quoted := make([]string, len(domains))
		for i, d := range domains {
			quoted[i] = "'" + d + "'"
		}
		cases.Reset()
		cases.WriteString("(ARRAY[" + strings.Join(quoted, ", ") + "])[i % " + strconv.Itoa(len(domains)) + " + 1]")
	}
	stmts := []string{
		`INSERT INTO agents (id, name, first_seen, last_seen) VALUES ('bulk', 'bulk', '` + storedTime(start) + `', '` + storedTime(start) + `')`,
		`WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ` + strconv.Itoa(n) + `)
INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at, agree, popularity)
SELECT printf('%08x-0000-7000-8000-%012x', i, i), 'bulk', 'Prediction ' || i, 'Body of prediction ' || i || ' about launches.',
	(i * 37 % 101) / 100.0, 'Q1', CASE i % ` + strconv.Itoa(len(domains)) + cases.String() + ` END,
	strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', '+' || i || ' seconds') || '+00:00', i * 7 % 50, i * 7 % 50
FROM seq`,
		`INSERT INTO domain_counts (domain, shard, predictions) SELECT domain, 0, COUNT(*) FROM predictions GROUP BY domain`,
	}
	if s.pg {
		// generate_series, in statements of 100,000 rows: one statement
		// of a million outlasts the driver's read timeout.
		inserts := []string{stmts[0]}
		for lo := 0; lo < n; lo += 100_000 {
			inserts = append(inserts, `INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at, agree, popularity)
SELECT lpad(to_hex(i), 8, '0') || '-0000-7000-8000-' || lpad(to_hex(i), 12, '0'), 'bulk', 'Prediction ' || i,
	'Body of prediction ' || i || ' about launches.', (i * 37 % 101) / 100.0, 'Q1', `+cases.String()+`,
	timestamptz '2025-01-01 00:00:00+00' + i * interval '1 second', i * 7 % 50, i * 7 % 50
FROM generate_series(`+strconv.Itoa(lo)+`, `+strconv.Itoa(min(lo+100_000, n)-1)+`) AS i`)
		}
		stmts = append(inserts, stmts[2], `ANALYZE predictions`)
	}
	for _, q := range stmts {
		if _, err := s.write.ExecContext(ctx, q); err != nil {
			tb.Fatalf("%v\n%s", err, q)
		}
	}
}

// BenchmarkFeedDepth measures, in one run over PREDICTIONS_BENCH_ROWS
// predictions (default 1,000,000; the seed takes a few minutes on two
// cores), on SQLite and, when PREDICTIONS_TEST_POSTGRES names a server, on
// a fresh PostgreSQL database, the feed with the domain filter Science (1/13 of the rows) for
// each sort: the first page, the page after a cursor at depth 10,000 and
// the page at offset 10,000. The three pages are read in turn in each
// iteration, so they share the machine's state, and the benchmark reports
// each one's ns/page and the ratios cursor/first and offset/first. On
// SQLite the page cache is off: every page is read from the database.
func BenchmarkFeedDepth(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("PREDICTIONS_BENCH_ROWS")); err == nil && v > 0 {
		n = v
	}
	const depth = 10_000
	dbs := []string{"sqlite"}
	if os.Getenv("PREDICTIONS_TEST_POSTGRES") != "" {
		dbs = append(dbs, "postgres")
	}
	for _, db := range dbs {
		var s *Store
		if db == "postgres" {
			var err error
			if s, err = Open(context.Background(), pgTestDatabase(b, os.Getenv("PREDICTIONS_TEST_POSTGRES")), Options{}); err != nil {
				b.Fatal(err)
			}
			defer s.Close()
		} else {
			s = benchStore(b, Options{noPageCache: true}) // the queries, not the cache
		}
		t0 := time.Now()
		seedBulk(b, s, n)
		b.Logf("%s: seeded %d predictions in %v", db, n, time.Since(t0).Round(time.Second))
		benchDepth(b, s, db, n, depth)
	}
}

// benchDepth is BenchmarkFeedDepth on one seeded store.
func benchDepth(b *testing.B, s *Store, db string, n, depth int) {
	ctx := context.Background()
	for _, sort := range []Sort{SortRecent, SortConfidence, SortPopular} {
		q := FeedQuery{Domain: "Science", Sort: sort}
		// The cursor at depth 10,000: walk there by pages of 100.
		walk := q
		walk.Limit = MaxLimit
		for range depth / MaxLimit {
			f, err := s.Feed(ctx, walk)
			if err != nil || f.NextCursor == "" {
				b.Fatalf("walking to depth %d: %v (n too small?)", depth, err)
			}
			walk.Cursor = f.NextCursor
		}
		deep, off := q, q
		deep.Cursor, off.Offset = walk.Cursor, depth
		b.Run(fmt.Sprintf("%s/n=%d/domain=Science/sort=%s", db, n, sort), func(b *testing.B) {
			var spent [3]time.Duration
			for b.Loop() {
				for i, fq := range []FeedQuery{q, deep, off} {
					t := time.Now()
					f, err := s.Feed(ctx, fq)
					spent[i] += time.Since(t)
					if err != nil || len(f.Predictions) != DefaultLimit {
						b.Fatalf("Feed(%+v): %d predictions, %v", fq, len(f.Predictions), err)
					}
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
			b.ReportMetric(per(spent[0]), "first-ns/page")
			b.ReportMetric(per(spent[1]), "cursor10k-ns/page")
			b.ReportMetric(per(spent[2]), "offset10k-ns/page")
			b.ReportMetric(per(spent[1])/per(spent[0]), "cursor/first")
			b.ReportMetric(per(spent[2])/per(spent[0]), "offset/first")
		})
	}
}
