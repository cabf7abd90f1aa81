package database

import (
	"context"
	"sync"
	"time"
)

// Probe keeps the result of a readiness check of the database (a write
// that must succeed) for Interval, so that the check runs at most once
// per interval however often it is asked, and one at a time: a caller
// that asks while another's check runs waits for its result. The zero
// value is ready to use.
type Probe struct {
	// Interval is how long a result is the answer; 0 means a second.
	Interval time.Duration

	once sync.Once
	turn chan struct{} // capacity 1: held by the check that runs

	mu  sync.Mutex
	at  time.Time // when the last check ended (real clock); zero: none
	err error     // its result
}

// Check returns the last result while it is fresh, else runs check and
// keeps its result. A wait for another caller's check that ctx ends
// returns ctx's error wrapped by [Unavailable].
func (p *Probe) Check(ctx context.Context, check func(context.Context) error) error {
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

// Forget drops the last result, so that the next Check runs the check.
func (p *Probe) Forget() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at, p.err = time.Time{}, nil
}
