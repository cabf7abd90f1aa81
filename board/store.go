package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/pool"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// Options configure a [Store]. The zero value is useful: the real clock,
// no flags and default pool sizes.
type Options struct {
	// Now returns the current time; nil means [time.Now]. Stored times are
	// truncated to microseconds and kept in UTC.
	Now func() time.Time
	// Flag labels text that reads like instructions to an agent (for
	// example "instruction_like"). It is called at write time on each
	// prediction's title, body and timeframe, on reply bodies and on agent
	// names, and its result is stored. nil means no flags.
	Flag func(text string) []string
	// ReadConns is the size of the SQLite read pool; 0 means 4. The write
	// pool always has one connection. Ignored for PostgreSQL.
	ReadConns int
	// MaxConns bounds the PostgreSQL pool; 0 means 10. Ignored for SQLite.
	MaxConns int
	// BusyTimeout is how long a SQLite write waits for another process
	// holding the write lock; 0 means 10 s. Ignored for PostgreSQL.
	BusyTimeout time.Duration
	// CreateDirs lets Open create the missing directories of a SQLite
	// path. Without it only the file is created, so that a mistyped path
	// fails instead of starting an empty board somewhere unexpected.
	CreateDirs bool
	// MustExist refuses a SQLite file that does not exist yet (the error
	// wraps [ErrNoDatabase]) instead of creating an empty board: for
	// commands such as predictions mail that only add to a board a server
	// already created. Ignored for PostgreSQL.
	MustExist bool
	// SkipMigrations opens the database as it is, without applying the
	// migrations it lacks: for predictions backup, which copies a board
	// without changing it (a backup taken before an upgrade holds the old
	// schema, and the server that still runs on it keeps working). A
	// store opened so is for [Store.Backup] and Close; reading or writing
	// a board whose schema is not current fails.
	SkipMigrations bool
	// Pool is the method of the community forecast: geo_odds ("" means
	// it), mean or median. Every method is stored with each write, so it
	// can change between runs.
	Pool pool.Method

	// singlePool, for measurements only: SQLite reads share the single
	// write connection.
	singlePool bool
	// noPageCache, for measurements only: every feed page is read from
	// the database.
	noPageCache bool
}

// Store is the board's storage. It is safe for concurrent use.
type Store struct {
	write *bun.DB // all writes; on SQLite its pool holds one connection
	read  *bun.DB // reads; on PostgreSQL the same pool as write
	pg    bool
	now   func() time.Time
	flag  func(string) []string
	// recorder is told of changes in their transactions; nil: none.
	recorder Recorder
	// method chooses which stored community value is shown.
	method pool.Method

	// lastWrite is when a write transaction last committed (UnixNano of
	// the real clock; 0 for never or closed): CheckWrite under write load
	// then need not queue behind the writes it would measure.
	lastWrite atomic.Int64
	// health keeps the last probe of CheckWrite (health.go).
	health healthCheck
	// keysExpired is when ClaimKey last removed expired idempotency keys
	// (idempotency.go).
	keysExpired atomic.Int64

	// stmts holds the feed's statements prepared on the SQLite read pool
	// (unused on PostgreSQL): database/sql keeps each prepared on every
	// read connection, so a page is not parsed and planned again per
	// request.
	stmts stmtCache
	// pages keeps the feed's pages without an offset or a search on
	// SQLite (unused on PostgreSQL, where cachePages is false), each
	// valid while feed_version is unchanged.
	pages      pageCache
	cachePages bool

	// wake tells the event log's readers of a commit (events.go);
	// listener, on PostgreSQL, of other stores' commits.
	wake       wake
	listenOnce sync.Once
	listener   eventListener
	// afterAppend, for tests, runs after a write's events are appended,
	// before its commit; an error rolls the write back.
	afterAppend func() error
}

// Open opens the store named by dsn and applies pending migrations.
//
// A dsn starting with postgres:// or postgresql:// opens PostgreSQL (for
// example postgres://user:pass@host:5432/db?sslmode=disable). Its
// read_timeout (10s by default) is how long the driver waits for an
// answer; each connection sets lock_timeout to half of it and
// statement_timeout to four fifths, unless the URL sets them, so that
// PostgreSQL gives up on a statement first. Anything
// else is a SQLite file path, created on first open (its directory too
// with [Options.CreateDirs]; never with [Options.MustExist]); it must not
// contain '?' or control characters.
//
// Open returns an error wrapping [ErrInvalid] for an unusable dsn,
// [ErrNoDatabase] for a SQLite file or directory that does not exist when
// it may not be created, or the database's error when it cannot connect
// or migrate.
func Open(ctx context.Context, dsn string, opt Options) (*Store, error) {
	s := &Store{now: opt.Now, flag: opt.Flag, health: newHealthCheck()}
	if s.now == nil {
		s.now = time.Now
	}
	var err error
	if s.method, err = pool.ParseMethod(string(opt.Pool)); err != nil {
		return nil, fmt.Errorf("%w: Options.Pool: %v", ErrInvalid, err)
	}
	if isPostgres(dsn) {
		err = s.openPostgres(dsn, opt)
	} else {
		err = s.openSQLite(dsn, opt)
	}
	if err != nil {
		return nil, err
	}
	if !opt.SkipMigrations {
		if err := s.migrate(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.cachePages = !s.pg && !opt.noPageCache
	return s, nil
}

func isPostgres(dsn string) bool {
	l := strings.ToLower(dsn)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

func (s *Store) openPostgres(dsn string, opt Options) (err error) {
	if _, err := url.Parse(dsn); err != nil {
		return fmt.Errorf("%w: PostgreSQL URL: %v", ErrInvalid, err)
	}
	defer func() { // pgdriver.WithDSN panics on a malformed URL
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: PostgreSQL URL: %v", ErrInvalid, r)
		}
	}()
	sqldb := sql.OpenDB(newPGConnector(dsn)) // pgconn.go: server timeouts, cancellation, dead connections
	n := opt.MaxConns
	if n <= 0 {
		n = 10
	}
	n = max(n, 2) // migrate holds one connection for its lock while using another
	sqldb.SetMaxOpenConns(n)
	sqldb.SetMaxIdleConns(n)
	s.pg = true
	s.write = bun.NewDB(sqldb, pgdialect.New())
	s.read = s.write
	return nil
}

func (s *Store) openSQLite(path string, opt Options) error {
	if path == "" {
		return fmt.Errorf("%w: empty database path; give a SQLite file path or a postgres:// URL", ErrInvalid)
	}
	if err := checkPlainPath(path); err != nil {
		return err
	}
	if err := checkPath(path, opt); err != nil {
		return err
	}
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = 10 * time.Second
	}
	// WAL lets readers run while the writer commits; synchronous=FULL syncs
	// the WAL at every commit so acknowledged writes survive power loss;
	// _txlock=immediate takes the write lock at BEGIN, so a transaction never
	// fails half way when upgrading from a read lock.
	params := url.Values{}
	params.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(FULL)")
	params.Add("_pragma", "foreign_keys(1)")
	writeDSN := path + "?" + params.Encode() + "&_txlock=immediate"
	wdb, err := sql.Open(sqliteshim.ShimName, writeDSN)
	if err != nil {
		return fmt.Errorf("board: opening %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	s.write = bun.NewDB(wdb, sqlitedialect.New())
	if opt.singlePool {
		s.read = s.write
		return nil
	}
	// Connect the writer first so the file exists and is in WAL mode before
	// any reader opens it.
	// Two processes opening one new file at once both switch it to WAL;
	// the loser's switch is refused as busy without the busy handler, so
	// it connects again (the winner's switch takes milliseconds).
	err = wdb.Ping()
	for attempt := 0; err != nil && sqliteBusy(err) && attempt < 100; attempt++ {
		time.Sleep(time.Duration(10+rand.IntN(40)) * time.Millisecond)
		err = wdb.Ping()
	}
	if err != nil {
		wdb.Close()
		return fmt.Errorf("board: opening %s: %w", path, err)
	}
	params.Add("_pragma", "query_only(1)")
	rdb, err := sql.Open(sqliteshim.ShimName, path+"?"+params.Encode())
	if err != nil {
		wdb.Close()
		return fmt.Errorf("board: opening %s: %w", path, err)
	}
	n := opt.ReadConns
	if n <= 0 {
		n = 4
	}
	rdb.SetMaxOpenConns(n)
	rdb.SetMaxIdleConns(n)
	rdb.SetConnMaxIdleTime(0)
	s.read = bun.NewDB(rdb, sqlitedialect.New())
	return nil
}

// checkPlainPath refuses a SQLite path that the driver would not read as
// a plain file name: a file: URI, :memory:, a '?' (which starts the
// driver's parameters) or a control character.
func checkPlainPath(path string) error {
	if strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") || path == ":memory:" {
		return fmt.Errorf("%w: SQLite path %q: give a plain file path (no file: URI, '?' or :memory:)", ErrInvalid, path)
	}
	if strings.ContainsFunc(path, unicode.IsControl) {
		return fmt.Errorf("%w: SQLite path %q contains a control character", ErrInvalid, path)
	}
	return nil
}

// checkPath makes sure that a SQLite file may be opened: with MustExist
// it must exist; otherwise its directory must exist, or is created with
// CreateDirs.
func checkPath(path string, opt Options) error {
	if opt.MustExist {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("%w: %s does not exist; give the path of the database serve uses (its --db)", ErrNoDatabase, path)
		case err != nil:
			return fmt.Errorf("board: opening %s: %w", path, err)
		case st.IsDir():
			return fmt.Errorf("%w: %s is a directory, not a database file", ErrNoDatabase, path)
		}
		return nil
	}
	dir := filepath.Dir(path)
	if dir == "." {
		return nil
	}
	if opt.CreateDirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("board: creating the database directory: %w", err)
		}
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: the directory %s of the database does not exist; create it, or pass --create-dirs", ErrNoDatabase, dir)
	case err != nil:
		return fmt.Errorf("board: opening %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrNoDatabase, dir)
	}
	return nil
}

// Close closes the database pools.
func (s *Store) Close() error {
	s.stopListening()
	s.lastWrite.Store(0)
	s.health.forget()
	var errs []error
	errs = append(errs, s.stmts.close())
	if s.read != nil && s.read != s.write {
		errs = append(errs, s.read.Close())
	}
	if s.write != nil {
		errs = append(errs, s.write.Close())
	}
	return errors.Join(errs...)
}

// Ping checks that the database answers, for readiness probes. On SQLite
// it asks the read pool: the single writer connection is busy whenever
// writes queue, and a probe waiting behind them would report a healthy
// server as down under load (the read pool opens the same file).
//
// Its error wraps [ErrUnavailable]; [Store.CheckWrite] checks writes.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return checkErr(err)
	}
	return nil
}

// Dialect returns "sqlite" or "postgres".
func (s *Store) Dialect() string {
	if s.pg {
		return "postgres"
	}
	return "sqlite"
}

// PoolStats are the connection pool statistics, for metrics.
type PoolStats struct {
	Write sql.DBStats `json:"write"`
	Read  sql.DBStats `json:"read"` // the same pool as Write on PostgreSQL
}

// PoolStats returns the connection pool statistics.
func (s *Store) PoolStats() PoolStats {
	return PoolStats{Write: s.write.Stats(), Read: s.read.Stats()}
}

// forUpdate locks selected rows on PostgreSQL. SQLite needs no row lock: its
// single writer connection and immediate transactions serialise writes.
func (s *Store) forUpdate() string {
	if s.pg {
		return " FOR UPDATE"
	}
	return ""
}

func (s *Store) clock() time.Time {
	return s.now().UTC().Truncate(time.Microsecond)
}

// maxTxAttempts bounds how often a write transaction runs when the
// database aborts it for a deadlock or a serialization failure.
const maxTxAttempts = 5

// inTx runs fn in a write transaction. A transaction that the database
// aborted for a deadlock or a serialization failure (PostgreSQL 40P01 and
// 40001, SQLite's SQLITE_BUSY_SNAPSHOT) runs again from the start, up to
// [maxTxAttempts] times with a jittered backoff of a few milliseconds, so
// fn must do all its work through tx (every write path does: its rows,
// counters and outbox messages commit or roll back together). An error
// that says the database is unavailable comes back wrapping
// [ErrUnavailable].
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return s.retry(ctx, func() error { return s.write.RunInTx(ctx, nil, fn) })
}

// retry runs a write (one transaction, or one statement that is its own
// transaction) as [Store.inTx] runs fn.
func (s *Store) retry(ctx context.Context, write func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = write(); err == nil {
			s.lastWrite.Store(time.Now().UnixNano())
			return nil
		}
		if attempt == maxTxAttempts || !retryable(err) {
			return Classify(err)
		}
		backoff := time.Duration(1<<attempt) * time.Millisecond // 2, 4, 8, 16 ms
		t := time.NewTimer(backoff/2 + rand.N(backoff))
		select {
		case <-ctx.Done():
			t.Stop()
			return Classify(err)
		case <-t.C:
		}
	}
}

// retryable reports whether the database aborted a transaction that may
// succeed when run again: a deadlock or a serialization failure.
func retryable(err error) bool {
	var pg interface{ Field(byte) string } // pgdriver.Error
	if errors.As(err, &pg) {
		code := pg.Field('C')
		return code == "40P01" || code == "40001"
	}
	var lite interface{ Code() int } // modernc.org/sqlite's *Error
	if errors.As(err, &lite) {
		return lite.Code() == 517 // SQLITE_BUSY_SNAPSHOT: a WAL snapshot went stale
	}
	return false
}

func newID() (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("board: generating an id: %w", err)
	}
	return id.String(), nil
}

// flags runs the injected detector over texts and returns the sorted,
// de-duplicated labels as stored JSON.
func (s *Store) flags(texts ...string) string {
	if s.flag == nil {
		return "[]"
	}
	var all []string
	for _, t := range texts {
		all = append(all, s.flag(t)...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	all = slices.DeleteFunc(all, func(f string) bool { return f == "" })
	if len(all) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(all) // []string always marshals
	return string(b)
}

func decodeFlags(raw string) []string {
	out := []string{}
	if raw != "" && raw != "[]" { // most rows have no flags: no decoder for them
		_ = json.Unmarshal([]byte(raw), &out) // written by flags; an unreadable value reads as none
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// sqliteBusy reports whether err is SQLite's "database is locked".
func sqliteBusy(err error) bool {
	var lite interface{ Code() int } // modernc.org/sqlite's *Error
	if errors.As(err, &lite) {
		return lite.Code()&0xff == 5
	}
	return strings.Contains(strings.ToLower(err.Error()), "database is locked")
}

// stmt is a statement with its arguments.
type stmt struct {
	q    string
	args []any
}

// execReturning runs statements in order in tx (or, on PostgreSQL, the
// pool, the statement then being its own transaction) and returns the one
// string the first returns (its RETURNING column); the others return
// nothing. On PostgreSQL they go as one statement, each a data-modifying
// WITH query, so the server is asked once instead of once each (a write
// under load waits for its round trips more than for the database); the
// foreign keys between their rows are checked at the end of that
// statement, when every row is there. PostgreSQL runs the query the
// final SELECT reads (the first) first and the others after it in order,
// so the row locks keep the order of stmts; a deadlock would be retried
// like any other ([Store.retry]). On SQLite, with no network between,
// they run one by one.
func (s *Store) execReturning(ctx context.Context, tx bun.IDB, stmts []stmt) (string, error) {
	var out string
	if !s.pg {
		for i, st := range stmts {
			var err error
			if i == 0 {
				err = tx.NewRaw(st.q, st.args...).Scan(ctx, &out)
			} else {
				_, err = tx.ExecContext(ctx, st.q, st.args...)
			}
			if err != nil {
				return "", err
			}
		}
		return out, nil
	}
	var q strings.Builder
	var args []any
	q.WriteString("WITH ")
	for i, st := range stmts {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "w%d AS (%s)", i, st.q)
		args = append(args, st.args...)
	}
	q.WriteString(" SELECT * FROM w0")
	err := tx.NewRaw(q.String(), args...).Scan(ctx, &out)
	return out, err
}
