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
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
)

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", fmt.Errorf("query: %w", refused), true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"a bare EOF says nothing of the database", io.ErrUnexpectedEOF, false},
		{"a bare EOF, wrapped", fmt.Errorf("body: %w", io.EOF), false},
		{"pool closed", sql.ErrConnDone, true},
		{"store closed", errors.New("sql: database is closed"), true},
		{"sqlite busy, mattn's words", errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{"sqlite I/O error, mattn's words", errors.New("disk I/O error (10) (SQLITE_IOERR)"), true},
		{"not found", fmt.Errorf("%w: no prediction", board.ErrNotFound), false},
		{"invalid", &board.ValidationError{Field: "title", Problem: "is empty"}, false},
		{"context cancelled", fmt.Errorf("board: feed: %w", context.Canceled), false},
		{"anything else", errors.New("board: generating an id: out of entropy"), false},
	} {
		got := board.Classify(tc.err)
		if errors.Is(got, board.ErrUnavailable) != tc.want {
			t.Errorf("%s: Classify(%v) = %v: ErrUnavailable %v, want %v", tc.name, tc.err, got, !tc.want, tc.want)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("Classify(%v) = %v, which no longer wraps the error", tc.err, got)
		}
	}
	if board.Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
	once := board.Classify(sql.ErrConnDone)
	if twice := board.Classify(once); twice != once {
		t.Errorf("Classify wrapped twice: %v", twice)
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

// driverError is an error a driver gave, provoked as an outage or a
// mistake would provoke it, and whether it is an outage.
type driverError struct {
	name   string
	code   string // the SQLSTATE or SQLite result code it must carry
	err    error
	outage bool
}

// TestClassifyDrivers: Classify on the errors the drivers really give,
// provoked: modernc.org/sqlite's on a locked, read-only, missing and full
// file, and pgdriver's (with PREDICTIONS_TEST_POSTGRES) on a missing
// database, one that refuses connections, a terminated connection, a lock
// or statement timeout, a read-only transaction and a closed port. The
// board's own mistakes (a unique or syntax error) are not outages.
func TestClassifyDrivers(t *testing.T) {
	cases := sqliteErrors(t)
	if os.Getenv(pgEnv) != "" {
		cases = append(cases, pgErrors(t)...)
	} else {
		t.Logf("%s is not set: PostgreSQL's errors are not provoked", pgEnv)
	}
	for _, tc := range cases {
		if tc.err == nil {
			t.Errorf("%s: no error provoked", tc.name)
			continue
		}
		var code string
		var pg interface{ Field(byte) string }
		var lite interface{ Code() int }
		switch {
		case errors.As(tc.err, &pg):
			code = pg.Field('C')
		case errors.As(tc.err, &lite):
			code = fmt.Sprint(lite.Code() & 0xff)
		}
		if tc.code != "" && code != tc.code {
			t.Errorf("%s: the driver gave %q (code %q), want code %s", tc.name, tc.err, code, tc.code)
		}
		if got := errors.Is(board.Classify(tc.err), board.ErrUnavailable); got != tc.outage {
			t.Errorf("%s: Classify(%v): ErrUnavailable %v, want %v", tc.name, tc.err, got, tc.outage)
		}
	}
}

func sqliteErrors(t *testing.T) []driverError {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(dsn string) *sql.DB {
		db, err := sql.Open(sqliteshim.ShimName, dsn)
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	path := filepath.Join(dir, "x.db")
	db := open(path + "?_pragma=busy_timeout(50)&_pragma=journal_mode(WAL)")
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO t (k) VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	var out []driverError
	add := func(name, code string, outage bool, err error) {
		out = append(out, driverError{name, code, err, outage})
	}

	holder := open(path)
	conn, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO t (k) VALUES ('b')`)
	add("SQLITE_BUSY: another connection holds the write lock", "5", true, err)
	_, _ = conn.ExecContext(ctx, "ROLLBACK")
	conn.Close()

	_, err = open("file:"+path+"?mode=ro").ExecContext(ctx, `INSERT INTO t (k) VALUES ('c')`)
	add("SQLITE_READONLY: a file opened read-only", "8", true, err)

	err = open(filepath.Join(dir, "no", "such", "dir.db")).PingContext(ctx)
	add("SQLITE_CANTOPEN: a file in a missing directory", "14", true, err)

	full := open(filepath.Join(dir, "full.db"))
	if _, err := full.ExecContext(ctx, `CREATE TABLE t (v BLOB)`); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := full.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := full.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	_, err = full.ExecContext(ctx, `INSERT INTO t (v) VALUES (zeroblob(100000))`)
	add("SQLITE_FULL: the file may not grow (max_page_count)", "13", true, err)

	_, err = db.ExecContext(ctx, `INSERT INTO t (k) VALUES ('a')`)
	add("SQLITE_CONSTRAINT: a unique key taken", "19", false, err)
	_, err = db.ExecContext(ctx, `INSERT INTO nowhere VALUES (1)`)
	add("SQLITE_ERROR: no such table", "1", false, err)
	return out
}

func pgErrors(t *testing.T) []driverError {
	ctx := context.Background()
	admin := pgAdmin(t)
	dsn := pgDatabase(t)
	name := dbName(t, dsn)
	open := func(dsn string) *sql.DB {
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open(dsn)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO t VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	var out []driverError
	add := func(name, code string, outage bool, err error) {
		out = append(out, driverError{name, code, err, outage})
	}

	holder := open(dsn)
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT k FROM t WHERE k = 'a' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	other := open(dsn)
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `SET lock_timeout = '50ms'`); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, `UPDATE t SET k = 'b' WHERE k = 'a'`)
	add("55P03: lock_timeout while another transaction holds the row", "55P03", true, err)
	_ = tx.Rollback()
	if _, err := conn.ExecContext(ctx, `SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO t VALUES ('c')`)
	add("25006: a read-only transaction", "25006", true, err)
	if _, err := conn.ExecContext(ctx, `SET statement_timeout = '50ms'`); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, `SELECT pg_sleep(1)`) // pgdriver then closes the connection
	add("57014: statement_timeout", "57014", true, err)
	conn.Close()

	_, err = db.ExecContext(ctx, `INSERT INTO t VALUES ('a')`)
	add("23505: a unique key taken", "23505", false, err)
	_, err = db.ExecContext(ctx, `INSERT INTO nowhere VALUES (1)`)
	add("42P01: no such table", "42P01", false, err)
	_, err = db.ExecContext(ctx, `SELECT 'x'::int`)
	add("22P02: a bad value", "22P02", false, err)

	terminate(t, admin, name)
	_, err = db.ExecContext(ctx, `SELECT 1`)
	add("57P01: the connection was terminated (pg_terminate_backend)", "57P01", true, err)

	mustExec(t, admin, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS false")
	_, err = db.ExecContext(ctx, `SELECT 1`)
	add("55000: the database does not allow connections", "55000", true, err)
	mustExec(t, admin, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true")

	u, _ := url.Parse(dsn)
	u.Path = "/" + name + "_missing"
	err = open(u.String()).PingContext(ctx)
	add("3D000: no such database", "3D000", true, err)

	err = open("postgres://postgres@127.0.0.1:1/none?sslmode=disable").PingContext(ctx)
	add("a closed port: connection refused", "", true, err)
	return out
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
	admin := pgAdmin(t)
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
	terminate(t, admin, dbName(t, dsn))
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

// pgAdmin connects to the server named by pgEnv (its own database, not a
// test's).
func pgAdmin(t *testing.T) *sql.DB {
	t.Helper()
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(os.Getenv(pgEnv))))
	t.Cleanup(func() { db.Close() })
	return db
}

func dbName(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// terminate ends every connection to the database name and waits until
// they are gone, as an administrator's pg_terminate_backend, a failover
// or an idle timeout would.
func terminate(t *testing.T, admin *sql.DB, name string) {
	t.Helper()
	mustExec(t, admin, "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '"+name+"' AND pid <> pg_backend_pid()")
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
