package board_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
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
	if err := s.CheckWrite(ctx); err != nil {
		t.Errorf("CheckWrite once writable again: %v", err)
	}
}
