package board_test

import (
	"context"
	"errors"
	"net/mail"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/outbox"
)

// TestOptInMigration: a board written before double opt-in keeps its
// outbox (sent and pending rows) through migration 20261125000001, its
// registered addresses become unconfirmed (they get nothing until
// registered and confirmed again), and the new tables work.
func TestOptInMigration(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel() // a database of its own
			ctx := context.Background()
			dsn := b.dsn(t)
			now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			// The board before double opt-in: the migrations before 20261125000001.
			if err := board.SeedAt(ctx, dsn, "20261125000000", []string{
				`INSERT INTO agents (id, name, first_seen, last_seen, email, email_key) VALUES (?, ?, ?, ?, ?, ?)`,
				`INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				`INSERT INTO outbox (id, prediction_id, recipient, message, status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
			}, [][]any{
				{"old", "Old", now, now, "Old@example.org", "old@example.org"},
				{"0190f5a2-7b3c-7d4e-8f90-123456789abc", "old", "t", "b", 0.5, "soon", "AI", now},
				{"m1", "0190f5a2-7b3c-7d4e-8f90-123456789abc", "x@example.org", []byte("Subject: x\r\n\r\nx\r\n"), now, now},
			}); err != nil {
				t.Fatal(err)
			}
			clock := func() time.Time { return now }
			s := mustOpen(t, dsn, board.Options{Now: clock})
			box, err := outbox.Open(ctx, s.WriteDB(), outbox.Options{Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			tokens := tokenRecorder{}
			mb, err := mailbox.Open(ctx, s, mailbox.Options{From: mail.Address{Address: "board@example.org"}, Recorder: tokens})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mb.AgentByEmail(ctx, "old@example.org"); !errors.Is(err, board.ErrNotFound) {
				t.Errorf("an address registered before opt-in = %v, want unconfirmed (ErrNotFound)", err)
			}
			rows, err := box.List(ctx, "0190f5a2-7b3c-7d4e-8f90-123456789abc")
			if err != nil || len(rows) != 1 || rows[0].ID != "m1" || rows[0].Status != outbox.Pending {
				t.Errorf("the old outbox after migrating: %+v, %v", rows, err)
			}
			if _, err := mb.Register(ctx, mailbox.Registration{AgentID: "old", Email: "Old@example.org"}); err != nil {
				t.Fatal(err)
			}
			if _, err := mb.ConfirmEmail(ctx, "old", tokens["old"]); err != nil {
				t.Fatal(err)
			}
			if a, err := mb.AgentByEmail(ctx, "old@example.org"); err != nil || a.ID != "old" {
				t.Errorf("after registering and confirming again: %+v, %v", a, err)
			}
			msgs, err := box.Claim(ctx, outbox.Email, 10, time.Minute)
			if err != nil || len(msgs) != 1 || msgs[0].ID != "m1" {
				t.Errorf("claim after migrating: %d messages, %v; want the old pending one", len(msgs), err)
			}
		})
	}
}

// tokenRecorder keeps the confirmation token of each registration, by
// agent, and queues nothing.
type tokenRecorder map[string]string

func (t tokenRecorder) Registered(_ context.Context, _ bun.Tx, _ time.Time, p mailbox.PendingAddress) (bool, error) {
	t[p.AgentID] = p.Token
	return true, nil
}

func (tokenRecorder) Unsubscribed(context.Context, bun.Tx, time.Time, []string) error { return nil }
