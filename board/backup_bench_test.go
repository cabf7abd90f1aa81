package board

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/predictions-md/predictions/internal/database"
)

// BenchmarkBackup measures Backup of a SQLite board of
// PREDICTIONS_BENCH_ROWS predictions (default 100,000) in its two steps,
// VACUUM INTO (with the file's creation) and the rebuild of the copy's
// full-text index, against a plain copy of the checkpointed file in the
// same iteration (what cp would cost, without a consistent snapshot of a
// live board).
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
		dst := filepath.Join(dir, "copy-"+strconv.Itoa(i)+".db")
		var t1, t2 time.Time
		t0 := time.Now()
		if err := database.BackupSQLite(ctx, s.read.DB, dst, func(ctx context.Context, tmp string) error {
			t1 = time.Now()
			defer func() { t2 = time.Now() }()
			return rebuildSearch(ctx, tmp)
		}); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		raw, err := os.ReadFile(src)
		if err == nil {
			err = writeSynced(dst+".plain", raw)
		}
		if err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		vacuum, rebuild, plain = vacuum+t1.Sub(t0), rebuild+t2.Sub(t1), plain+t4.Sub(t3)
		os.Remove(dst)
		os.Remove(dst + ".plain")
	}
	st, _ := os.Stat(src)
	b.ReportMetric(float64(st.Size())/(1<<20), "MB")
	b.ReportMetric(float64(vacuum.Milliseconds())/float64(b.N), "vacuum-ms")
	b.ReportMetric(float64(rebuild.Milliseconds())/float64(b.N), "rebuild-ms")
	b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "file-copy-ms")
}

// writeSynced writes b to a new file at path and flushes it to stable
// storage.
func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
