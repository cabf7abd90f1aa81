package mailbox_test

import (
	"bytes"
	"context"
	"errors"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/outbox"
)

// TestUnsubscribeInFlight: an address that unsubscribes while its
// message is in flight has it given up in the unsubscription's
// transaction, so that the sender's late failure report finds it no
// longer pending and it is not sent again (the outbox's own cases are in
// package outbox, TestLateFailureReport).
func TestUnsubscribeInFlight(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		clk := newClock()
		s, box := openMail(t, open, board.Options{Now: clk.Now})
		ctx := context.Background()
		mustRegister(t, s, "ada", "ada@example.org")
		mustRegister(t, s, "bob", "bob@example.org")
		p := mustCreate(t, s, "ada") // to bob
		claim := func() []outbox.Message {
			t.Helper()
			m, err := box.Claim(ctx, outbox.Email, 10, 30*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		inFlight := claim()
		if len(inFlight) != 1 {
			t.Fatalf("claim = %d messages, want 1", len(inFlight))
		}
		if _, err := s.Unsubscribe(ctx, unsubscribeToken(t, inFlight[0].Payload)); err != nil {
			t.Fatal(err)
		}
		if _, err := box.MarkFailed(ctx, inFlight[0].ID, "421 timeout", false); !errors.Is(err, outbox.ErrNotPending) {
			t.Errorf("MarkFailed of an unsubscribed address's message = %v, want ErrNotPending", err)
		}
		clk.Advance(time.Hour)
		if m := claim(); len(m) != 0 {
			t.Errorf("a message to the unsubscribed address was claimed again, to %s", m[0].Recipient)
		}
		rows, err := box.List(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, string(r.Status)+": "+r.LastError)
		}
		if diff := cmp.Diff([]string{"failed: the address unsubscribed"}, got); diff != "" {
			t.Errorf("after unsubscribing and the late report (-want +got):\n%s", diff)
		}
		// Nothing more is queued for it.
		mustCreate(t, s, "ada")
		if n, err := box.Backlog(ctx); err != nil || n != 0 {
			t.Errorf("Backlog after the unsubscribed address's next prediction = %d, %v; want 0", n, err)
		}
	})
}

// unsubscribeToken reads the token of a message's List-Unsubscribe link.
func unsubscribeToken(t *testing.T, msg []byte) string {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(strings.Trim(m.Header.Get("List-Unsubscribe"), "<>"))
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("List-Unsubscribe %q: %v", m.Header.Get("List-Unsubscribe"), err)
	}
	return u.Query().Get("token")
}
