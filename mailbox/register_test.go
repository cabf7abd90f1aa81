package mailbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/outbox"
)

func TestRegister(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()

		// A chosen name survives a registration without one.
		if _, err := s.Reply(ctx, mustCreate(t, s, "someone").ID, board.NewReply{AgentID: "seven", AgentName: "Seven", Body: "hello"}); err != nil {
			t.Fatal(err)
		}
		mustCreate(t, s, "plain-id")

		pending := mailbox.ConfirmationNotSent // this store sends no mail
		tests := []struct {
			name string
			in   mailbox.Registration
			want mailbox.Registered // Agent compared on ID and Name only; ExpiresAt apart
		}{
			{"display name", mailbox.Registration{AgentID: "ada", Email: "Ada Lovelace <Ada@Example.org>"},
				mailbox.Registered{Agent: board.Agent{ID: "ada", Name: "Ada Lovelace"}, Email: "Ada@Example.org", Created: true, Status: pending}},
			{"local part", mailbox.Registration{AgentID: "bob", Email: " bob.smith@example.org "},
				mailbox.Registered{Agent: board.Agent{ID: "bob", Name: "bob.smith"}, Email: "bob.smith@example.org", Created: true, Status: pending}},
			{"name given", mailbox.Registration{AgentID: "cy", AgentName: "Cyrus", Email: "Someone Else <cy@example.org>"},
				mailbox.Registered{Agent: board.Agent{ID: "cy", Name: "Cyrus"}, Email: "cy@example.org", Created: true, Status: pending}},
			{"chosen name kept", mailbox.Registration{AgentID: "seven", Email: "Other <seven@example.org>"},
				mailbox.Registered{Agent: board.Agent{ID: "seven", Name: "Seven"}, Email: "seven@example.org", Status: pending}},
			{"default name replaced", mailbox.Registration{AgentID: "plain-id", Email: "Plain Agent <p@example.org>"},
				mailbox.Registered{Agent: board.Agent{ID: "plain-id", Name: "Plain Agent"}, Email: "p@example.org", Status: pending}},
			{"subscription pending", mailbox.Registration{AgentID: "bob", Email: "bob@example.net", Subscribe: json.RawMessage(`["ai", "Science", "AI"]`)},
				mailbox.Registered{Agent: board.Agent{ID: "bob", Name: "bob.smith"}, Email: "bob@example.net", Status: pending,
					PendingSubscribe: &mailbox.Subscription{Domains: []string{"AI", "Science"}}}},
		}
		for _, tt := range tests {
			clk.Advance(time.Second)
			got, err := s.Register(ctx, tt.in)
			if err != nil {
				t.Fatalf("%s: Register(%+v): %v", tt.name, tt.in, err)
			}
			if got.ExpiresAt == nil || !got.ExpiresAt.Equal(clk.Now().Add(mailbox.ConfirmationLifetime)) {
				t.Errorf("%s: expires at %v, want %v", tt.name, got.ExpiresAt, clk.Now().Add(mailbox.ConfirmationLifetime))
			}
			got.Agent, got.ExpiresAt = board.Agent{ID: got.Agent.ID, Name: got.Agent.Name}, nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: Register(%+v) (-want +got):\n%s", tt.name, tt.in, diff)
			}
		}
		// Nothing is confirmed yet: no agent has an address.
		if _, err := s.AgentByEmail(ctx, "ada@example.org"); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("AgentByEmail(pending address) = %v, want ErrNotFound", err)
		}
		tok, err := mailbox.ResetToken(ctx, s.Box, "bob")
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.ConfirmEmail(ctx, "bob", tok)
		if err != nil || c.Email != "bob@example.net" || c.Subscribe.String() != "AI,Science" {
			t.Errorf("ConfirmEmail = %+v, %v; want bob@example.net subscribed to AI,Science", c, err)
		}
		clk.Advance(time.Second)
		again, err := s.Register(ctx, mailbox.Registration{AgentID: "bob", AgentName: "Bob", Email: "BOB@example.NET", Subscribe: json.RawMessage(`"none"`)})
		if err != nil || again.Status != mailbox.AlreadyConfirmed || again.Subscribe.String() != "none" || again.Confirmed != "bob@example.net" || again.ExpiresAt != nil {
			t.Errorf("the confirmed address again = %+v, %v; want already_confirmed, subscription none", again, err)
		}
		a, err := s.AgentByEmail(ctx, "Whoever <bob@EXAMPLE.net>")
		if err != nil || a.ID != "bob" || a.Name != "Bob" || !a.LastSeen.Equal(clk.Now()) {
			t.Errorf("AgentByEmail = %+v, %v; want bob (Bob) seen now", a, err)
		}

		bad := []struct {
			in    mailbox.Registration
			field string
			is    error
		}{
			{mailbox.Registration{AgentID: "eve", Email: "bob@example.net"}, "email", board.ErrConflict},
			{mailbox.Registration{AgentID: "eve", Email: "Eve <A.D.A@example.org>"}, "", nil}, // another address: fine
			{mailbox.Registration{AgentID: "eve", Email: "ada@example.org"}, "", nil},         // pending for ada only: fine
			{mailbox.Registration{AgentID: "eve", Email: ""}, "email", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: "not an address"}, "email", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: "eve@localhost"}, "", nil},
			{mailbox.Registration{AgentID: "eve2", Email: "eve@intranet"}, "email", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: "Eve <eve@example.org"}, "email", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: "a@example.org, b@example.org"}, "email", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: strings.Repeat("e", 250) + "@example.org"}, "email", board.ErrInvalid},
			{mailbox.Registration{AgentID: "e ve", Email: "eve@example.org"}, "agent_id", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", AgentName: strings.Repeat("n", 81), Email: "eve@example.org"}, "agent_name", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: "eve@example.org", Subscribe: json.RawMessage(`"weather"`)}, "subscribe", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: "eve@example.org", Subscribe: json.RawMessage(`["AI", "Weather"]`)}, "subscribe[1]", board.ErrInvalid},
			{mailbox.Registration{AgentID: "eve", Email: "eve@example.org", Subscribe: json.RawMessage(`7`)}, "subscribe", board.ErrInvalid},
		}
		for _, b := range bad {
			_, err := s.Register(ctx, b.in)
			if b.is == nil {
				if err != nil {
					t.Errorf("Register(%+v) = %v, want success", b.in, err)
				}
				continue
			}
			var ve *board.ValidationError
			if !errors.Is(err, b.is) || !errors.As(err, &ve) || ve.Field != b.field {
				t.Errorf("Register(%+v) = %v, want %v on %s", b.in, err, b.is, b.field)
			}
		}
		checkCounters(t, s)
	})
}

// TestConfirmRace: agents that registered one address confirm it at once;
// exactly one gets it, the others a conflict.
func TestConfirmRace(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		s := open(board.Options{})
		ctx := context.Background()
		const n = mailbox.MaxConfirmationsPerAddress
		toks := make([]string, n)
		for i := range n {
			if _, err := s.Register(ctx, mailbox.Registration{AgentID: fmt.Sprintf("r%d", i), Email: "Shared@example.org"}); err != nil {
				t.Fatal(err)
			}
			var err error
			if toks[i], err = mailbox.ResetToken(ctx, s.Box, fmt.Sprintf("r%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = s.ConfirmEmail(ctx, fmt.Sprintf("r%d", i), toks[i])
			})
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, board.ErrConflict):
				t.Errorf("agent r%d: %v, want success or ErrConflict", i, err)
			}
		}
		if won != 1 {
			t.Errorf("%d agents confirmed the address, want 1", won)
		}
	})
}

func TestNameFromEmailLong(t *testing.T) {
	s := mustOpen(t, boardtest.SQLite(t), board.Options{})
	long := strings.Repeat("x", 100)
	r := mustRegister(t, s, "long", long+"@example.org")
	if r.Agent.Name != strings.Repeat("x", board.MaxAgentName) {
		t.Errorf("name = %q, want the local part cut to %d characters", r.Agent.Name, board.MaxAgentName)
	}
	r = mustRegister(t, s, "ctl", "=?utf-8?q?Tab=09Name?= <ctl@example.org>")
	if r.Agent.Name != "Tab Name" {
		t.Errorf("name = %q, want control characters turned into a space", r.Agent.Name)
	}
	r = mustRegister(t, s, "blank", "=?utf-8?q?=01=02?= <local@example.org>")
	if r.Agent.Name != "local" {
		t.Errorf("name = %q, want the local part when the display name is only control characters", r.Agent.Name)
	}
}

// recipients lists the recipients of a prediction's outbox rows, per
// reply ("" for the prediction), sorted.
func recipients(t *testing.T, box *outbox.Outbox, pid string) map[string][]string {
	t.Helper()
	if box == nil {
		return nil
	}
	rows, err := box.List(context.Background(), pid)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range rows {
		out[r.Ref] = append(out[r.Ref], r.Recipient)
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// TestOutboxWrites: who gets which notification, written in the post's
// transaction, and nothing without Mail or for a refused post.
func TestOutboxWrites(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		clk := newClock()
		s, box := openMail(t, open, board.Options{Now: clk.Now})
		ctx := context.Background()
		mustRegister(t, s, "ada", "Ada Lovelace <ada@example.org>")
		mustRegister(t, s, "bob", "bob@example.org")
		mustRegister(t, s, "cy", "cy@example.org")

		p := mustCreate(t, s, "ada")
		if diff := cmp.Diff(map[string][]string{"": {"bob@example.org", "cy@example.org"}}, recipients(t, box, p.ID)); diff != "" {
			t.Errorf("prediction's recipients (-want +got):\n%s", diff)
		}
		// bob replies: the author follows; cy has not taken part.
		r1, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "bob", Body: "[DEBATE] Which source?"})
		if err != nil {
			t.Fatal(err)
		}
		// dan (no address) reacts; cy reacts; bob replies again.
		for _, a := range []string{"dan", "cy"} {
			if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: a, Reaction: board.ReactionAgree}); err != nil {
				t.Fatal(err)
			}
		}
		r2, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "dan", Body: "plain", ParentID: r1.ID})
		if err != nil {
			t.Fatal(err)
		}
		// A refused reply queues nothing.
		if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "cy", Body: "x", ParentID: "no-such-reply"}); !errors.Is(err, board.ErrInvalid) {
			t.Fatalf("bad parent: %v", err)
		}
		want := map[string][]string{
			"":    {"bob@example.org", "cy@example.org"},
			r1.ID: {"ada@example.org"},
			r2.ID: {"ada@example.org", "bob@example.org", "cy@example.org"},
		}
		if diff := cmp.Diff(want, recipients(t, box, p.ID)); diff != "" {
			t.Errorf("recipients (-want +got):\n%s", diff)
		}
		n, err := box.Backlog(ctx)
		if err != nil || n != 6 {
			t.Errorf("Backlog = %d, %v; want 6", n, err)
		}

		// The stored message is the thread's: one recipient, the reply's
		// Message-ID, the prediction's thread and plus address.
		rows, err := box.List(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var msg *email.Message
		for _, r := range rows {
			if r.Ref == r1.ID {
				if msg, err = email.Parse(bytes.NewReader(r.Payload)); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := map[string]any{
			"to": msg.To, "message-id": msg.MessageID, "in-reply-to": msg.InReplyTo, "subject": msg.Subject,
		}
		wantMsg := map[string]any{
			"to":          []mail.Address{{Name: "Ada Lovelace", Address: "ada@example.org"}},
			"message-id":  email.ReplyMessageID(p.ID, r1.ID, "predictions.example.org"),
			"in-reply-to": []string{email.ThreadID(p.ID, "predictions.example.org")},
			"subject":     "Re: [prediction " + p.ID + "] " + p.Title,
		}
		if diff := cmp.Diff(wantMsg, got); diff != "" {
			t.Errorf("notification (-want +got):\n%s", diff)
		}
		if !strings.Contains(msg.Text, "[DEBATE] Which source?") || !strings.Contains(msg.Text, "https://predictions.example.org/api/predictions/"+p.ID) {
			t.Errorf("notification text lacks the reply or the link:\n%s", msg.Text)
		}

		// Without a recorder nothing is queued.
		plain := open(board.Options{})
		mustRegister(t, plain, "ada", "ada@example.org")
		mustRegister(t, plain, "bob", "bob@example.org")
		q := mustCreate(t, plain, "ada")
		if _, err := plain.Reply(ctx, q.ID, board.NewReply{AgentID: "bob", Body: "hi"}); err != nil {
			t.Fatal(err)
		}
		if n, err := box.Backlog(ctx); err != nil || n != 6 {
			t.Errorf("without a recorder: backlog %d, %v; want the 6 of before", n, err)
		}
		checkCounters(t, s)
	})
}

// testMessage reads a message of the email package's testdata with the
// prediction and reply ids replaced by real ones.
func testMessage(t *testing.T, name, predictionID, replyID string) *email.Message {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "email", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.ReplaceAll(raw, []byte("0192f3a4-5b6c-7d8e-9f00-112233445566"), []byte(predictionID))
	raw = bytes.ReplaceAll(raw, []byte("0192f3b0-0000-7000-8000-aaaaaaaaaaaa"), []byte(replyID))
	m, err := email.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// TestReceiveMail records the email package's test messages as replies
// and refuses the ones that cannot be matched, recording nothing.
func TestReceiveMail(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		p := mustCreate(t, s, "author")
		debate, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "author", Body: "[DEBATE] What counts as on the grid?"})
		if err != nil {
			t.Fatal(err)
		}
		for agent, addr := range map[string]string{
			"ada": "ada.lovelace@gmail.com", "alan": "alan@icloud.example", "bot-7": "BOT7@agents.example.com",
			"grace": "grace@agents.example.com", "edsger": "edsger@agents.example.com", "charles": "cbabbage@contoso.example",
			"rene": "rene@agents.example.com", "jose": "jose@agents.example.com", "web": "web@agents.example.com",
			"francois": "francois@agents.example.com", "barbara": "barbara@agents.example.com",
		} {
			mustRegister(t, s, agent, addr)
		}
		tests := []struct {
			file, agent string
			kind        board.ReplyKind
			parent      string
		}{
			{"gmail-reply.eml", "ada", board.ReplyChallenge, ""},
			{"apple-mail-reply.eml", "alan", board.ReplyDebate, debate.ID}, // answers the debate's message
			{"base64.eml", "bot-7", board.ReplyAgree, debate.ID},
			{"interleaved.eml", "grace", board.ReplyChallenge, debate.ID},
			{"signature.eml", "edsger", board.ReplyDisagree, ""},
			{"outlook-reply.eml", "charles", board.ReplyAgree, ""},
			{"quoted-printable.eml", "rene", board.ReplyChallenge, ""}, // matched by the plus address
			{"subject-q.eml", "jose", board.ReplyDebate, ""},           // by the subject
			{"html-only.eml", "web", board.ReplyAgree, ""},
			{"latin1.eml", "francois", board.ReplyDisagree, ""},
			{"mobile.eml", "barbara", board.ReplyAgree, ""},
		}
		for _, tt := range tests {
			clk.Advance(time.Second)
			m := testMessage(t, tt.file, p.ID, debate.ID)
			r, err := s.ReceiveMail(ctx, m)
			if err != nil {
				t.Errorf("%s: ReceiveMail: %v", tt.file, err)
				continue
			}
			if r.AgentID != tt.agent || r.Kind != tt.kind || r.ParentID != tt.parent || r.Body != m.Reply || r.PredictionID != p.ID {
				t.Errorf("%s: reply by %s kind %s parent %q body %q; want %s, %s, parent %q and the stripped text",
					tt.file, r.AgentID, r.Kind, r.ParentID, r.Body, tt.agent, tt.kind, tt.parent)
			}
			if tt.parent == debate.ID && tt.kind != board.ReplyDebate && r.DebateID != debate.ID {
				t.Errorf("%s: debate_id %q, want it to join debate %s", tt.file, r.DebateID, debate.ID)
			}
		}
		got, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ReplyKinds != (board.ReplyKindCounts{Agree: 4, Disagree: 2, Challenge: 3, Debate: 3}) {
			t.Errorf("reply_kinds = %+v", got.ReplyKinds)
		}
		if got.Reactions != (board.ReactionCounts{Agree: 4, Disagree: 2}) {
			t.Errorf("reactions = %+v", got.Reactions)
		}

		before, err := mailbox.RowCounts(ctx, s.Box)
		if err != nil {
			t.Fatal(err)
		}
		unknown := testMessage(t, "gmail-reply.eml", p.ID, debate.ID)
		unknown.From.Address = "stranger@example.org"
		noFrom := testMessage(t, "gmail-reply.eml", p.ID, debate.ID)
		noFrom.From = mail.Address{}
		unmatched := testMessage(t, "gmail-reply.eml", p.ID, debate.ID)
		unmatched.InReplyTo, unmatched.References, unmatched.To, unmatched.Subject = nil, nil, nil, "Hello"
		gone := testMessage(t, "gmail-reply.eml", "0192f3a4-0000-7000-8000-000000000000", debate.ID)
		empty := testMessage(t, "gmail-reply.eml", p.ID, debate.ID)
		empty.Reply = " \n "
		refusals := []struct {
			name string
			m    *email.Message
			is   error
		}{
			{"auto-reply", testMessage(t, "auto-reply.eml", p.ID, debate.ID), mailbox.ErrAutomatic},
			{"unknown sender", unknown, mailbox.ErrUnknownSender},
			{"no sender", noFrom, mailbox.ErrUnknownSender},
			{"no prediction named", unmatched, mailbox.ErrUnmatched},
			{"prediction gone", gone, board.ErrNotFound},
			{"nothing above the quote", empty, board.ErrInvalid},
		}
		for _, r := range refusals {
			_, err := s.ReceiveMail(ctx, r.m)
			if !errors.Is(err, r.is) {
				t.Errorf("%s: ReceiveMail = %v, want %v", r.name, err, r.is)
			}
		}
		after, err := mailbox.RowCounts(ctx, s.Box)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("a refused message changed the tables (-before +after):\n%s", diff)
		}
		checkCounters(t, s)
	})
}

// FuzzCheckEmail: an accepted address has an @ and fits the limit, and the
// name derived from it is a valid agent_name; a refusal is a
// ValidationError on email.
func FuzzCheckEmail(f *testing.F) {
	for _, s := range []string{"Ada Lovelace <ada@example.org>", "bob@example.org", "=?utf-8?q?=C3=A9?= <e@x.org>", "<@x>", "a@b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		addr, display, err := mailbox.CheckEmail(s)
		if err != nil {
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != "email" || !errors.Is(err, board.ErrInvalid) {
				t.Errorf("CheckEmail(%q) = %v, want a ValidationError on email", s, err)
			}
			return
		}
		if !strings.Contains(addr, "@") || len(addr) > mailbox.MaxEmail {
			t.Errorf("CheckEmail(%q) = %q", s, addr)
		}
		name := mailbox.NameFromEmail(addr, display)
		if got, err := board.CheckAgentName(name); err != nil || got != name {
			t.Errorf("name %q derived from %q is not a valid agent_name: %v", name, s, err)
		}
	})
}

// An agent id with NUL or another control character is a
// *ValidationError naming agent_id on both databases, never a database
// error (PostgreSQL refuses NUL in text), as for the board's own routes.
func TestControlCharactersInIDs(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		s := open(board.Options{})
		ctx := context.Background()
		for _, bad := range []string{"\x00", "ada\x00", "a\x1fb", "\x7f", "\xff\xfe"} {
			for name, call := range map[string]func() error{
				"Register": func() error {
					_, err := s.Register(ctx, mailbox.Registration{AgentID: bad, Email: "x@example.org"})
					return err
				},
				"ConfirmEmail": func() error { _, err := s.ConfirmEmail(ctx, bad, "token"); return err },
			} {
				err := call()
				var ve *board.ValidationError
				if !errors.As(err, &ve) || ve.Field != "agent_id" || !errors.Is(err, board.ErrInvalid) {
					t.Errorf("%s(%q) = %v, want a ValidationError naming agent_id", name, bad, err)
				}
			}
		}
	})
}
