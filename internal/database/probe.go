package database

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

// Probe keeps the result of a readiness check of the database (a write
// that must succeed) for Interval, so that the check runs at most once
// per interval however often it is asked, and one at a time: a caller
// that asks while another's check runs waits for its result. The zero
// value is ready to use.
type Probe struct {
	// Interval is how long a result is the answer; 0 means a second.
	Interval time.Duration
	// Recent is how recent a commit noted by [Probe.Committed] must be
	// to answer for the database without a check: under a write flood
	// the check would wait for SQLite's single writer and could time out
	// although every write succeeds. 0 means none answers.
	Recent time.Duration

	last atomic.Int64 // UnixNano of the real clock of the last commit; 0 for none

	once sync.Once
	turn chan struct{} // capacity 1: held by the check that runs

	mu  sync.Mutex
	at  time.Time // when the last check ended (real clock); zero: none
	err error     // its result
}

// Check returns nil after a recent commit, the last result while it is
// fresh, else runs check and keeps its result. A wait for another caller's check that ctx ends
// returns ctx's error wrapped by [Unavailable].
func (p *Probe) Check(ctx context.Context, check func(context.Context) error) error {
	if t := p.last.Load(); t != 0 && time.Since(time.Unix(0, t)) < p.Recent {
		return nil
	}
	if fresh, err := p.result(); fresh {
		return err
	}
	p.once.Do(func() { p.turn = make(chan struct{}, 1) })
	select {
	case p.turn <- struct{}{}:
	case <-ctx.Done():
		return Unavailable(ctx.Err())
	}
	defer func() { <-p.turn }()
	if fresh, err := p.result(); fresh {
		return err
	}
	err := check(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at, p.err = time.Now(), err
	return err
}

// result returns the last check's result while it is fresh.
func (p *Probe) result() (fresh bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	interval := p.Interval
	if interval == 0 {
		interval = time.Second
	}
	if p.at.IsZero() || time.Since(p.at) >= interval {
		return false, nil
	}
	return true, p.err
}

// Committed notes that a write committed now ([Probe.Recent]).
func (p *Probe) Committed() { p.last.Store(time.Now().UnixNano()) }

// Forget drops the last result and commit, so that the next Check runs
// the check.
func (p *Probe) Forget() {
	p.last.Store(0)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at, p.err = time.Time{}, nil
}

// Ping checks that db answers a query; its error wraps [ErrUnavailable]
// ([Unavailable]).
func Ping(ctx context.Context, db bun.IDB) error {
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return Unavailable(err)
	}
	return nil
}
