package database

import (
	"errors"
	"net"
	"os"
	"testing"
)

// failingTx is a driver.Tx whose COMMIT and ROLLBACK fail with err.
type failingTx struct{ err error }

func (t failingTx) Commit() error   { return t.err }
func (t failingTx) Rollback() error { return t.err }

// TestTxConnLost: a COMMIT or ROLLBACK that meets a connection failing
// (a read timeout behind a stalled proxy, a reset) is an outage, as a
// statement's error is; an error of the server itself is not.
func TestTxConnLost(t *testing.T) {
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"read timeout", timeout, true},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, true},
		{"other", errors.New("pq: something the server said"), false},
	} {
		tx := pgTx{failingTx{tc.err}}
		for name, err := range map[string]error{"Commit": tx.Commit(), "Rollback": tx.Rollback()} {
			if got := errors.Is(Classify(err), ErrUnavailable); got != tc.unavailable {
				t.Errorf("%s: %s = %v: unavailable %v, want %v", tc.name, name, err, got, tc.unavailable)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: %s = %v, which does not wrap %v", tc.name, name, err, tc.err)
			}
		}
	}
	if err := (pgTx{failingTx{nil}}).Commit(); err != nil {
		t.Errorf("Commit = %v, want nil", err)
	}
}
