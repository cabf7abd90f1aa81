package database

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

var (
	// ErrInvalidDSN: the data source name cannot be used: an empty SQLite
	// path, one the driver would not read as a plain file name, or a
	// malformed PostgreSQL URL. A store wraps its own sentinel for invalid
	// input around it.
	ErrInvalidDSN = errors.New("database: invalid data source name")
	// ErrNoDatabase: the SQLite file (with [SQLiteOptions.MustExist]) or
	// its directory (without [SQLiteOptions.CreateDirs]) does not exist.
	ErrNoDatabase = errors.New("database: no such database")
)

// dsnError is an error of a data source name: it wraps kind
// ([ErrInvalidDSN] or [ErrNoDatabase]) and says only what is wrong, so
// that a store that wraps its own sentinel around it reads once.
type dsnError struct {
	kind error
	msg  string
}

func (e *dsnError) Error() string { return e.msg }

// Unwrap returns ErrInvalidDSN or ErrNoDatabase.
func (e *dsnError) Unwrap() error { return e.kind }

func dsnErrorf(kind error, format string, args ...any) error {
	return &dsnError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// IsPostgres reports whether dsn names a PostgreSQL database: it starts
// with postgres:// or postgresql:// (in any case). Anything else is a
// SQLite file path.
func IsPostgres(dsn string) bool {
	l := strings.ToLower(dsn)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// Open opens the pools of the database dsn names ([IsPostgres]): the
// PostgreSQL pool ([OpenPostgres], of at most maxConns connections) as
// both write and read, or the pools of a SQLite file ([OpenSQLite], with
// opt).
func Open(dsn string, maxConns int, opt SQLiteOptions) (write, read *bun.DB, err error) {
	if !IsPostgres(dsn) {
		return OpenSQLite(dsn, opt)
	}
	write, err = OpenPostgres(dsn, maxConns)
	return write, write, err
}

// OpenPostgres opens the pool of the PostgreSQL database at dsn through
// the package's connector (pgconn.go: server timeouts, cancellation, dead
// connections). maxConns bounds the pool; 0 means 10, and it is at least
// 2, since a migration holds one connection for its lock while using
// another. A malformed URL gives an error wrapping [ErrInvalidDSN]; the
// pool connects at its first use.
func OpenPostgres(dsn string, maxConns int) (db *bun.DB, err error) {
	if _, err := url.Parse(dsn); err != nil {
		return nil, dsnErrorf(ErrInvalidDSN, "PostgreSQL URL: %v", err)
	}
	defer func() { // pgdriver.WithDSN panics on a malformed URL
		if r := recover(); r != nil {
			db, err = nil, dsnErrorf(ErrInvalidDSN, "PostgreSQL URL: %v", r)
		}
	}()
	sqldb := sql.OpenDB(newPGConnector(dsn))
	n := maxConns
	if n <= 0 {
		n = 10
	}
	n = max(n, 2)
	sqldb.SetMaxOpenConns(n)
	sqldb.SetMaxIdleConns(n)
	return bun.NewDB(sqldb, pgdialect.New()), nil
}

// SQLiteOptions configure [OpenSQLite]. The zero value is useful.
type SQLiteOptions struct {
	// ReadConns is the size of the read pool; 0 means 4.
	ReadConns int
	// BusyTimeout is how long a write waits for another process holding
	// the write lock; 0 means 10 s.
	BusyTimeout time.Duration
	// CreateDirs lets OpenSQLite create the missing directories of the
	// path. Without it only the file is created, so that a mistyped path
	// fails instead of starting an empty database somewhere unexpected.
	CreateDirs bool
	// MustExist refuses a file that does not exist yet (the error wraps
	// [ErrNoDatabase]) instead of creating an empty one.
	MustExist bool
	// SharedRead, for measurements only: reads share the single write
	// connection (read is write).
	SharedRead bool
}

// OpenSQLite opens the SQLite file at path as two pools: write, of one
// connection, for every write, and read, query-only, for reads. The file
// is created on first open (its directory too with
// [SQLiteOptions.CreateDirs]; never with [SQLiteOptions.MustExist]).
//
// Both pools run in WAL mode, so that readers run while the writer
// commits, with synchronous=FULL, which syncs the WAL at every commit so
// that acknowledged writes survive power loss, foreign keys on and the
// busy timeout; the writer's transactions are immediate (_txlock), taking
// the write lock at BEGIN, so that a transaction never fails half way
// when upgrading from a read lock.
//
// Errors: one wrapping [ErrInvalidDSN] for a path that is empty or not a
// plain file name ([CheckPlainPath]), [ErrNoDatabase] for a file or
// directory that does not exist when it may not be created, the driver's
// when the file cannot be opened.
func OpenSQLite(path string, opt SQLiteOptions) (write, read *bun.DB, err error) {
	if path == "" {
		return nil, nil, dsnErrorf(ErrInvalidDSN, "empty database path; give a SQLite file path or a postgres:// URL")
	}
	if err := CheckPlainPath(path); err != nil {
		return nil, nil, err
	}
	if err := checkPath(path, opt); err != nil {
		return nil, nil, err
	}
	busy := opt.BusyTimeout
	if busy <= 0 {
		busy = 10 * time.Second
	}
	params := url.Values{}
	params.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(FULL)")
	params.Add("_pragma", "foreign_keys(1)")
	writeDSN := path + "?" + params.Encode() + "&_txlock=immediate"
	wdb, err := sql.Open(sqliteshim.ShimName, writeDSN)
	if err != nil {
		return nil, nil, fmt.Errorf("database: opening %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	write = bun.NewDB(wdb, sqlitedialect.New())
	if opt.SharedRead {
		return write, write, nil
	}
	// Connect the writer first so the file exists and is in WAL mode before
	// any reader opens it.
	// Two processes opening one new file at once both switch it to WAL;
	// the loser's switch is refused as busy without the busy handler, so
	// it connects again (the winner's switch takes milliseconds).
	err = wdb.Ping()
	for attempt := 0; err != nil && SQLiteBusy(err) && attempt < 100; attempt++ {
		time.Sleep(time.Duration(10+rand.IntN(40)) * time.Millisecond)
		err = wdb.Ping()
	}
	if err != nil {
		wdb.Close()
		return nil, nil, fmt.Errorf("database: opening %s: %w", path, err)
	}
	params.Add("_pragma", "query_only(1)")
	rdb, err := sql.Open(sqliteshim.ShimName, path+"?"+params.Encode())
	if err != nil {
		wdb.Close()
		return nil, nil, fmt.Errorf("database: opening %s: %w", path, err)
	}
	n := opt.ReadConns
	if n <= 0 {
		n = 4
	}
	rdb.SetMaxOpenConns(n)
	rdb.SetMaxIdleConns(n)
	rdb.SetConnMaxIdleTime(0)
	return write, bun.NewDB(rdb, sqlitedialect.New()), nil
}

// CheckPlainPath refuses a SQLite path that the driver would not read as
// a plain file name: a file: URI, :memory:, a '?' (which starts the
// driver's parameters) or a control character. Its error wraps
// [ErrInvalidDSN].
func CheckPlainPath(path string) error {
	if strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") || path == ":memory:" {
		return dsnErrorf(ErrInvalidDSN, "SQLite path %q: give a plain file path (no file: URI, '?' or :memory:)", path)
	}
	if strings.ContainsFunc(path, unicode.IsControl) {
		return dsnErrorf(ErrInvalidDSN, "SQLite path %q contains a control character", path)
	}
	return nil
}

// checkPath makes sure that a SQLite file may be opened: with MustExist
// it must exist; otherwise its directory must exist, or is created with
// CreateDirs.
func checkPath(path string, opt SQLiteOptions) error {
	if opt.MustExist {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return dsnErrorf(ErrNoDatabase, "%s does not exist; give the path of the database serve uses (its --db)", path)
		case err != nil:
			return fmt.Errorf("database: opening %s: %w", path, err)
		case st.IsDir():
			return dsnErrorf(ErrNoDatabase, "%s is a directory, not a database file", path)
		}
		return nil
	}
	dir := filepath.Dir(path)
	if dir == "." {
		return nil
	}
	if opt.CreateDirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("database: creating the database directory: %w", err)
		}
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return dsnErrorf(ErrNoDatabase, "the directory %s of the database does not exist; create it, or pass --create-dirs", dir)
	case err != nil:
		return fmt.Errorf("database: opening %s: %w", path, err)
	case !st.IsDir():
		return dsnErrorf(ErrNoDatabase, "%s is not a directory", dir)
	}
	return nil
}
