package board

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"
)

// ErrUnavailable: the database cannot be reached or does not accept
// writes now: the server is down or refuses connections, a connection
// was cut, the store is closed, the SQLite file is locked by another
// process beyond the busy timeout or cannot be written (read-only, full,
// an I/O error), or the PostgreSQL server is read-only or the role lost
// its write privilege. It is the service's fault, not the input's, and
// retrying later may succeed. Test for it with [errors.Is]; the error
// also wraps the driver's, for the log.
var ErrUnavailable = errors.New("board: database unavailable")

// Classify returns err wrapped with [ErrUnavailable] when it says the
// database is unavailable (see there), else err unchanged; nil stays nil.
// The board's drivers are known here, so callers need not know them:
// adapters call it on any error a [Store] method returned.
func Classify(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || !unavailable(err) {
		return err
	}
	return &unavailableError{err: err}
}

// unavailableError is an error of the database saying it is unavailable.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string {
	return "board: database unavailable: " + e.err.Error()
}

// Unwrap returns ErrUnavailable and the driver's error.
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// PostgreSQL SQLSTATEs that mean the database is unavailable, not that
// the request is wrong: connection exceptions (class 08) and these.
var pgUnavailable = map[string]bool{
	"25006": true, // read_only_sql_transaction: a standby, or default_transaction_read_only
	"42501": true, // insufficient_privilege: the role lost its rights on the board's tables
	"53000": true, // insufficient_resources
	"53100": true, // disk_full
	"53300": true, // too_many_connections
	"57P01": true, // admin_shutdown, and pg_terminate_backend
	"57P02": true, // crash_shutdown
	"57P03": true, // cannot_connect_now: starting up or shutting down
	"58030": true, // io_error
}

// SQLite result codes (the primary code, the low byte of the extended
// one) that mean the database is unavailable.
var sqliteUnavailable = map[int]bool{
	5:  true, // SQLITE_BUSY: locked by another process beyond the busy timeout
	6:  true, // SQLITE_LOCKED
	8:  true, // SQLITE_READONLY
	10: true, // SQLITE_IOERR
	13: true, // SQLITE_FULL
	14: true, // SQLITE_CANTOPEN
	15: true, // SQLITE_PROTOCOL
}

// sqliteMessages are the same conditions in the words of SQLite, for a
// driver whose error has no Code method (mattn/go-sqlite3 under cgo).
var sqliteMessages = []string{
	"database is locked", "database table is locked", "attempt to write a readonly database",
	"disk i/o error", "database or disk is full", "unable to open database file",
}

func unavailable(err error) bool {
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOSPC) {
		return true
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		return true
	}
	var pg interface{ Field(byte) string } // pgdriver.Error
	if errors.As(err, &pg) {
		code := pg.Field('C')
		return strings.HasPrefix(code, "08") || pgUnavailable[code]
	}
	var lite interface{ Code() int } // modernc.org/sqlite's *Error
	if errors.As(err, &lite) {
		return sqliteUnavailable[lite.Code()&0xff]
	}
	msg := strings.ToLower(err.Error())
	// database/sql's own, not exported: the store (and its prepared
	// statements) closed.
	if strings.Contains(msg, "sql: database is closed") || strings.Contains(msg, "sql: statement is closed") {
		return true
	}
	for _, m := range sqliteMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// CheckWrite checks that the database accepts writes, for readiness
// probes (/healthz), and leaves nothing behind. On SQLite it takes the
// write lock (BEGIN IMMEDIATE, through the single writer connection) and
// rolls back: it fails when the store is closed, the file cannot be
// opened or written, or another process holds the lock beyond the busy
// timeout. On PostgreSQL it takes a transaction id and plans an update
// of the predictions table, then rolls back: it fails when the server is
// down or read-only (a standby) or the role cannot write the board. It
// returns an error wrapping [ErrUnavailable] for those, bounded by ctx.
//
// A write transaction of the store that committed less than
// [RecentWrite] ago answers for the database without a probe: under a
// write flood the probe would wait for SQLite's single writer connection
// and could time out although every write succeeds.
func (s *Store) CheckWrite(ctx context.Context) error {
	if t := s.lastWrite.Load(); t != 0 && time.Since(time.Unix(0, t)) < RecentWrite {
		return nil
	}
	tx, err := s.write.BeginTx(ctx, nil) // BEGIN IMMEDIATE on SQLite (_txlock=immediate)
	if err != nil {
		return checkErr(err)
	}
	defer tx.Rollback() //nolint:errcheck // the probe writes nothing to keep
	if s.pg {
		if _, err := tx.ExecContext(ctx, "SELECT txid_current()"); err != nil {
			return checkErr(err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE predictions SET id = id WHERE false"); err != nil {
			return checkErr(err)
		}
	}
	if err := tx.Rollback(); err != nil {
		return checkErr(err)
	}
	return nil
}

// RecentWrite is how recent a committed write must be for
// [Store.CheckWrite] to take it as the answer.
const RecentWrite = time.Second

// checkErr marks an error of the probe as the database's unavailability
// even when the driver's error is not one Classify knows: the probe
// asks nothing of the input.
func checkErr(err error) error {
	if c := Classify(err); errors.Is(c, ErrUnavailable) {
		return c
	}
	return &unavailableError{err: fmt.Errorf("write check: %w", err)}
}
