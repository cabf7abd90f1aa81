package board

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkBackup measures Backup of a SQLite board of
// PREDICTIONS_BENCH_ROWS predictions (default 100,000) in its two steps,
// VACUUM INTO and the rebuild of the copy's full-text index, against a
// plain copy of the checkpointed file in the same iteration (what cp
// would cost, without a consistent snapshot of a live board).
func BenchmarkBackup(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("PREDICTIONS_BENCH_ROWS")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	src := filepath.Join(dir, "board.db")
	s, err := Open(context.Background(), src, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	seedBulk(b, s, n)
	ctx := context.Background()
	if _, err := s.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	var vacuum, rebuild, plain time.Duration
	b.ResetTimer()
	for i := range b.N {
		tmp := filepath.Join(dir, "copy-"+strconv.Itoa(i)+".db")
		if err := os.WriteFile(tmp, nil, 0o600); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := s.vacuumInto(ctx, tmp); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := rebuildSearch(ctx, tmp); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		raw, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(tmp+".plain", raw, 0o600)
		}
		if err == nil {
			err = syncFile(tmp + ".plain")
		}
		if err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		vacuum, rebuild, plain = vacuum+t1.Sub(t0), rebuild+t2.Sub(t1), plain+t3.Sub(t2)
		os.Remove(tmp)
		os.Remove(tmp + ".plain")
	}
	st, _ := os.Stat(src)
	b.ReportMetric(float64(st.Size())/(1<<20), "MB")
	b.ReportMetric(float64(vacuum.Milliseconds())/float64(b.N), "vacuum-ms")
	b.ReportMetric(float64(rebuild.Milliseconds())/float64(b.N), "rebuild-ms")
	b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "file-copy-ms")
}
