package database

import (
	"context"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Signal tells waiters that what they follow may have changed: by
// [Signal.Fire] in this process or, once [Signal.Listen] runs, by a
// NOTIFY on a PostgreSQL channel from any process on the database. A
// waiter takes [Signal.Wait]'s channel, reads what it follows, and waits
// on the channel: the data are the truth, the signal only says when to
// look again. The zero value is ready to use.
type Signal struct {
	mu     sync.Mutex
	ch     chan struct{}
	once   sync.Once
	ln     *pgdriver.Listener
	closed bool
}

// Wait returns a channel closed by the next [Signal.Fire].
func (s *Signal) Wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Fire closes the channel of every waiter.
func (s *Signal) Fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// Listen starts, on its first call, a listener on the PostgreSQL channel
// of db: each notification, and each reconnection of its connection
// (notifications sent meanwhile are lost), fires the signal. pgdriver's
// listener keeps its own connection, pings it and reconnects. After
// [Signal.Close] it starts none.
func (s *Signal) Listen(db *bun.DB, channel string) {
	s.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		ln := pgdriver.NewListener(db)
		s.ln = ln
		go func() {
			if err := ln.Listen(context.Background(), channel); err != nil {
				// The channel below reconnects and listens again.
				s.Fire()
			}
			for range ln.Channel() {
				s.Fire()
			}
		}()
	})
}

// Close stops the listener. Its goroutine ends when pgdriver's receiving
// loop sees the close (up to its read timeout later); it is not waited
// for, so that Close returns at once.
func (s *Signal) Close() {
	s.mu.Lock()
	s.closed = true
	ln := s.ln
	s.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
}
