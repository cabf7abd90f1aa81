package board_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/disktest"
	"github.com/uptrace/bun/driver/pgdriver"
)

func TestCheckWriteClosed(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		if err := s.CheckWrite(ctx); err != nil {
			t.Fatalf("CheckWrite on a working store: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for name, err := range map[string]error{"CheckWrite": s.CheckWrite(ctx), "Ping": s.Ping(ctx)} {
			if !errors.Is(err, board.ErrUnavailable) {
				t.Errorf("%s on a closed store = %v, want ErrUnavailable", name, err)
			}
		}
		_, err := s.CreatePrediction(ctx, newPrediction("a"))
		if !errors.Is(err, board.ErrUnavailable) {
			t.Errorf("CreatePrediction on a closed store = %v, want ErrUnavailable", err)
		}
	})
}

// Under a write flood the check does not queue behind the writer: a
// write that just committed answers for the database.
func TestCheckWriteWhileWriterBusy(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		mustCreate(t, s, newPrediction("a"))
		wrote := time.Now()
		release, err := board.HoldWriter(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if time.Since(wrote) > board.RecentWrite/2 {
			t.Skipf("the machine took %v to begin a transaction; the write is no longer recent", time.Since(wrote))
		}
		cctx, cancel := context.WithTimeout(ctx, board.RecentWrite/2)
		defer cancel()
		if err := s.CheckWrite(cctx); err != nil {
			t.Errorf("CheckWrite right after a write, the writer busy = %v, want nil", err)
		}
	})
}

// Another process holds the SQLite write lock beyond the busy timeout.
func TestCheckWriteLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "board.db")
	holder := mustOpen(t, path, board.Options{})
	other := mustOpen(t, path, board.Options{BusyTimeout: 100 * time.Millisecond})
	ctx := context.Background()
	if err := other.CheckWrite(ctx); err != nil {
		t.Fatalf("CheckWrite before the lock: %v", err)
	}
	release, err := board.HoldWriter(ctx, holder)
	if err != nil {
		t.Fatal(err)
	}
	board.ForgetCheck(other) // the check's result of a moment ago would answer
	if err := other.CheckWrite(ctx); !errors.Is(err, board.ErrUnavailable) {
		t.Errorf("CheckWrite with the file locked = %v, want ErrUnavailable", err)
	}
	if _, err := other.CreatePrediction(ctx, newPrediction("a")); !errors.Is(err, board.ErrUnavailable) {
		t.Errorf("CreatePrediction with the file locked = %v, want ErrUnavailable", err)
	}
	if err := other.Ping(ctx); err != nil {
		t.Errorf("Ping (a read) with the file locked for writing = %v, want nil", err)
	}
	release()
	board.ForgetCheck(other)
	if err := other.CheckWrite(ctx); err != nil {
		t.Errorf("CheckWrite after the lock: %v", err)
	}
}

// PostgreSQL stops accepting writes on the board's database (as a standby
// would), and the store's connections are terminated.
func TestCheckWritePostgresReadOnly(t *testing.T) {
	admin := os.Getenv(pgEnv)
	if admin == "" {
		t.Skipf("%s is not set", pgEnv)
	}
	dsn := pgDatabase(t)
	s := mustOpen(t, dsn, board.Options{})
	ctx := context.Background()
	if err := s.CheckWrite(ctx); err != nil {
		t.Fatalf("CheckWrite on a working store: %v", err)
	}
	u, _ := url.Parse(dsn)
	name := strings.TrimPrefix(u.Path, "/")
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	defer db.Close()
	for _, q := range []string{
		"ALTER DATABASE " + name + " SET default_transaction_read_only = on",
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "' AND pid <> pg_backend_pid()",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i := range 2 { // a terminated connection is never used: both meet a read-only database
		board.ForgetCheck(s)
		if err := s.CheckWrite(ctx); !errors.Is(err, board.ErrUnavailable) {
			t.Errorf("CheckWrite %d on a read-only database = %v, want ErrUnavailable", i, err)
		}
	}
	if _, err := s.CreatePrediction(ctx, newPrediction("a")); !errors.Is(err, board.ErrUnavailable) {
		t.Errorf("CreatePrediction on a read-only database = %v, want ErrUnavailable", err)
	}
	if _, err := db.ExecContext(ctx, "ALTER DATABASE "+name+" SET default_transaction_read_only = off"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+name+"' AND pid <> pg_backend_pid()"); err != nil {
		t.Fatal(err)
	}
	board.ForgetCheck(s)
	if err := s.CheckWrite(ctx); err != nil {
		t.Errorf("CheckWrite once writable again: %v", err)
	}
}

// The disk of a SQLite board is full (a tmpfs of its own, filled up: as
// root, a file's mode does not stop a write): writes fail, and so does
// CheckWrite, which writes a row as they do (a transaction that writes
// nothing would succeed). Once space is freed, both succeed again.
func TestCheckWriteDiskFull(t *testing.T) {
	dir := disktest.Mount(t, 8<<20)
	s := mustOpen(t, filepath.Join(dir, "board.db"), board.Options{})
	ctx := context.Background()
	mustCreate(t, s, newPrediction("a"))
	if err := s.CheckWrite(ctx); err != nil {
		t.Fatalf("CheckWrite before the disk is full: %v", err)
	}
	free := disktest.Fill(t, dir)
	if _, err := s.CreatePrediction(ctx, newPrediction("a")); !errors.Is(err, board.ErrUnavailable) {
		t.Fatalf("CreatePrediction on a full disk = %v, want ErrUnavailable", err)
	}
	board.ForgetCheck(s) // the write and the check of a moment ago would answer
	if err := s.CheckWrite(ctx); !errors.Is(err, board.ErrUnavailable) {
		t.Errorf("CheckWrite on a full disk = %v, want ErrUnavailable", err)
	}
	free()
	if err := s.CheckWrite(ctx); !errors.Is(err, board.ErrUnavailable) {
		t.Errorf("CheckWrite within a second of the failed probe = %v, want its result (ErrUnavailable)", err)
	}
	board.ForgetCheck(s)
	if err := s.CheckWrite(ctx); err != nil {
		t.Errorf("CheckWrite once space is freed: %v", err)
	}
	mustCreate(t, s, newPrediction("a"))
}

// Probes cost nothing: however often and however concurrently CheckWrite
// is asked, it writes board_health at most once per CheckInterval, and
// again once the last result is older than that.
func TestCheckWriteRate(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		start := time.Now()
		var calls atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for time.Since(start) < 2500*time.Millisecond {
					if err := s.CheckWrite(ctx); err != nil {
						t.Errorf("CheckWrite: %v", err)
						return
					}
					calls.Add(1)
					time.Sleep(time.Millisecond) // a probe every millisecond from each of 8
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		n, err := board.HealthChecks(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		// The first, then one per interval.
		if most := 1 + int(elapsed/board.CheckInterval); n < 2 || n > most {
			t.Errorf("%d checks in %v wrote board_health %d times, want 2 to %d", calls.Load(), elapsed, n, most)
		}
		t.Logf("%d checks in %v: %d writes", calls.Load(), elapsed.Round(time.Millisecond), n)
	})
}
