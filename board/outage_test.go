package board_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database/databasetest"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// The board's own errors (a missing record, invalid input) are not
// outages; an outage is [board.ErrUnavailable], which is the database
// package's.
func TestClassifyBoardErrors(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("%w: no prediction", board.ErrNotFound),
		&board.ValidationError{Field: "title", Problem: "is empty"},
	} {
		if got := board.Classify(err); got != err {
			t.Errorf("Classify(%v) = %v, want it unchanged", err, got)
		}
	}
	if err := board.Classify(sql.ErrConnDone); !errors.Is(err, board.ErrUnavailable) {
		t.Errorf("Classify(sql.ErrConnDone) = %v, want ErrUnavailable", err)
	}
}

// A server that refuses connections: the error Open gives says so.
func TestClassifyRefused(t *testing.T) {
	_, err := board.Open(context.Background(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable", board.Options{})
	if err == nil {
		t.Fatal("Open on a closed port: no error")
	}
	if !errors.Is(board.Classify(err), board.ErrUnavailable) {
		t.Errorf("Classify(%v) does not wrap ErrUnavailable", err)
	}
}

// TestDeadConnections: pooled connections that died while idle are not
// used: after pg_terminate_backend of every connection of the store, or
// a cut of every connection between the store and the server (a TCP
// proxy closes them, as a restarted server or a middlebox would), reads
// and writes succeed on new connections. Once the server refuses new
// connections, they fail with ErrUnavailable.
func TestDeadConnections(t *testing.T) {
	if os.Getenv(pgEnv) == "" {
		t.Skipf("%s is not set", pgEnv)
	}
	ctx := context.Background()
	admin := databasetest.Admin(t)
	dsn := pgDatabase(t)
	u, _ := url.Parse(dsn)
	proxy := startProxy(t, u.Host)
	u.Host = proxy.addr()
	s := mustOpen(t, u.String(), board.Options{})
	p := mustCreate(t, s, newPrediction("a"))
	warm := func() { // several idle connections in the pool
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { _, _ = s.Feed(ctx, board.FeedQuery{}) })
		}
		wg.Wait()
	}
	use := func(when string) {
		t.Helper()
		for i := range 6 {
			if _, err := s.Feed(ctx, board.FeedQuery{}); err != nil {
				t.Errorf("%s: feed %d = %v, want a page", when, i, err)
			}
			if _, err := s.Prediction(ctx, p.ID); err != nil {
				t.Errorf("%s: prediction %d = %v", when, i, err)
			}
		}
		if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: "b", Reaction: "agree"}); err != nil {
			t.Errorf("%s: react = %v", when, err)
		}
	}
	warm()
	databasetest.Terminate(t, admin, databasetest.Name(t, dsn))
	use("after pg_terminate_backend")
	warm()
	proxy.cut()
	use("after a cut")
	proxy.close()
	if _, err := s.Feed(ctx, board.FeedQuery{}); !errors.Is(board.Classify(err), board.ErrUnavailable) {
		t.Errorf("feed with connections refused = %v, want an error Classify takes for ErrUnavailable", err)
	}
	if _, err := s.CreatePrediction(ctx, newPrediction("a")); !errors.Is(err, board.ErrUnavailable) {
		t.Errorf("post with connections refused = %v, want ErrUnavailable", err)
	}
}

// TestUnavailableWriteStoresNothing: a write that waits for a lock
// another holds beyond what the database allows answers ErrUnavailable,
// and nothing of it is stored once the lock is released. On PostgreSQL
// another connection holds the agent's row and the prediction's row
// (SELECT ... FOR UPDATE) past lock_timeout (half the driver's
// read_timeout, 2 s here) and past read_timeout itself: a prediction (one
// statement that is its own transaction) and a forecast (a transaction)
// wait for them. On SQLite another connection holds the write lock (BEGIN
// IMMEDIATE) beyond the busy timeout.
func TestUnavailableWriteStoresNothing(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			dsn := b.dsn(t)
			var s *board.Store
			var hold func() (release func())
			if b.name == "postgres" {
				u, _ := url.Parse(dsn)
				q := u.Query()
				q.Set("read_timeout", "2s")
				u.RawQuery = q.Encode()
				s = mustOpen(t, u.String(), board.Options{})
				holder := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
				t.Cleanup(func() { holder.Close() })
				hold = func() func() {
					tx, err := holder.BeginTx(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, q := range []string{`SELECT 1 FROM agents WHERE id = 'a' FOR UPDATE`, `SELECT 1 FROM predictions FOR UPDATE`} {
						if _, err := tx.ExecContext(ctx, q); err != nil {
							t.Fatal(err)
						}
					}
					return func() { _ = tx.Rollback() }
				}
			} else {
				s = mustOpen(t, dsn, board.Options{BusyTimeout: 200 * time.Millisecond})
				hold = holdSQLite(t, dsn)
			}
			first := mustCreate(t, s, newPrediction("a"))
			release := hold()
			start := time.Now()
			_, err := s.CreatePrediction(ctx, newPrediction("a"))
			if !errors.Is(err, board.ErrUnavailable) {
				t.Errorf("post with the lock held = %v, want ErrUnavailable", err)
			}
			took := time.Since(start)
			if _, err := s.Forecast(ctx, first.ID, board.NewForecast{AgentID: "b", P: json.RawMessage(`0.3`)}); !errors.Is(err, board.ErrUnavailable) {
				t.Errorf("forecast with the lock held = %v, want ErrUnavailable", err)
			}
			// Past the driver's read timeout, as a lock held by a long
			// import would be, then released.
			time.Sleep(time.Until(start.Add(3 * time.Second)))
			release()
			time.Sleep(500 * time.Millisecond) // what still ran would commit now
			t.Logf("the post answered ErrUnavailable after %v", took.Round(time.Millisecond))
			counts, err := board.RowCounts(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if counts["predictions"] != 1 {
				t.Errorf("%d predictions stored, want 1: the one answered ErrUnavailable was committed", counts["predictions"])
			}
			page, err := s.Forecasts(ctx, first.ID, board.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Forecasts) != 1 {
				t.Errorf("%d forecasts stored, want 1 (the author's)", len(page.Forecasts))
			}
			if mismatches, err := board.CounterMismatches(ctx, s); err != nil || len(mismatches) > 0 {
				t.Errorf("counters after the failed writes: %v %v", mismatches, err)
			}
		})
	}
}

// TestCancelStopsStatement: when the context of a write ends while the
// write waits for a row lock on PostgreSQL, the call returns at once and
// the server cancels the statement, so that it is not committed when the
// lock is released a moment later.
func TestCancelStopsStatement(t *testing.T) {
	if os.Getenv(pgEnv) == "" {
		t.Skipf("%s is not set", pgEnv)
	}
	ctx := context.Background()
	dsn := pgDatabase(t)
	s := mustOpen(t, dsn, board.Options{})
	mustCreate(t, s, newPrediction("a"))
	holder := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	defer holder.Close()
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM agents WHERE id = 'a' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = s.CreatePrediction(cctx, newPrediction("a"))
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("post whose context was cancelled = %v, want context.Canceled", err)
	}
	if took > time.Second {
		t.Errorf("post whose context was cancelled after 200 ms returned after %v", took)
	}
	// Released well before lock_timeout (5 s): a statement still waiting
	// would take the lock and commit.
	time.Sleep(time.Until(start.Add(600 * time.Millisecond)))
	_ = tx.Rollback()
	time.Sleep(300 * time.Millisecond)
	counts, err := board.RowCounts(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if counts["predictions"] != 1 {
		t.Errorf("%d predictions stored, want 1: the cancelled one was committed", counts["predictions"])
	}
	if _, err := s.CreatePrediction(ctx, newPrediction("a")); err != nil {
		t.Errorf("post afterwards: %v", err)
	}
}

// holdSQLite returns a function that takes the write lock of the SQLite
// file at path on a connection of its own (BEGIN IMMEDIATE), as another
// process would, and returns its release.
func holdSQLite(t *testing.T, path string) func() (release func()) {
	return func() func() {
		db, err := sql.Open(sqliteshim.ShimName, path)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
			t.Fatal(err)
		}
		return func() {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			db.Close()
		}
	}
}

// proxy forwards TCP connections to a server and can cut them all, or
// stop accepting new ones.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// cut closes every connection through the proxy, on both sides.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	time.Sleep(50 * time.Millisecond) // the FINs reach both ends
}

// close stops accepting connections (they are refused) and cuts the open
// ones.
func (p *proxy) close() {
	p.ln.Close()
	p.cut()
}
