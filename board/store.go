package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/predictions-md/predictions/internal/database"
	"github.com/predictions-md/predictions/pool"
	"github.com/uptrace/bun"
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

	// health keeps the last probe of CheckWrite and the time of the last
	// commit (health.go).
	health database.Probe

	// stmts holds the feed's statements prepared on the SQLite read pool
	// (unused on PostgreSQL): database/sql keeps each prepared on every
	// read connection, so a page is not parsed and planned again per
	// request.
	stmts database.StmtCache
	// pages keeps the feed's pages without an offset or a search on
	// SQLite (unused on PostgreSQL, where cachePages is false), each
	// valid while feed_version is unchanged.
	pages      database.VersionCache[cachedPage]
	cachePages bool

	// changed tells the event log's readers of a commit (events.go): of
	// this store's, and on PostgreSQL of other stores' (LISTEN).
	changed database.Signal
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
	s := &Store{now: opt.Now, flag: opt.Flag, health: database.Probe{Interval: CheckInterval, Recent: RecentWrite},
		pages: database.VersionCache[cachedPage]{MaxEntries: maxPages, MaxBytes: maxPageBytes}}
	if s.now == nil {
		s.now = time.Now
	}
	var err error
	if s.method, err = pool.ParseMethod(string(opt.Pool)); err != nil {
		return nil, fmt.Errorf("%w: Options.Pool: %v", ErrInvalid, err)
	}
	if err := s.open(dsn, opt); err != nil {
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

// open opens the store's pools ([database.Open]).
func (s *Store) open(dsn string, opt Options) (err error) {
	s.pg = database.IsPostgres(dsn)
	s.write, s.read, err = database.Open(dsn, opt.MaxConns, database.SQLiteOptions{ReadConns: opt.ReadConns,
		BusyTimeout: opt.BusyTimeout, CreateDirs: opt.CreateDirs, MustExist: opt.MustExist, SharedRead: opt.singlePool})
	return openError(err)
}

// openError wraps the board's sentinel around an error of a path or URL
// that the database package refused: [ErrInvalid] for one it cannot use,
// [ErrNoDatabase] for a file or directory that does not exist.
func openError(err error) error {
	switch {
	case errors.Is(err, database.ErrInvalidDSN):
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	case errors.Is(err, database.ErrNoDatabase):
		return fmt.Errorf("%w: %w", ErrNoDatabase, err)
	}
	return err
}

// Close closes the database pools.
func (s *Store) Close() error {
	s.changed.Close()
	s.health.Forget()
	var errs []error
	errs = append(errs, s.stmts.Close())
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
func (s *Store) Ping(ctx context.Context) error { return database.Ping(ctx, s.read) }

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

// inTx runs fn in a write transaction. A transaction that the database
// aborted for a deadlock or a serialization failure (PostgreSQL 40P01 and
// 40001, SQLite's SQLITE_BUSY_SNAPSHOT) runs again from the start, up to
// [database.MaxAttempts] times with a jittered backoff of a few milliseconds, so
// fn must do all its work through tx (every write path does: its rows,
// counters and outbox messages commit or roll back together). An error
// that says the database is unavailable comes back wrapping
// [ErrUnavailable].
//
// When ctx carries a unit of work on the store's pool ([Store.Atomically]),
// fn runs in its transaction instead, once: the unit commits, and runs
// again after an abort.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if err := database.RunInTx(ctx, s.write, fn); err != nil {
		return err
	}
	s.health.Committed()
	return nil
}

// Atomically runs fn as one unit of work ([database.Atomically]): every
// write of the store made with the context fn is given, and of any
// package that keeps its tables in the store's database ([Store.WriteDB]) and
// joins the unit, such as the idempotency keys of the writes, goes into
// one write transaction, which commits when fn returns nil and rolls back
// otherwise. A unit that the database aborts for a deadlock or a
// serialization failure runs fn again from the start, so fn must have no
// effect outside the database that a second run would repeat. Readers of
// the event log are woken after the commit.
//
// Errors: fn's own, or [ErrUnavailable] (wrapped) for an outage.
func (s *Store) Atomically(ctx context.Context, fn func(ctx context.Context) error) error {
	if err := database.Atomically(ctx, s.write, fn); err != nil {
		return err
	}
	s.health.Committed()
	return nil
}

// retry runs a write (one transaction, or one statement that is its own
// transaction) as [Store.inTx] runs fn ([database.Retry]), and notes when
// it committed.
func (s *Store) retry(ctx context.Context, write func() error) error {
	if err := database.Retry(ctx, write); err != nil {
		return err
	}
	s.health.Committed()
	return nil
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

// stmt is a statement with its arguments.
type stmt struct {
	q    string
	args []any
}

// execReturning runs stmts in order in tx as [database.ExecReturning]
// does (on PostgreSQL as one statement) and returns the one string the
// first returns; a deadlock is retried like any other ([Store.retry]).
func (s *Store) execReturning(ctx context.Context, tx bun.IDB, stmts []stmt) (string, error) {
	all := make([]database.Stmt, len(stmts))
	for i, st := range stmts {
		all[i] = database.Stmt{Query: st.q, Args: st.args}
	}
	return database.ExecReturning(ctx, tx, all...)
}
