package mailbox_test

import (
	"context"
	"errors"
	"net/mail"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/predictions-md/predictions/internal/legacymailtest"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/outbox"
)

// TestUpgrade: a board whose e-mail rows were written by the board
// itself (before the mailbox had a package of its own: the addresses in
// its agents table, the tables as its migrations made them) keeps every address, confirmation, subscription,
// unsubscription and inbound Message-ID once the mailbox opens on it,
// and opening it again changes nothing.
func TestUpgrade(t *testing.T) {
	for name, dsn := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clk := newClock()
			s, err := board.Open(ctx, dsn(t), board.Options{Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			p := mustCreate(t, store{Store: s}, "author")
			r, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "ada", Body: "by e-mail"})
			if err != nil {
				t.Fatal(err)
			}
			if err := legacymailtest.Make(ctx, s.WriteDB(), legacymailtest.OptIn); err != nil {
				t.Fatal(err)
			}
			if err := bunmigrate.Exec(ctx, s.WriteDB(), mailbox.BoardTables()...); err != nil {
				t.Fatal(err)
			}
			t0 := clk.Now()
			old := []struct {
				sql  string
				args []any
			}{
				{`INSERT INTO agents (id, name, first_seen, last_seen) VALUES ('bob', 'bob', ?, ?), ('cy', 'cy', ?, ?), ('dan', 'dan', ?, ?)`,
					[]any{t0, t0, t0, t0, t0, t0}},
				{`UPDATE agents SET email = ?, email_key = ?, subscribe = ? WHERE id = ?`, []any{"Ada@Example.org", "ada@example.org", "all", "ada"}},
				{`UPDATE agents SET email = ?, email_key = ?, subscribe = ? WHERE id = ?`, []any{"bob@example.org", "bob@example.org", ",AI,", "bob"}},
				{`UPDATE agents SET email = ?, email_key = ?, subscribe = ? WHERE id = ?`, []any{"dan@example.org", "dan@example.org", "all", "dan"}},
				{`INSERT INTO mail_addresses (email_key, unsubscribe_token, unsubscribed_at, created_at) VALUES
	('ada@example.org', 'unsub-ada', NULL, ?), ('bob@example.org', 'unsub-bob', NULL, ?),
	('cy@example.org', 'unsub-cy', NULL, ?), ('dan@example.org', 'unsub-dan', ?, ?)`, []any{t0, t0, t0, t0, t0}},
				{`INSERT INTO email_confirmations (token_hash, agent_id, email, email_key, subscribe, created_at, expires_at, used_at) VALUES
	(?, 'ada', 'Ada@Example.org', 'ada@example.org', 'all', ?, ?, ?),
	(?, 'cy', 'cy@example.org', 'cy@example.org', ',Science,', ?, ?, NULL)`,
					[]any{mailbox.HashToken("used-ada"), t0, t0.Add(mailbox.ConfirmationLifetime), t0,
						mailbox.HashToken("pending-cy"), t0, t0.Add(mailbox.ConfirmationLifetime)}},
				{`INSERT INTO inbound_messages (message_key, reply_id, received_at) VALUES (?, ?, ?)`,
					[]any{mailbox.InboundKey("ada", p.ID, "first@mail.example.org"), r.ID, t0}},
			}
			for _, q := range old {
				if _, err := s.WriteDB().ExecContext(ctx, q.sql, q.args...); err != nil {
					t.Fatalf("%v\n%s", err, q.sql)
				}
			}
			var mb *mailbox.Box
			for range 2 { // the second open finds the migration applied
				if mb, err = mailbox.Open(ctx, s, mailbox.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			for addr, want := range map[string]string{"ADA@example.org": "ada", "bob@example.org": "bob", "dan@example.org": "dan"} {
				if a, err := mb.AgentByEmail(ctx, addr); err != nil || a.ID != want {
					t.Errorf("AgentByEmail(%s) = %+v, %v; want %s", addr, a.ID, err, want)
				}
			}
			if _, err := mb.AgentByEmail(ctx, "cy@example.org"); !errors.Is(err, board.ErrNotFound) {
				t.Errorf("cy's pending address = %v, want unconfirmed", err)
			}
			subs, err := mailbox.Subscribers(ctx, s.WriteDB(), "author", "AI")
			if err != nil {
				t.Fatal(err)
			}
			want := []mailbox.Recipient{{AgentID: "ada", Name: "ada", Email: "Ada@Example.org", UnsubscribeToken: "unsub-ada"},
				{AgentID: "bob", Name: "bob", Email: "bob@example.org", UnsubscribeToken: "unsub-bob"}}
			if diff := cmp.Diff(want, subs); diff != "" {
				t.Errorf("subscribers to AI after the upgrade (-want +got):\n%s", diff)
			}
			if fs, err := mailbox.Followers(ctx, s.WriteDB(), p.ID, "bob"); err != nil || len(fs) != 1 || fs[0].AgentID != "ada" {
				t.Errorf("followers after the upgrade = %+v, %v; want ada (the author has no address)", fs, err)
			}

			// The subscription and the confirmed address hold.
			reg, err := mb.Register(ctx, mailbox.Registration{AgentID: "bob", Email: "BOB@example.org"})
			if err != nil || reg.Status != mailbox.AlreadyConfirmed || reg.Subscribe.String() != "AI" || reg.Confirmed != "bob@example.org" {
				t.Errorf("bob registering his address again = %+v, %v; want already confirmed, subscribed to AI", reg, err)
			}
			// The pending confirmation works once, the used one not again.
			if c, err := mb.ConfirmEmail(ctx, "cy", "pending-cy"); err != nil || c.Subscribe.String() != "Science" {
				t.Errorf("cy confirming after the upgrade = %+v, %v; want subscribed to Science", c, err)
			}
			if _, err := mb.ConfirmEmail(ctx, "ada", "used-ada"); !errors.Is(err, mailbox.ErrExpired) {
				t.Errorf("ada's used token after the upgrade = %v, want ErrExpired", err)
			}
			// The unsubscription holds; the tokens work.
			if u, err := mb.Unsubscribe(ctx, "unsub-dan"); err != nil || !u.Already {
				t.Errorf("dan unsubscribing again = %+v, %v; want already", u, err)
			}
			if u, err := mb.Unsubscribe(ctx, "unsub-ada"); err != nil || u.Already || u.Email != "Ada@Example.org" {
				t.Errorf("ada unsubscribing = %+v, %v", u, err)
			}
			// The Message-ID recorded before is a duplicate.
			m := &email.Message{From: mail.Address{Address: "ada@example.org"}, MessageID: "first@mail.example.org",
				InReplyTo: []string{email.ThreadID(p.ID, "predictions.example.org")}, Reply: "by e-mail"}
			if got, err := mb.ReceiveMail(ctx, m); !errors.Is(err, mailbox.ErrDuplicate) || got.ID != r.ID {
				t.Errorf("the message recorded before the upgrade = %s, %v; want reply %s, ErrDuplicate", got.ID, err, r.ID)
			}
		})
	}
}

// TestOptInMigration: a board written before double opt-in (its e-mail
// schema as the board's migration 20261122000001 made it) keeps its
// outbox (the pending row) once the outbox opens on it, its registered
// addresses are unconfirmed once the mailbox opens on it (they get
// nothing until registered and confirmed again), and the new tables work.
func TestOptInMigration(t *testing.T) {
	for name, dsn := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			s, err := board.Open(ctx, dsn(t), board.Options{Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			// The board before double opt-in: the e-mail schema of the migrations before 20261125000002.
			if err := legacymailtest.Make(ctx, s.WriteDB(), legacymailtest.Threads); err != nil {
				t.Fatal(err)
			}
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`INSERT INTO agents (id, name, first_seen, last_seen, email, email_key) VALUES (?, ?, ?, ?, ?, ?)`,
					[]any{"old", "Old", now, now, "Old@example.org", "old@example.org"}},
				{`INSERT INTO predictions (id, agent_id, title, body, confidence, timeframe, domain, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
					[]any{"0190f5a2-7b3c-7d4e-8f90-123456789abc", "old", "t", "b", 0.5, "soon", "AI", now}},
				{`INSERT INTO outbox (id, prediction_id, recipient, message, status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
					[]any{"m1", "0190f5a2-7b3c-7d4e-8f90-123456789abc", "x@example.org", []byte("Subject: x\r\n\r\nx\r\n"), now, now}},
			} {
				if _, err := s.WriteDB().ExecContext(ctx, q.sql, q.args...); err != nil {
					t.Fatalf("%v\n%s", err, q.sql)
				}
			}
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
