package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/outbox"
	"github.com/uptrace/bun"
)

// TestRetryFor: a kind retried for a time is retried past MaxAttempts,
// last at the deadline, and given up after it; other kinds count attempts.
func TestRetryFor(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		ctx := context.Background()
		c := newClock()
		o := mustOpen(t, s, outbox.Options{Now: c.Now, MaxAttempts: 2, Rand: func() float64 { return 0 },
			RetryFor: map[outbox.Kind]time.Duration{outbox.Webhook: 24 * time.Hour}})
		start := c.Now()
		mustEnqueue(t, o, s, outbox.Item{Kind: outbox.Webhook, Recipient: "hook-1", Payload: []byte("{}")})
		for attempt := 1; ; attempt++ {
			msgs, err := o.Claim(ctx, outbox.Webhook, 1, time.Minute)
			if err != nil || len(msgs) != 1 {
				t.Fatalf("attempt %d at %s: Claim = %d, %v", attempt, c.Now().Sub(start), len(msgs), err)
			}
			retry, err := o.MarkFailed(ctx, msgs[0].ID, "500", false)
			if err != nil {
				t.Fatal(err)
			}
			if retry.IsZero() {
				if got := c.Now().Sub(start); got != 24*time.Hour {
					t.Errorf("given up %s after the first attempt, want 24h", got)
				}
				if attempt <= 2 {
					t.Errorf("given up after %d attempts; MaxAttempts must not apply", attempt)
				}
				break
			}
			if retry.After(start.Add(24 * time.Hour)) {
				t.Fatalf("retry at %s, past the deadline", retry.Sub(start))
			}
			c.Advance(retry.Sub(c.Now()))
		}
		// E-mail still counts attempts.
		mustEnqueue(t, o, s, mail("p", "ada@example.org"))
		for attempt := 1; attempt <= 2; attempt++ {
			msgs, _ := o.Claim(ctx, outbox.Email, 1, time.Minute)
			if len(msgs) != 1 {
				t.Fatalf("e-mail attempt %d: nothing claimed", attempt)
			}
			retry, _ := o.MarkFailed(ctx, msgs[0].ID, "421", false)
			if (attempt == 2) != retry.IsZero() {
				t.Errorf("e-mail attempt %d: retry %v", attempt, retry)
			}
			c.Advance(2 * time.Hour)
		}
	})
}

// TestRetryForFromFirstAttempt: a webhook delivery that waited behind
// its endpoint's head (given up after its 24 hours) is tried for 24 hours
// from its own first attempt, not from when it was enqueued.
func TestRetryForFromFirstAttempt(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		ctx := context.Background()
		c := newClock()
		o := mustOpen(t, s, outbox.Options{Now: c.Now, Rand: func() float64 { return 0 },
			RetryFor: map[outbox.Kind]time.Duration{outbox.Webhook: 24 * time.Hour}})
		ids := mustEnqueue(t, o, s,
			outbox.Item{Kind: outbox.Webhook, Recipient: "hook-1", Payload: []byte(`{"n":1}`)},
			outbox.Item{Kind: outbox.Webhook, Recipient: "hook-1", Payload: []byte(`{"n":2}`)})
		// failUntilGivenUp fails the recipient's head until it is given
		// up, and returns when it was first tried and when given up.
		failUntilGivenUp := func(want string) (first, last time.Time) {
			t.Helper()
			for attempt := 1; ; attempt++ {
				msgs, err := o.Claim(ctx, outbox.Webhook, 1, time.Minute)
				if err != nil || len(msgs) != 1 {
					t.Fatalf("attempt %d at %s: Claim = %d, %v", attempt, c.Now(), len(msgs), err)
				}
				if msgs[0].ID != want {
					t.Fatalf("attempt %d claimed %s, want %s (the head)", attempt, msgs[0].ID, want)
				}
				if attempt == 1 {
					first = c.Now()
				}
				retry, err := o.MarkFailed(ctx, msgs[0].ID, "503", false)
				if err != nil {
					t.Fatal(err)
				}
				if retry.IsZero() {
					return first, c.Now()
				}
				c.Advance(retry.Sub(c.Now()))
			}
		}
		enqueued := c.Now()
		first, last := failUntilGivenUp(ids[0])
		if got := last.Sub(first); got != 24*time.Hour {
			t.Errorf("the head was given up %s after its first attempt, want 24h", got)
		}
		first, last = failUntilGivenUp(ids[1])
		if got := first.Sub(enqueued); got < 24*time.Hour {
			t.Fatalf("the second delivery was first tried %s after it was enqueued; want it held back 24h", got)
		}
		if got := last.Sub(first); got != 24*time.Hour {
			t.Errorf("the second delivery was given up %s after its first attempt, want 24h", got)
		}
	})
}

// TestPosition: a reader's position starts at 0, moves only with its
// transaction, and is kept per reader.
func TestPosition(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		ctx := context.Background()
		o := mustOpen(t, s, outbox.Options{})
		get := func(reader string) int64 {
			var pos int64
			err := s.WriteDB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				var err error
				pos, err = o.Position(ctx, tx, reader)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return pos
		}
		if got := get("webhooks"); got != 0 {
			t.Errorf("first position = %d, want 0", got)
		}
		_ = s.WriteDB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := o.SetPosition(ctx, tx, "webhooks", 42); err != nil {
				t.Fatal(err)
			}
			return context.Canceled // rolled back
		})
		if got := get("webhooks"); got != 0 {
			t.Errorf("position after a rollback = %d, want 0", got)
		}
		err := s.WriteDB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := o.Position(ctx, tx, "webhooks"); err != nil {
				return err
			}
			return o.SetPosition(ctx, tx, "webhooks", 42)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, other := get("webhooks"), get("other"); got != 42 || other != 0 {
			t.Errorf("positions = %d, %d, want 42, 0", got, other)
		}
	})
}
