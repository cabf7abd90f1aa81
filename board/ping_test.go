package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
)

// A readiness probe must not report the store as down while writes queue
// behind the single SQLite writer connection.
func TestPingWhileWriterBusy(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		release, err := board.HoldWriter(ctx, s)
		if err != nil {
			t.Fatalf("HoldWriter: %v", err)
		}
		defer release()
		// Generous deadline: the probe fails only if it waits for the
		// writer, which is held until the test ends.
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := s.Ping(pctx); err != nil {
			t.Fatalf("Ping with the writer busy = %v, want nil", err)
		}
	})
}
