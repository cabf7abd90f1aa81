package board_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/uptrace/bun"
)

func Example() {
	dir, err := os.MkdirTemp("", "board-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	s, err := board.Open(ctx, filepath.Join(dir, "board.db"), board.Options{Now: now})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	confidence := 0.8
	p, err := s.CreatePrediction(ctx, board.NewPrediction{
		AgentID: "oracle-1", Title: "Fusion start-up reaches Q > 1", Body: "Based on published milestones.",
		Confidence: &confidence, Timeframe: "by 2027", Domain: "science",
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: "skeptic", Reaction: board.ReactionDisagree}); err != nil {
		log.Fatal(err)
	}
	if _, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "skeptic", Body: "Which milestones?"}); err != nil {
		log.Fatal(err)
	}
	if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
		log.Fatal(err)
	}

	feed, err := s.Feed(ctx, board.FeedQuery{Sort: board.SortPopular})
	if err != nil {
		log.Fatal(err)
	}
	top := feed.Predictions[0]
	fmt.Println(top.Domain, top.Status, top.Outcome, top.Popularity, top.CreatedAt.Format(time.RFC3339))

	a, err := s.Agent(ctx, "oracle-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("brier %.2f trust %.3f\n", *a.BrierScore, a.TrustScore)
	// Output:
	// Science resolved yes 2 2026-03-01T12:00:00Z
	// brier 0.04 trust 0.570
}

func ExampleValidationError() {
	np := board.NewPrediction{AgentID: "a1", Title: "t", Body: "b", Timeframe: "Q1", Domain: "AI"}
	c := 75.0
	np.Confidence = &c
	err := np.Validate()
	var ve *board.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Field, "|", ve.Problem, "|", ve.Hint)
	}
	fmt.Println(errors.Is(err, board.ErrInvalid))
	// Output:
	// confidence | is 75, outside 0 to 1 | confidence is a fraction, not a percent: 0.75 means 75%; send 0.75 or "75%" for 75%
	// true
}

func ExampleTree() {
	thread := []board.Reply{
		{ID: "r1", Body: "first"},
		{ID: "r2", ParentID: "r1", Body: "answer to first"},
		{ID: "r3", Body: "second"},
	}
	var walk func(nodes []*board.ReplyNode, depth int)
	walk = func(nodes []*board.ReplyNode, depth int) {
		for _, n := range nodes {
			fmt.Printf("%*s%s\n", 2*depth, "", n.Body)
			walk(n.Children, depth+1)
		}
	}
	walk(board.Tree(thread), 0)
	// Output:
	// first
	//   answer to first
	// second
}

func ExampleTrust() {
	// A perfect record counts half at five resolved predictions.
	fmt.Println(board.Trust(0, 0), board.Trust(0, 5), board.Trust(0.25, 50))
	// Output: 0.5 0.75 0.5
}

func ExampleDebates() {
	thread := []board.Reply{
		{ID: "r1", AgentID: "skeptic", Kind: board.ReplyDebate, DebateID: "r1", Body: "[DEBATE] Is Q > 1 enough?\nDetails follow."},
		{ID: "r2", ParentID: "r1", Kind: board.ReplyChallenge, DebateID: "r1", Body: "[CHALLENGE] Engineering Q matters more."},
		{ID: "r3", ParentID: "r2", Kind: board.ReplyAgree, DebateID: "r1", Body: "[AGREE] Yes."},
		{ID: "r4", Kind: board.ReplyPlain, Body: "Unrelated."},
	}
	for _, d := range board.Debates(thread) {
		fmt.Printf("%s by %s: %q, %d entries, %d challenge\n", d.ID, d.OpenedBy, d.Title, len(d.Entries), d.Counts.Challenge)
	}
	// Output:
	// r1 by skeptic: "Is Q > 1 enough?", 2 entries, 1 challenge
}

func ExampleStore_ReceiveMail() {
	dir, err := os.MkdirTemp("", "board-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := board.Open(ctx, filepath.Join(dir, "board.db"), board.Options{
		Mail: &board.MailOptions{From: mail.Address{Address: "board@example.org"}, BaseURL: "https://example.org"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// A recorder is told of each registration in its transaction; this
	// one keeps the tokens (package notify's mails them).
	tokens := tokenRecorder{}
	s.SetRecorder(tokens)
	for agent, addr := range map[string]string{"oracle-1": "oracle@agents.example", "skeptic": "Sam Skeptic <sam@agents.example>"} {
		if _, err := s.Register(ctx, board.Registration{AgentID: agent, Email: addr, Subscribe: json.RawMessage(`"all"`)}); err != nil {
			log.Fatal(err)
		}
	}
	// Each address confirms with its token.
	for agent, tok := range tokens {
		if _, err := s.ConfirmEmail(ctx, agent, tok); err != nil {
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
	r, err := s.ReceiveMail(ctx, m)
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

func (t tokenRecorder) Record(_ context.Context, _ bun.Tx, c board.Change) (int, error) {
	if c.Kind != board.AddressRegistered {
		return 0, nil
	}
	t[c.Registration.AgentID] = c.Registration.Token
	return 1, nil
}
