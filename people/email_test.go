package people_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/people"
)

// postbox records what would be e-mailed: confirmation tokens by
// forecaster and sign-in links.
type postbox struct {
	mu      sync.Mutex
	confirm map[string]string
	links   []people.Link
}

func (p *postbox) Registered(_ context.Context, _ bun.Tx, _ time.Time, a mailbox.PendingAddress) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.confirm[a.AgentID] = a.Token
	return true, nil
}

func (p *postbox) Unsubscribed(context.Context, bun.Tx, time.Time, []string) error { return nil }

func (p *postbox) SignInLink(_ context.Context, _ bun.Tx, _ time.Time, l people.Link) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.links = append(p.links, l)
	return nil
}

// take returns the links queued since the last call.
func (p *postbox) take() []people.Link {
	p.mu.Lock()
	defer p.mu.Unlock()
	ls := p.links
	p.links = nil
	return ls
}

// TestSignInByLink, on each database: only a person's confirmed address
// gets a link; it signs in once, within its time; the cap per address
// counts known and unknown addresses alike; Expire drops old links.
func TestSignInByLink(t *testing.T) {
	boardtest.EachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		clock := testclock.New(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		b := open(board.Options{Now: clock.Now})
		post := &postbox{confirm: map[string]string{}}
		mb, err := mailbox.Open(ctx, b, mailbox.Options{Recorder: post})
		if err != nil {
			t.Fatal(err)
		}
		ppl, err := people.Open(ctx, b, people.Options{Mail: mb, Mailer: post})
		if err != nil {
			t.Fatal(err)
		}
		e := env{b: b, ppl: ppl, clock: clock}
		register(t, e, "ada", "")
		if _, err := ppl.AddEmail(ctx, "ada", "Ada Lovelace <Ada@Example.org>"); err != nil {
			t.Fatal(err)
		}
		if _, err := mb.ConfirmEmail(ctx, "ada", post.confirm["ada"]); err != nil {
			t.Fatal(err)
		}
		if got, err := ppl.Email(ctx, "ada"); got != "Ada@Example.org" || err != nil {
			t.Errorf("Email(ada) = %q, %v; want Ada@Example.org", got, err)
		}
		// The name that was the id stays: the address's name is not taken.
		if a, _ := b.Agent(ctx, "ada"); a.Name != "ada" || a.Kind != board.KindPerson {
			t.Errorf("ada after AddEmail: %+v", a)
		}
		if _, err := ppl.AddEmail(ctx, "oracle", "o@example.org"); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("AddEmail for no person: %v, want ErrNotFound", err)
		}
		if _, err := mb.Register(ctx, mailbox.Registration{AgentID: "bot", Email: "bot@example.org"}); err != nil {
			t.Fatal(err)
		}
		if _, err := mb.ConfirmEmail(ctx, "bot", post.confirm["bot"]); err != nil {
			t.Fatal(err)
		}

		// The recipients of what the people's follows tell, by id.
		one := 0.6
		p, err := b.CreatePrediction(ctx, board.NewPrediction{AgentID: "scout", Title: "Will the vote pass on Friday?",
			Body: "The chamber's record.", Confidence: &one, Timeframe: "2026-12-31", Domain: "Politics"})
		if err != nil {
			t.Fatal(err)
		}
		if err := ppl.Follow(ctx, "ada", p.ID, true); err != nil {
			t.Fatal(err)
		}
		if ids, err := ppl.FollowerIDs(ctx, b.ReadDB(), p.ID); err != nil || len(ids) != 1 || ids[0] != "ada" {
			t.Errorf("FollowerIDs = %v, %v; want ada", ids, err)
		}
		rs, err := mailbox.Recipients(ctx, b.ReadDB(), []string{"nobody", "bot", "ada"})
		if err != nil || len(rs) != 2 || rs[0].AgentID != "ada" || rs[1].AgentID != "bot" {
			t.Errorf("Recipients = %+v, %v; want ada and bot", rs, err)
		}
		for _, addr := range []string{"ADA@example.org", "bot@example.org", "nobody@example.org"} {
			if err := ppl.SendSignInLink(ctx, addr); err != nil {
				t.Fatalf("SendSignInLink(%q): %v", addr, err)
			}
		}
		links := post.take()
		if len(links) != 1 || links[0].To.AgentID != "ada" || links[0].To.Email != "Ada@Example.org" || !links[0].Expires.Equal(clock.Now().Add(people.LinkTTL)) {
			t.Fatalf("links %+v; want one to ada, expiring in %v", links, people.LinkTTL)
		}
		sess, err := ppl.SignInByLink(ctx, links[0].Token)
		if err != nil || sess.Person.ID != "ada" {
			t.Fatalf("SignInByLink = %+v, %v", sess, err)
		}
		if p, err := ppl.Session(ctx, sess.Token); err != nil || p.ID != "ada" {
			t.Errorf("the link's session: %+v, %v", p, err)
		}
		if _, err := ppl.SignInByLink(ctx, links[0].Token); !errors.Is(err, people.ErrLink) {
			t.Errorf("the link twice: %v, want ErrLink", err)
		}
		if err := ppl.SendSignInLink(ctx, "ada@example.org"); err != nil {
			t.Fatal(err)
		}
		late := post.take()[0]
		clock.Advance(people.LinkTTL)
		if _, err := ppl.SignInByLink(ctx, late.Token); !errors.Is(err, people.ErrLink) {
			t.Errorf("the link at its expiry: %v, want ErrLink", err)
		}
		if err := ppl.SendSignInLink(ctx, "not an address"); !errors.As(err, new(*board.ValidationError)) {
			t.Errorf("SendSignInLink(not an address) = %v, want a ValidationError", err)
		}

		// ada's address had 2 links this hour and nobody's 1: both reach
		// the cap at the same count.
		for _, c := range []struct {
			addr  string
			asked int
		}{{"ada@example.org", 2}, {"nobody@example.org", 1}} {
			for i := c.asked; i < people.MaxLinksPerAddress; i++ {
				if err := ppl.SendSignInLink(ctx, c.addr); err != nil {
					t.Fatalf("link %d to %s: %v", i+1, c.addr, err)
				}
			}
			var le *mailbox.LimitError
			if err := ppl.SendSignInLink(ctx, c.addr); !errors.As(err, &le) || le.Field != "email" || le.RetryAfter <= 0 {
				t.Errorf("link %d to %s: %v, want a LimitError on email", people.MaxLinksPerAddress+1, c.addr, err)
			}
		}
		post.take()
		clock.Advance(people.LinkWindow)
		if n, err := ppl.Expire(ctx, 100); err != nil || n < 2*people.MaxLinksPerAddress {
			t.Errorf("Expire = %d, %v; want at least the %d links of the last hour", n, err, 2*people.MaxLinksPerAddress)
		}
		if err := ppl.SendSignInLink(ctx, "ada@example.org"); err != nil || len(post.take()) != 1 {
			t.Errorf("a link an hour later: %v", err)
		}
	})
}

// TestNoMail: without a mailbox and a mailer the e-mail methods say so.
func TestNoMail(t *testing.T) {
	eachEnv(t, func(t *testing.T, e env) {
		ctx := context.Background()
		if e.ppl.Mail() {
			t.Errorf("Mail() = true without options")
		}
		if err := e.ppl.SendSignInLink(ctx, "a@example.org"); !errors.Is(err, people.ErrNoMail) {
			t.Errorf("SendSignInLink = %v, want ErrNoMail", err)
		}
		if _, err := e.ppl.AddEmail(ctx, "a", "a@example.org"); !errors.Is(err, people.ErrNoMail) {
			t.Errorf("AddEmail = %v, want ErrNoMail", err)
		}
	})
}
