package board_test

import (
	"context"
	"errors"
	"testing"

	"github.com/predictions-md/predictions/board"
)

// TestAtomically: the writes made in one unit of work commit together or
// not at all, with their events; readers of the event log are woken only
// once the unit has committed.
func TestAtomically(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{})
		failed := errors.New("the unit fails after its writes")
		write := func(ctx context.Context) (string, error) {
			p, err := s.CreatePrediction(ctx, newPrediction("agent-a"))
			if err != nil {
				return "", err
			}
			_, err = s.Reply(ctx, p.ID, board.NewReply{AgentID: "agent-b", Body: "Doubtful."})
			return p.ID, err
		}
		count := func() (preds, events int) {
			st, err := s.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			page, err := s.Events(ctx, board.EventQuery{})
			if err != nil {
				t.Fatal(err)
			}
			return st.Predictions, len(page.Events)
		}

		if err := s.Atomically(ctx, func(ctx context.Context) error {
			if _, err := write(ctx); err != nil {
				return err
			}
			return failed
		}); !errors.Is(err, failed) {
			t.Fatalf("Atomically = %v, want %v", err, failed)
		}
		if p, e := count(); p != 0 || e != 0 {
			t.Fatalf("after a rollback: %d predictions, %d events; want none", p, e)
		}

		changed := s.EventsChanged()
		if err := s.Atomically(ctx, func(ctx context.Context) error {
			if _, err := write(ctx); err != nil {
				return err
			}
			select {
			case <-changed:
				return errors.New("readers were woken before the unit committed")
			default:
				return nil
			}
		}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
		default:
			t.Error("readers were not woken after the unit committed")
		}
		if p, e := count(); p != 1 || e != 2 {
			t.Fatalf("after a commit: %d predictions, %d events; want 1 and 2 (created, reply)", p, e)
		}
	})
}
