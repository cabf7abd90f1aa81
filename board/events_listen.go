package board

import (
	"context"
	"sync"

	"github.com/uptrace/bun/driver/pgdriver"
)

// eventListener is the LISTEN connection of a PostgreSQL store: one per
// store, opened by the first [Store.EventsChanged] and closed by
// [Store.Close].
type eventListener struct {
	mu     sync.Mutex
	ln     *pgdriver.Listener
	closed bool
}

// listen starts the store's listener on [eventsChannel]: each
// notification, and each reconnection of its connection (notifications
// sent meanwhile are lost), wakes the store's readers. pgdriver's
// listener keeps its own connection, pings it and reconnects.
func (s *Store) listen() {
	s.listener.mu.Lock()
	defer s.listener.mu.Unlock()
	if s.listener.closed {
		return
	}
	ln := pgdriver.NewListener(s.write)
	s.listener.ln = ln
	go func() {
		ctx := context.Background()
		if err := ln.Listen(ctx, eventsChannel); err != nil {
			// The channel below reconnects and listens again.
			s.wake.fire()
		}
		for range ln.Channel() {
			s.wake.fire()
		}
	}()
}

// stopListening closes the listener. Its goroutine ends when pgdriver's
// receiving loop sees the close (up to its read timeout later); it is not
// waited for, so that Close returns at once.
func (s *Store) stopListening() {
	s.listener.mu.Lock()
	s.listener.closed = true
	ln := s.listener.ln
	s.listener.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
}
