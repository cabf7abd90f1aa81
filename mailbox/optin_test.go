package mailbox_test

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
	"github.com/predictions-md/predictions/mailbox"
)

// TestOptInCaps: the caps hold at their boundary on both databases, also
// when the registrations arrive at once, and slide with the clock.
func TestOptInCaps(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		clk := newClock()
		s, _ := openMail(t, open, board.Options{Now: clk.Now})
		ctx := context.Background()

		// Ten agents register one address at once: exactly the cap gets through.
		const n = 10
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = s.Register(ctx, mailbox.Registration{AgentID: fmt.Sprintf("a%d", i), Email: "victim@example.org"})
			})
		}
		wg.Wait()
		ok, limited := 0, 0
		for _, err := range errs {
			var le *mailbox.LimitError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &le) && le.Field == "email" && le.RetryAfter > 0 && le.RetryAfter <= mailbox.CapWindow:
				limited++
			default:
				t.Errorf("concurrent registration: %v", err)
			}
		}
		if ok != mailbox.MaxConfirmationsPerAddress || limited != n-ok {
			t.Errorf("%d registrations of one address at once: %d accepted, %d limited; want %d accepted", n, ok, limited, mailbox.MaxConfirmationsPerAddress)
		}
		if got, err := mailbox.ConfirmationMessages(ctx, s.Box, "victim@example.org"); err != nil || got != mailbox.MaxConfirmationsPerAddress {
			t.Errorf("confirmation messages to the address: %d (%v), want %d", got, err, mailbox.MaxConfirmationsPerAddress)
		}

		// One agent, many addresses: the cap, then ErrLimit on agent_id until a day has passed.
		for i := range mailbox.MaxRegistrationsPerAgent {
			clk.Advance(time.Minute)
			if _, err := s.Register(ctx, mailbox.Registration{AgentID: "spam", Email: fmt.Sprintf("t%d@example.org", i)}); err != nil {
				t.Fatalf("registration %d: %v", i+1, err)
			}
		}
		_, err := s.Register(ctx, mailbox.Registration{AgentID: "spam", Email: "over@example.org"})
		var le *mailbox.LimitError
		if !errors.As(err, &le) || le.Field != "agent_id" || !errors.Is(err, mailbox.ErrLimit) {
			t.Errorf("registration %d by one agent = %v, want a LimitError on agent_id", mailbox.MaxRegistrationsPerAgent+1, err)
		}
		clk.Advance(mailbox.CapWindow - time.Duration(mailbox.MaxRegistrationsPerAgent-1)*time.Minute)
		if _, err := s.Register(ctx, mailbox.Registration{AgentID: "spam", Email: "over@example.org"}); err != nil {
			t.Errorf("a day after the first registration: %v, want success", err)
		}
	})
}

// TestConfirmExpiry: a token works once and only within
// ConfirmationLifetime; an unsubscribe voids pending registrations.
func TestConfirmExpiry(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) store) {
		clk := newClock()
		s, _ := openMail(t, open, board.Options{Now: clk.Now})
		ctx := context.Background()
		reg := func(agent, addr string) string {
			t.Helper()
			if _, err := s.Register(ctx, mailbox.Registration{AgentID: agent, Email: addr}); err != nil {
				t.Fatal(err)
			}
			tok, err := mailbox.ConfirmationToken(ctx, s.Box, addr)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		late := reg("late", "late@example.org")
		clk.Advance(mailbox.ConfirmationLifetime - time.Microsecond)
		onTime := reg("ontime", "ontime@example.org")
		clk.Advance(time.Microsecond) // late's registration is exactly ConfirmationLifetime old
		if _, err := s.ConfirmEmail(ctx, "late", late); !errors.Is(err, mailbox.ErrExpired) {
			t.Errorf("confirming at the lifetime = %v, want ErrExpired", err)
		}
		if _, err := s.ConfirmEmail(ctx, "ontime", onTime); err != nil {
			t.Errorf("confirming in time: %v", err)
		}
		if _, err := s.ConfirmEmail(ctx, "ontime", onTime); !errors.Is(err, mailbox.ErrExpired) {
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
		sub, given, err := mailbox.ParseSubscribe(raw)
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
