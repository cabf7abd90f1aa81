package notify_test

import (
	"bytes"
	"context"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/legacymailtest"
	"github.com/predictions-md/predictions/internal/smtptest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
)

// TestUpgradeDelivers: a board made before the outbox had a package of
// its own, with a notification and a confirmation waiting in its e-mail
// outbox, is opened as serve opens it now; the sender delivers both, as
// they were queued, and a new post queues and delivers as usual.
func TestUpgradeDelivers(t *testing.T) {
	ctx := context.Background()
	clk := testclock.New(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	// The board as the previous release left it: its migrations made the
	// outbox table with prediction_id, reply_id and message, and nothing
	// has opened the outbox package on it.
	s, err := board.Open(ctx, boardtest.SQLite(t), board.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := legacymailtest.Make(ctx, s.WriteDB(), legacymailtest.OptIn); err != nil {
		t.Fatal(err)
	}
	c := 0.7
	p, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "ada", Title: "Rain in Paris", Body: "Tomorrow.",
		Confidence: &c, Timeframe: "tomorrow", Domain: "Climate"})
	if err != nil {
		t.Fatal(err)
	}
	old := map[string][]byte{
		"bob@example.org": []byte("From: board@predictions.example.org\r\nTo: bob@example.org\r\nSubject: [prediction " + p.ID + "] Rain in Paris\r\n\r\nqueued before the upgrade\r\n"),
		"cy@example.org":  []byte("From: board@predictions.example.org\r\nTo: cy@example.org\r\nSubject: Confirm your address\r\n\r\nqueued before the upgrade\r\n"),
	}
	if _, err := s.WriteDB().ExecContext(ctx, `INSERT INTO outbox (id, kind, prediction_id, recipient, message, status, next_attempt_at, created_at)
	VALUES ('old-1', 'notification', ?, 'bob@example.org', ?, 'pending', ?, ?), ('old-2', 'confirmation', NULL, 'cy@example.org', ?, 'pending', ?, ?)`,
		p.ID, old["bob@example.org"], clk.Now(), clk.Now(), old["cy@example.org"], clk.Now(), clk.Now()); err != nil {
		t.Fatal(err)
	}

	// The new release: the outbox opens (and moves the rows in), the
	// e-mail recorder is the board's, the sender drains.
	box, mb := withMail(t, s, clk.Now)
	srv := smtptest.Start(t, smtptest.Options{})
	snd := &notify.Sender{Outbox: box, From: boardFrom, SMTP: server(srv), Log: quiet}
	drain(t, snd, notify.Result{Sent: 2})
	got := map[string][]byte{}
	for _, m := range srv.Messages() {
		got[m.To[0]] = m.Data
	}
	for to := range old {
		if !bytes.Contains(got[to], []byte("queued before the upgrade")) {
			t.Errorf("to %s: got %q, want the message queued before the upgrade", to, got[to])
		}
	}
	rows, err := box.List(ctx, p.ID)
	if err != nil || len(rows) != 1 || rows[0].ID != "old-1" || rows[0].Status != outbox.Sent || rows[0].Kind != outbox.Email {
		t.Errorf("the old notification after delivery: %+v, %v; want sent", rows, err)
	}
	// What is posted now goes the new way.
	seedOne(t, s, mb, box)
	drain(t, snd, notify.Result{Sent: 1}) // ada's prediction to bob
	if n := len(srv.Messages()); n != 3 {
		t.Errorf("%d messages in all, want 3", n)
	}
}

// TestCancelWithoutMail: mail queued while e-mail was on, to an address
// that unsubscribes while the server runs without e-mail (Cancel is the
// mailbox's recorder), is given up, and is not sent once e-mail is on
// again; Cancel queues nothing for posts.
func TestCancelWithoutMail(t *testing.T) {
	f := newFixture(t) // ada's prediction waits for bob
	ctx := context.Background()
	rows, err := f.box.List(ctx, f.pred.ID)
	if err != nil || len(rows) != 1 {
		t.Fatalf("queued: %+v, %v", rows, err)
	}
	// The next run has no SMTP server.
	f.store.SetRecorder(nil)
	f.mail.SetRecorder(notify.Cancel{Outbox: f.box})
	c := 0.4
	if _, err := f.store.CreatePrediction(ctx, board.NewPrediction{AgentID: "bob", Title: "Snow in Oslo", Body: "Soon.",
		Confidence: &c, Timeframe: "soon", Domain: "Climate"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.box.Backlog(ctx); n != 1 {
		t.Errorf("backlog after a post without e-mail = %d, want the 1 of before", n)
	}
	if _, err := f.mail.Unsubscribe(ctx, unsubscribeToken(t, rows[0].Payload)); err != nil {
		t.Fatal(err)
	}
	if r := f.row(t); r.Status != outbox.Failed || r.LastError != "the address unsubscribed" {
		t.Errorf("bob's message after he unsubscribed = %s %q, want failed: the address unsubscribed", r.Status, r.LastError)
	}
	// E-mail on again: nothing goes to bob.
	withMail(t, f.store, f.clk.Now)
	srv := smtptest.Start(t, smtptest.Options{})
	drain(t, &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet}, notify.Result{})
}

// unsubscribeToken reads the token of a message's List-Unsubscribe link.
func unsubscribeToken(t *testing.T, msg []byte) string {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	link := strings.Trim(m.Header.Get("List-Unsubscribe"), "<>")
	_, tok, ok := strings.Cut(link, "?token=")
	if !ok {
		t.Fatalf("List-Unsubscribe %q has no token", link)
	}
	return tok
}
