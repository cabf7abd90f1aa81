package database

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"
	"syscall"
)

// ErrUnavailable: the database cannot be reached or does not accept
// writes now: the server is down, refuses connections or has no such
// database, a connection was cut, the store is closed, the SQLite file is
// locked by another process beyond the busy timeout or cannot be written
// (read-only, full, an I/O error), the PostgreSQL server is read-only or
// the role lost its write privilege, or PostgreSQL gave up on a statement
// (lock_timeout, statement_timeout) before the driver gave up waiting. It
// is the service's fault, not the input's, and retrying later may
// succeed; when a write returns it, the write was not committed. Test for
// it with [errors.Is]; the error also wraps the driver's, for the log.
var ErrUnavailable = errors.New("database unavailable")

// Classify returns err wrapped with [ErrUnavailable] when it says the
// database is unavailable (see there), else err unchanged; nil stays nil.
// The drivers are known here, so callers need not know them: stores and
// adapters call it on any error a query returned. Its one table is
// [outages].
func Classify(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || outageOf(err) == nil {
		return err
	}
	return &unavailableError{err: err}
}

// Unavailable returns err wrapped with [ErrUnavailable] even when it is
// not an error [Classify] knows: for the error of a probe (a readiness
// check) that asks nothing of the input, so that whatever fails it is the
// database's fault. nil stays nil.
func Unavailable(err error) error {
	if c := Classify(err); c == nil || errors.Is(c, ErrUnavailable) {
		return c
	}
	return &unavailableError{err: err}
}

// unavailableError is an error of the database saying it is unavailable.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string {
	return "database unavailable: " + e.err.Error()
}

// Unwrap returns ErrUnavailable and the driver's error.
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// errConnLost marks an error of a PostgreSQL connection that failed or
// was cut (refused, reset, closed, an EOF where a message was due): the
// package's connector wraps those of its driver with it (pgconn.go), so
// that an io.EOF from anywhere else (a request body read to its end) is
// never taken for an outage.
var errConnLost = errors.New("database: connection to the database failed or was cut")

// outage is one row of [outages]. Exactly one of sqlstate, sqlite, err
// and text is set.
type outage struct {
	// sqlstate is a PostgreSQL SQLSTATE (five characters) or a class of
	// them (its first two characters).
	sqlstate string
	// sqlite is a SQLite primary result code (the low byte of an extended
	// code).
	sqlite int
	// err is matched with errors.Is.
	err error
	// text is matched, without regard to case, in the message of an error
	// that carries no code: mattn/go-sqlite3 (-tags cgosqlite) and
	// database/sql's own unexported errors.
	text string
	// why is what the row stands for.
	why string
}

// outages is the one table of errors that say the database is
// unavailable (a 503 with Retry-After in the adapters), not that the
// request is wrong: PostgreSQL's SQLSTATEs are those of its manual's
// Appendix A, SQLite's result codes those of sqlite.org/rescode.html.
var outages = []outage{
	{sqlstate: "08", why: "connection exception: the connection failed, was refused or was cut"},
	{sqlstate: "53", why: "insufficient resources: disk full, out of memory, too many connections"},
	{sqlstate: "57", why: "operator intervention: shutdown, pg_terminate_backend, a dropped database, statement_timeout or a cancel request"},
	{sqlstate: "55000", why: "object not in prerequisite state: the database does not allow connections (ALLOW_CONNECTIONS false)"},
	{sqlstate: "55P03", why: "lock not available: lock_timeout ran out while another transaction held a row"},
	{sqlstate: "3D000", why: "invalid catalog name: the database does not exist"},
	{sqlstate: "25006", why: "read-only SQL transaction: a standby, or default_transaction_read_only"},
	{sqlstate: "42501", why: "insufficient privilege: the role lost its rights on the tables"},
	{sqlstate: "58030", why: "I/O error"},

	{sqlite: 5, why: "SQLITE_BUSY: locked by another process beyond the busy timeout"},
	{sqlite: 6, why: "SQLITE_LOCKED"},
	{sqlite: 8, why: "SQLITE_READONLY: the file or its directory cannot be written"},
	{sqlite: 10, why: "SQLITE_IOERR: the operating system reported an I/O error"},
	{sqlite: 13, why: "SQLITE_FULL: the disk is full"},
	{sqlite: 14, why: "SQLITE_CANTOPEN: the file or its journal cannot be opened"},
	{sqlite: 15, why: "SQLITE_PROTOCOL: the WAL locking protocol failed"},

	{err: errConnLost, why: "a PostgreSQL connection failed or was cut (pgconn.go)"},
	{err: driver.ErrBadConn, why: "database/sql found every connection it tried bad"},
	{err: sql.ErrConnDone, why: "the connection was already returned to the pool"},
	{err: net.ErrClosed, why: "the connection was closed under the statement"},
	{err: syscall.ECONNREFUSED, why: "connection refused"},
	{err: syscall.ECONNRESET, why: "connection reset"},
	{err: syscall.EPIPE, why: "broken pipe"},
	{err: syscall.EROFS, why: "read-only file system"},
	{err: syscall.ENOSPC, why: "no space left on device"},

	{text: "sql: database is closed", why: "the store is closed"},
	{text: "sql: statement is closed", why: "the store (and its prepared statements) closed"},
	{text: "database is locked", why: "SQLITE_BUSY, in mattn/go-sqlite3's words"},
	{text: "database table is locked", why: "SQLITE_LOCKED, in mattn/go-sqlite3's words"},
	{text: "attempt to write a readonly database", why: "SQLITE_READONLY, in mattn/go-sqlite3's words"},
	{text: "disk i/o error", why: "SQLITE_IOERR, in mattn/go-sqlite3's words"},
	{text: "database or disk is full", why: "SQLITE_FULL, in mattn/go-sqlite3's words"},
	{text: "unable to open database file", why: "SQLITE_CANTOPEN, in mattn/go-sqlite3's words"},
}

// outageOf returns the row of [outages] that err matches, or nil.
func outageOf(err error) *outage {
	var code string
	var pg interface{ Field(byte) string } // pgdriver.Error
	if errors.As(err, &pg) {
		code = pg.Field('C')
	}
	lite := -1
	var le interface{ Code() int } // modernc.org/sqlite's *Error
	if errors.As(err, &le) {
		lite = le.Code() & 0xff
	}
	msg := strings.ToLower(err.Error())
	for i := range outages {
		o := &outages[i]
		switch {
		case o.sqlstate != "":
			if code != "" && (code == o.sqlstate || len(o.sqlstate) == 2 && strings.HasPrefix(code, o.sqlstate)) {
				return o
			}
		case o.sqlite != 0:
			if lite == o.sqlite {
				return o
			}
		case o.err != nil:
			if errors.Is(err, o.err) {
				return o
			}
		case o.text != "":
			if strings.Contains(msg, o.text) {
				return o
			}
		}
	}
	return nil
}

// SQLiteBusy reports whether err is SQLite's "database is locked"
// (SQLITE_BUSY, in modernc.org/sqlite's code or mattn/go-sqlite3's
// words); nil is not.
func SQLiteBusy(err error) bool {
	if err == nil {
		return false
	}
	var lite interface{ Code() int } // modernc.org/sqlite's *Error
	if errors.As(err, &lite) {
		return lite.Code()&0xff == 5
	}
	return strings.Contains(strings.ToLower(err.Error()), "database is locked")
}

// UniqueViolation reports whether the database refused a row whose key
// another row holds: PostgreSQL's SQLSTATE 23505 (unique_violation), or
// SQLite's "UNIQUE constraint failed" (SQLITE_CONSTRAINT_UNIQUE and
// SQLITE_CONSTRAINT_PRIMARYKEY, as both drivers word them); nil is not.
func UniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var pg interface{ Field(byte) string } // pgdriver.Error
	if errors.As(err, &pg) {
		return pg.Field('C') == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// NullViolation reports whether the database refused a NULL in
// table.column, declared NOT NULL: PostgreSQL's SQLSTATE 23502
// (not_null_violation) naming the column, or SQLite's "NOT NULL
// constraint failed: table.column"; nil is not.
func NullViolation(err error, table, column string) bool {
	if err == nil {
		return false
	}
	var pg interface{ Field(byte) string } // pgdriver.Error
	if errors.As(err, &pg) {
		return pg.Field('C') == "23502" && pg.Field('t') == table && pg.Field('c') == column
	}
	return strings.Contains(err.Error(), "NOT NULL constraint failed: "+table+"."+column)
}
