// Package testclock is a settable clock for tests, safe for concurrent
// use: pass [Clock.Now] where a package takes a Now func() time.Time,
// and move it with [Clock.Advance].
//
//	c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
//	s, err := board.Open(ctx, dsn, board.Options{Now: c.Now})
//	c.Advance(25 * time.Hour)
package testclock

import (
	"sync"
	"time"
)

// Clock is a settable clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock at t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
