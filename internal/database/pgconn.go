package database

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// pgConnector opens PostgreSQL connections with pgdriver and
// adds what pgdriver leaves to its caller, so that a 503 means that
// nothing was written and an outage is told from a bad request:
//
//   - Timeouts on the server below the driver's: pgdriver stops waiting for
//     an answer after its read timeout (10 s unless the URL's read_timeout
//     says otherwise) but the server goes on, and a statement that is its
//     own transaction commits when the lock it waited for is released,
//     after the client was answered 503. Each connection sets lock_timeout
//     (half the read timeout) and statement_timeout (four fifths of it),
//     so the server gives up first and rolls the statement back; the
//     URL's own lock_timeout or statement_timeout wins.
//   - Cancellation: pgdriver stops waiting at a context's deadline only,
//     and never tells the server (github.com/uptrace/bun/issues/790). When
//     the context of a statement ends, its connection is closed, so the
//     caller returns at once, and the server is asked to cancel the
//     statement (pg_cancel_backend on a connection of its own) before the
//     call returns; the closed connection is never used again.
//   - A pooled connection found dead is not used: before reusing one,
//     database/sql asks ResetSession, which looks whether the server
//     closed the socket or sent something unasked (the FATAL message of
//     pg_terminate_backend or of a shutdown), and a dead connection gives
//     driver.ErrBadConn, so that database/sql runs the statement on
//     another one. A read (a statement starting with SELECT) or a BEGIN
//     that still meets a dead connection goes to another connection the
//     same way.
//   - Errors of a connection that failed or was cut (refused, reset,
//     closed, an io.EOF where a message was due, a read timeout) wrap
//     errConnLost, which [Classify] knows.
type pgConnector struct {
	base *pgdriver.Connector
	// setup is the statement run on each new connection: it reads the
	// backend's process id (for pg_cancel_backend) and sets the timeouts.
	setup string
	args  []driver.NamedValue
	// cancels bounds the connections that cancellations open at once.
	cancels chan struct{}
}

// pgCancelTimeout bounds a cancellation: its own connection and
// statement.
const pgCancelTimeout = 2 * time.Second

// pgMaxCancels is how many cancellations may run at once. Beyond it a
// statement is not cancelled on the server, only abandoned with its
// connection: it ends at statement_timeout, and in a transaction it is
// rolled back when the server finds the connection closed.
const pgMaxCancels = 4

// newPGConnector returns the connector of dsn.
func newPGConnector(dsn string) *pgConnector {
	base := pgdriver.NewConnector(pgdriver.WithDSN(dsn))
	conf := base.Config()
	c := &pgConnector{base: base, setup: "SELECT pg_backend_pid()", cancels: make(chan struct{}, pgMaxCancels)}
	// The URL's parameters are in ConnParams, which pgdriver sets with a
	// statement each; these two are set with the process id instead.
	for _, p := range []struct {
		name string
		def  time.Duration
	}{
		{"lock_timeout", conf.ReadTimeout / 2},
		{"statement_timeout", conf.ReadTimeout * 4 / 5},
	} {
		v := fmt.Sprint(conf.ConnParams[p.name])
		if _, given := conf.ConnParams[p.name]; given {
			delete(conf.ConnParams, p.name)
		} else if p.def > 0 {
			v = fmt.Sprintf("%dms", p.def.Milliseconds())
		} else {
			continue
		}
		c.args = append(c.args, driver.NamedValue{Ordinal: len(c.args) + 1, Value: v})
		c.setup += fmt.Sprintf(", set_config('%s', $%d, false)", p.name, len(c.args))
	}
	return c
}

// Connect opens a connection. Any error wraps errConnLost: the database
// cannot be reached, refuses the connection or has no such database.
func (c *pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.base.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errConnLost, err)
	}
	cn := &pgConn{Conn: dc.(*pgdriver.Conn), c: c}
	cn.onDone = cn.interruptWatched
	rows, err := cn.Conn.QueryContext(ctx, c.setup, c.args)
	if err == nil {
		dest := make([]driver.Value, 1+len(c.args))
		if err = rows.Next(dest); err == nil {
			pid, ok := dest[0].(int64)
			if !ok {
				err = fmt.Errorf("pg_backend_pid() is %T", dest[0])
			}
			cn.pid = pid
		}
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		_ = cn.Conn.Close()
		return nil, fmt.Errorf("%w: setting up the session: %w", errConnLost, err)
	}
	return cn, nil
}

// Driver returns pgdriver's driver.
func (c *pgConnector) Driver() driver.Driver { return c.base.Driver() }

// cancel asks the server to cancel the statement of the backend pid, on a
// connection of its own.
func (c *pgConnector) cancel(pid int64) {
	select {
	case c.cancels <- struct{}{}:
		defer func() { <-c.cancels }()
	default:
		return
	}
	ctx, done := context.WithTimeout(context.Background(), pgCancelTimeout)
	defer done()
	dc, err := c.base.Connect(ctx)
	if err != nil {
		return // the server is gone, and the statement with it
	}
	defer dc.Close()
	_, _ = dc.(*pgdriver.Conn).ExecContext(ctx, "SELECT pg_cancel_backend($1)",
		[]driver.NamedValue{{Ordinal: 1, Value: pid}})
}

// pgConn is a pgdriver connection with what [pgConnector] adds. The
// methods it does not override are pgdriver's.
type pgConn struct {
	*pgdriver.Conn
	c   *pgConnector
	pid int64 // the backend's process id

	// The watch of the statement running (watch, unwatch).
	ctx    context.Context // nil: no watch
	stop   func() bool     // stops the AfterFunc
	fired  sync.WaitGroup  // done when the AfterFunc will not run, or has run
	onDone func()          // cn.interrupt's watch, made once
}

// watch arranges that the connection is closed and its statement
// cancelled when ctx ends before [pgConn.unwatch] is called. database/sql
// uses a connection from one goroutine at a time, so one watch at a time.
func (cn *pgConn) watch(ctx context.Context) {
	if ctx.Done() == nil {
		return
	}
	cn.ctx = ctx
	cn.fired.Add(1)
	cn.stop = context.AfterFunc(ctx, cn.onDone)
}

// unwatch ends the watch and reports whether it interrupted the
// statement, once the cancellation was sent.
func (cn *pgConn) unwatch() (interrupted bool) {
	if cn.stop == nil {
		return false
	}
	stop, ctx := cn.stop, cn.ctx
	cn.stop, cn.ctx = nil, nil
	if !stop() {
		cn.fired.Wait() // onDone runs, or ran
		return true
	}
	cn.fired.Done()
	if ctx.Err() != nil {
		// The context ended as the call returned (pgdriver gave up at
		// its deadline): the server may still be running the statement.
		cn.interrupt()
		return true
	}
	return false
}

// interruptWatched is what watch runs when the context ends.
func (cn *pgConn) interruptWatched() {
	defer cn.fired.Done()
	cn.interrupt()
}

// interrupt closes the connection, so that a call waiting on it returns
// and database/sql never uses it again, and cancels its statement.
func (cn *pgConn) interrupt() {
	_ = cn.Conn.Close()
	cn.c.cancel(cn.pid)
}

// fail returns the error of a statement: the context's when it ended
// the statement, errConnLost wrapped around a connection that failed.
func fail(ctx context.Context, interrupted bool, err error) error {
	switch {
	case err == nil:
		return nil
	case interrupted:
		return fmt.Errorf("%w (the statement was cancelled: %w)", context.Cause(ctx), err)
	}
	return lostConn(err)
}

// connLost reports whether err says that the connection failed or was
// cut, not that the server refused the statement.
func connLost(err error) bool {
	var pg pgdriver.Error
	if errors.As(err, &pg) {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &ne)
}

// terminated reports whether err says that the server ended the session
// (a FATAL message: pg_terminate_backend, a shutdown) or that the
// connection was cut, as a connection found dead at its first use does.
func terminated(err error) bool {
	var pg pgdriver.Error
	if errors.As(err, &pg) {
		return pg.Field('V') == "FATAL"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false // the server may still be running it; do not run it twice
	}
	return connLost(err)
}

// isRead reports whether query only reads: it starts with SELECT (the
// stores' reads do; their writes are INSERT, UPDATE, DELETE or a WITH of
// them, and the SELECTs with side effects run in a transaction or on a
// connection of their own, where database/sql does not retry).
func isRead(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}

// ExecContext runs query, cancelled when ctx ends.
func (cn *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cn.watch(ctx)
	res, err := cn.Conn.ExecContext(ctx, query, args)
	return res, fail(ctx, cn.unwatch(), err)
}

// QueryContext runs query, cancelled when ctx ends until its rows are
// closed. A read that meets a dead connection gives driver.ErrBadConn
// (wrapped), so that database/sql runs it on another connection.
func (cn *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cn.watch(ctx)
	rows, err := cn.Conn.QueryContext(ctx, query, args)
	if err != nil {
		interrupted := cn.unwatch()
		if !interrupted && terminated(err) && isRead(query) {
			_ = cn.Conn.Close()
			return nil, fmt.Errorf("%w: %w: %w", driver.ErrBadConn, errConnLost, err)
		}
		return nil, fail(ctx, interrupted, err)
	}
	return &pgRows{Rows: rows, cn: cn, ctx: ctx}, nil
}

// BeginTx begins a transaction, cancelled when ctx ends. BEGIN changes
// nothing, so one that meets a dead connection gives driver.ErrBadConn
// (wrapped), and database/sql begins on another connection.
func (cn *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	cn.watch(ctx)
	tx, err := cn.Conn.BeginTx(ctx, opts)
	if err != nil {
		interrupted := cn.unwatch()
		if !interrupted && terminated(err) {
			_ = cn.Conn.Close()
			return nil, fmt.Errorf("%w: %w: %w", driver.ErrBadConn, errConnLost, err)
		}
		return nil, fail(ctx, interrupted, err)
	}
	cn.unwatch()
	return pgTx{tx}, nil
}

// pgTx is a pgdriver transaction whose COMMIT and ROLLBACK, which
// pgdriver sends on the connection itself (past [pgConn.ExecContext]),
// give the errors of a connection that failed or was cut (a read timeout
// included) wrapped around errConnLost, as every statement's do: a write
// whose COMMIT got no answer is an outage (its outcome unknown), on every
// route, never an unknown error.
type pgTx struct{ driver.Tx }

func (t pgTx) Commit() error   { return lostConn(t.Tx.Commit()) }
func (t pgTx) Rollback() error { return lostConn(t.Tx.Rollback()) }

// lostConn wraps err around errConnLost when it says the connection
// failed or was cut.
func lostConn(err error) error {
	if err != nil && connLost(err) {
		return fmt.Errorf("%w: %w", errConnLost, err)
	}
	return err
}

// Ping runs SELECT 1 as ExecContext does.
func (cn *pgConn) Ping(ctx context.Context) error {
	_, err := cn.ExecContext(ctx, "SELECT 1", nil)
	return err
}

// ResetSession reports a pooled connection that the server closed or
// wrote to while it was idle as driver.ErrBadConn, so that database/sql
// discards it and uses another before anything is sent on it.
func (cn *pgConn) ResetSession(ctx context.Context) error {
	if err := cn.Conn.ResetSession(ctx); err != nil {
		return err
	}
	if !socketAlive(cn.Conn.Conn()) {
		_ = cn.Conn.Close()
		return driver.ErrBadConn
	}
	return nil
}

// pgRows are the rows of a query whose statement is cancelled when its
// context ends before they are closed: a statement that waits for a lock
// waits after its first answer, while its rows are read.
type pgRows struct {
	driver.Rows
	cn          *pgConn
	ctx         context.Context
	ended       bool
	interrupted bool
}

func (r *pgRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err == nil || err == io.EOF {
		return err
	}
	return fail(r.ctx, r.end(), err)
}

func (r *pgRows) Close() error {
	err := r.Rows.Close()
	return fail(r.ctx, r.end(), err)
}

// end ends the watch once and reports whether it interrupted.
func (r *pgRows) end() bool {
	if !r.ended {
		r.ended = true
		r.interrupted = r.cn.unwatch()
	}
	return r.interrupted
}
