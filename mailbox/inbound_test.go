package mailbox_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/mailbox"
)

// TestReceiveMailDuplicate: the same message delivered twice, one after
// the other or at the same time, is recorded once; the second answer is
// ErrDuplicate with the first reply. Another Message-ID is another reply.
func TestReceiveMailDuplicate(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		s := open(board.Options{})
		ctx := context.Background()
		p := mustCreate(t, s, "author")
		mustRegister(t, s, "ada", "ada.lovelace@gmail.com")
		m := testMessage(t, "gmail-reply.eml", p.ID, "")
		first, err := s.ReceiveMail(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.ReceiveMail(ctx, m)
		if !errors.Is(err, mailbox.ErrDuplicate) || again.ID != first.ID {
			t.Errorf("second delivery = %s, %v; want reply %s and ErrDuplicate", again.ID, err, first.ID)
		}

		// Eight deliveries of a new message at once make one reply.
		m2 := testMessage(t, "gmail-reply.eml", p.ID, "")
		m2.MessageID = "second@mail.gmail.com"
		var wg sync.WaitGroup
		var mu sync.Mutex
		ids := map[string]int{}
		dups := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := s.ReceiveMail(ctx, m2)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ids[r.ID]++
				case errors.Is(err, mailbox.ErrDuplicate):
					dups++
					ids[r.ID] += 0
				default:
					t.Errorf("concurrent delivery: %v", err)
				}
			}()
		}
		wg.Wait()
		th, err := s.Thread(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(th) != 2 || dups != 7 || len(ids) != 1 {
			t.Errorf("after 8 concurrent deliveries: %d replies, %d duplicates, reply ids %v; want 2 replies in all, 7 duplicates, one id", len(th), dups, ids)
		}
		checkCounters(t, s)
	})
}
