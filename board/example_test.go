package board_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/predictions-md/predictions/board"
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
	// brier 0.04 trust 0.500
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
