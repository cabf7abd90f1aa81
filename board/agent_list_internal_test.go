package board

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun"
)

// TestScanningRestoresCache: a page of agents runs with the small page
// cache and leaves the connection's own size behind.
func TestScanningRestoresCache(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "b.db"), Options{ReadConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var before, during, after int
	if err := s.read.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := s.scanning(ctx, func(db bun.IDB) error {
		return db.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&during)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Agents(ctx, AgentQuery{}); err != nil {
		t.Fatal(err)
	}
	if err := s.read.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if during != -scanCacheKiB || after != before {
		t.Errorf("cache_size before %d, during %d, after %d; want %d during and the first after", before, during, after, -scanCacheKiB)
	}
}

// BenchmarkAgentList reads the first page (limit 200) and the page after
// it of each sort over 100,000 agents on SQLite: a scan of the table per
// page, as no index orders the agents.
func BenchmarkAgentList(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "b.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.write.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO agents (id, name, first_seen, last_seen, scored, peer_sum, fbrier_sum)
SELECT 'a' || i, 'a' || i, '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00', i % 5, (i % 5) * (i % 201 - 100), (i % 5) * (i % 97) / 100.0 FROM n`); err != nil {
		b.Fatal(err)
	}
	for _, sort := range []AgentSort{AgentSortRecent, AgentSortPeer, AgentSortBrier, AgentSortTrust} {
		first, err := s.Agents(ctx, AgentQuery{Sort: sort, Limit: MaxAgentLimit})
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range []struct {
			name string
			q    AgentQuery
		}{{"first", AgentQuery{Sort: sort, Limit: MaxAgentLimit}}, {"after", AgentQuery{Sort: sort, Limit: MaxAgentLimit, Cursor: first.NextCursor}}} {
			b.Run(string(sort)+"/"+q.name, func(b *testing.B) {
				for b.Loop() {
					if p, err := s.Agents(ctx, q.q); err != nil || len(p.Agents) != MaxAgentLimit {
						b.Fatalf("%d agents, %v", len(p.Agents), err)
					}
				}
			})
		}
	}
}
