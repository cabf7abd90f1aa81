package board_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/outbox"
)

// TestOptInCaps: the caps hold at their boundary on both databases, also
// when the registrations arrive at once, and slide with the clock.
func TestOptInCaps(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s, _ := openMail(t, open, board.Options{Now: clk.Now})
		ctx := context.Background()

		// Ten agents register one address at once: exactly the cap gets through.
		const n = 10
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = s.Register(ctx, board.Registration{AgentID: fmt.Sprintf("a%d", i), Email: "victim@example.org"})
			})
		}
		wg.Wait()
		ok, limited := 0, 0
		for _, err := range errs {
			var le *board.LimitError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &le) && le.Field == "email" && le.RetryAfter > 0 && le.RetryAfter <= board.CapWindow:
				limited++
			default:
				t.Errorf("concurrent registration: %v", err)
			}
		}
		if ok != board.MaxConfirmationsPerAddress || limited != n-ok {
			t.Errorf("%d registrations of one address at once: %d accepted, %d limited; want %d accepted", n, ok, limited, board.MaxConfirmationsPerAddress)
		}
		if got, err := board.ConfirmationMessages(ctx, s, "victim@example.org"); err != nil || got != board.MaxConfirmationsPerAddress {
			t.Errorf("confirmation messages to the address: %d (%v), want %d", got, err, board.MaxConfirmationsPerAddress)
		}

		// One agent, many addresses: the cap, then ErrLimit on agent_id until a day has passed.
		for i := range board.MaxRegistrationsPerAgent {
			clk.Advance(time.Minute)
			if _, err := s.Register(ctx, board.Registration{AgentID: "spam", Email: fmt.Sprintf("t%d@example.org", i)}); err != nil {
				t.Fatalf("registration %d: %v", i+1, err)
			}
		}
		_, err := s.Register(ctx, board.Registration{AgentID: "spam", Email: "over@example.org"})
		var le *board.LimitError
		if !errors.As(err, &le) || le.Field != "agent_id" || !errors.Is(err, board.ErrLimit) {
			t.Errorf("registration %d by one agent = %v, want a LimitError on agent_id", board.MaxRegistrationsPerAgent+1, err)
		}
		clk.Advance(board.CapWindow - time.Duration(board.MaxRegistrationsPerAgent-1)*time.Minute)
		if _, err := s.Register(ctx, board.Registration{AgentID: "spam", Email: "over@example.org"}); err != nil {
			t.Errorf("a day after the first registration: %v, want success", err)
		}
	})
}

// TestConfirmExpiry: a token works once and only within
// ConfirmationLifetime; an unsubscribe voids pending registrations.
func TestConfirmExpiry(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s, _ := openMail(t, open, board.Options{Now: clk.Now})
		ctx := context.Background()
		reg := func(agent, addr string) string {
			t.Helper()
			if _, err := s.Register(ctx, board.Registration{AgentID: agent, Email: addr}); err != nil {
				t.Fatal(err)
			}
			tok, err := board.ConfirmationToken(ctx, s, addr)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		late := reg("late", "late@example.org")
		clk.Advance(board.ConfirmationLifetime - time.Microsecond)
		onTime := reg("ontime", "ontime@example.org")
		clk.Advance(time.Microsecond) // late's registration is exactly ConfirmationLifetime old
		if _, err := s.ConfirmEmail(ctx, "late", late); !errors.Is(err, board.ErrExpired) {
			t.Errorf("confirming at the lifetime = %v, want ErrExpired", err)
		}
		if _, err := s.ConfirmEmail(ctx, "ontime", onTime); err != nil {
			t.Errorf("confirming in time: %v", err)
		}
		if _, err := s.ConfirmEmail(ctx, "ontime", onTime); !errors.Is(err, board.ErrExpired) {
			t.Errorf("second use = %v, want ErrExpired", err)
		}
		if _, err := s.ConfirmEmail(ctx, "ontime", "not-a-token"); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("unknown token = %v, want ErrNotFound", err)
		}
		if _, err := s.Unsubscribe(ctx, "not-a-token\x00"); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("Unsubscribe(bad token) = %v, want ErrNotFound", err)
		}
	})
}

// FuzzParseSubscribe: the subscribe field never panics; a refusal is a
// ValidationError on subscribe or one of its items; an accepted list holds
// canonical domains, each once, and reads back the same from its string.
func FuzzParseSubscribe(f *testing.F) {
	for _, s := range []string{`"all"`, `"none"`, `null`, `["AI","science","ai"]`, `"Crypto"`, `7`, `[1]`, `["x"]`, `""`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sub, given, err := board.ParseSubscribe(raw)
		if err != nil {
			var ve *board.ValidationError
			if !errors.As(err, &ve) || !strings.HasPrefix(ve.Field, "subscribe") || ve.Hint == "" {
				t.Errorf("ParseSubscribe(%q) = %v, want a ValidationError on subscribe", raw, err)
			}
			return
		}
		if sub.All && len(sub.Domains) > 0 {
			t.Errorf("ParseSubscribe(%q) = %+v: all with domains", raw, sub)
		}
		seen := map[string]bool{}
		for _, d := range sub.Domains {
			if !slices.Contains(board.Domains(), d) || seen[d] {
				t.Errorf("ParseSubscribe(%q) = %+v: %q is not canonical or repeats", raw, sub, d)
			}
			seen[d] = true
		}
		if !given && (sub.All || len(sub.Domains) > 0) {
			t.Errorf("ParseSubscribe(%q) = %+v but not given", raw, sub)
		}
	})
}

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
			old, err := board.OpenBeforeOptIn(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
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
				if err := board.Exec(ctx, old, q.sql, q.args...); err != nil {
					t.Fatal(err)
				}
			}
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			s, box := openMail(t, func(opt board.Options) *board.Store { return mustOpen(t, dsn, opt) }, board.Options{Now: func() time.Time { return now }})
			if _, err := s.AgentByEmail(ctx, "old@example.org"); !errors.Is(err, board.ErrNotFound) {
				t.Errorf("an address registered before opt-in = %v, want unconfirmed (ErrNotFound)", err)
			}
			rows, err := box.List(ctx, "0190f5a2-7b3c-7d4e-8f90-123456789abc")
			if err != nil || len(rows) != 1 || rows[0].ID != "m1" || rows[0].Status != outbox.Pending {
				t.Errorf("the old outbox after migrating: %+v, %v", rows, err)
			}
			mustRegister(t, s, "old", "Old@example.org")
			if a, err := s.AgentByEmail(ctx, "old@example.org"); err != nil || a.ID != "old" {
				t.Errorf("after registering and confirming again: %+v, %v", a, err)
			}
			msgs, err := box.Claim(ctx, outbox.Email, 10, time.Minute)
			if err != nil || len(msgs) != 1 || msgs[0].ID != "m1" {
				t.Errorf("claim after migrating: %d messages, %v; want the old pending one", len(msgs), err)
			}
		})
	}
}
