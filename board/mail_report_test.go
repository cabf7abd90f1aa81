package board_test

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
)

// TestLateFailureReport: a sender's failure report that comes after the
// message stopped being pending changes nothing. Two ways to get there:
// the sender's lease ended and another sender claimed the message and
// sent it (a replica that stalled), or the address unsubscribed while the
// message was in flight. Before, the report made a sent message pending
// again (sent twice) or failed, and an unsubscribed address's message
// pending again (sent after the unsubscribe).
func TestLateFailureReport(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now, Mail: mailOpts(0)})
		ctx := context.Background()
		mustRegister(t, s, "ada", "ada@example.org")
		mustRegister(t, s, "bob", "bob@example.org")
		p := mustCreate(t, s, newPrediction("ada")) // to bob
		const lease = 30 * time.Second
		claim := func() []board.OutboxMessage {
			t.Helper()
			m, err := s.ClaimOutbox(ctx, 10, lease)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		status := func(predictionID string) []string {
			t.Helper()
			rows, err := s.Outbox(ctx, predictionID)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rows {
				out = append(out, string(r.Status)+": "+r.LastError)
			}
			return out
		}

		// A stalled sender reports after another sent the message.
		first := claim()
		if len(first) != 1 {
			t.Fatalf("first claim = %d messages, want 1", len(first))
		}
		clk.Advance(lease + time.Second)
		second := claim()
		if len(second) != 1 || second[0].ID != first[0].ID || second[0].Attempts != 2 {
			t.Fatalf("claim after the lease = %+v, want the same message, attempt 2", second)
		}
		if err := s.MarkSent(ctx, second[0].ID); err != nil {
			t.Fatal(err)
		}
		for _, permanent := range []bool{false, true} {
			if _, err := s.MarkFailed(ctx, first[0].ID, "421 timeout", permanent); !errors.Is(err, board.ErrNotPending) {
				t.Errorf("MarkFailed (permanent %t) of a message sent by another claim = %v, want ErrNotPending", permanent, err)
			}
		}
		clk.Advance(time.Hour)
		if m := claim(); len(m) != 0 {
			t.Errorf("the sent message was claimed again, attempt %d", m[0].Attempts)
		}
		if diff := cmp.Diff([]string{"sent: "}, status(p.ID)); diff != "" {
			t.Errorf("after the late report (-want +got):\n%s", diff)
		}

		// bob unsubscribes while his next message is in flight; its
		// sender's failure comes after.
		q := mustCreate(t, s, newPrediction("ada"))
		inFlight := claim()
		if len(inFlight) != 1 {
			t.Fatalf("claim = %d messages, want 1", len(inFlight))
		}
		if _, err := s.Unsubscribe(ctx, unsubscribeToken(t, inFlight[0].Message)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MarkFailed(ctx, inFlight[0].ID, "421 timeout", false); !errors.Is(err, board.ErrNotPending) {
			t.Errorf("MarkFailed of an unsubscribed address's message = %v, want ErrNotPending", err)
		}
		clk.Advance(time.Hour)
		if m := claim(); len(m) != 0 {
			t.Errorf("a message to the unsubscribed address was claimed again, to %s", m[0].Recipient)
		}
		if diff := cmp.Diff([]string{"failed: the address unsubscribed"}, status(q.ID)); diff != "" {
			t.Errorf("after unsubscribing and the late report (-want +got):\n%s", diff)
		}
		if _, err := s.MarkFailed(ctx, "nope", "x", false); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("MarkFailed(unknown) = %v, want ErrNotFound", err)
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
