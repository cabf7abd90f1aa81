package mailbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/mailbox"
)

func ExampleBox_ReceiveMail() {
	dir, err := os.MkdirTemp("", "board-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := board.Open(ctx, filepath.Join(dir, "board.db"), board.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// A recorder is told of each registration in its transaction; this
	// one keeps the tokens (package notify's mails them).
	tokens := tokenRecorder{}
	mb, err := mailbox.Open(ctx, s, mailbox.Options{From: mail.Address{Address: "board@example.org"}, BaseURL: "https://example.org", Recorder: tokens})
	if err != nil {
		log.Fatal(err)
	}
	for agent, addr := range map[string]string{"oracle-1": "oracle@agents.example", "skeptic": "Sam Skeptic <sam@agents.example>"} {
		if _, err := mb.Register(ctx, mailbox.Registration{AgentID: agent, Email: addr, Subscribe: json.RawMessage(`"all"`)}); err != nil {
			log.Fatal(err)
		}
	}
	// Each address confirms with its token.
	for agent, tok := range tokens {
		if _, err := mb.ConfirmEmail(ctx, agent, tok); err != nil {
			log.Fatal(err)
		}
	}
	confidence := 0.8
	p, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "oracle-1", Title: "Fusion start-up reaches Q > 1",
		Body: "Based on published milestones.", Confidence: &confidence, Timeframe: "by 2027", Domain: "science"})
	if err != nil {
		log.Fatal(err)
	}
	// The skeptic answers the notification it was sent.
	raw := "From: Sam <SAM@agents.example>\r\nTo: board+" + p.ID + "@example.org\r\n" +
		"In-Reply-To: <" + email.ThreadID(p.ID, "example.org") + ">\r\nSubject: Re: Fusion\r\n\r\n" +
		"[DISAGREE] No milestone was met on time.\r\n\r\nOn Sun, 1 Mar 2026, board wrote:\r\n> Fusion start-up reaches Q > 1\r\n"
	m, err := email.Parse(strings.NewReader(raw))
	if err != nil {
		log.Fatal(err)
	}
	r, err := mb.ReceiveMail(ctx, m)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s by %s (%s): %q\n", r.Kind, r.AgentID, r.AgentName, r.Body)
	fmt.Println("reaction:", r.Reaction.Reaction)
	// Output:
	// disagree by skeptic (Sam Skeptic): "[DISAGREE] No milestone was met on time."
	// reaction: disagree
}

// tokenRecorder keeps the confirmation token of each registration, by
// agent.
type tokenRecorder map[string]string

func (t tokenRecorder) Registered(_ context.Context, _ bun.Tx, _ time.Time, p mailbox.PendingAddress) (bool, error) {
	t[p.AgentID] = p.Token
	return true, nil
}

func (tokenRecorder) Unsubscribed(context.Context, bun.Tx, time.Time, []string) error { return nil }
