package board_test

import (
	"context"
	"errors"
	"testing"

	"github.com/predictions-md/predictions/board"
)

// An id with NUL or another control character is a *ValidationError naming
// the field on both databases, never a database error (PostgreSQL refuses
// NUL in text, which used to be a 500).
func TestControlCharactersInIDs(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		p := mustCreate(t, s, newPrediction("ada"))
		for _, bad := range []string{"\x00", p.ID + "\x00", "a\x1fb", "\x7f", "\xff\xfe"} {
			for _, tc := range []struct {
				name, field string
				call        func() error
			}{
				{"Reply parent_id", "parent_id", func() error {
					_, err := s.Reply(ctx, p.ID, board.NewReply{AgentID: "bob", Body: "yes", ParentID: bad})
					return err
				}},
				{"Reply id", "id", func() error {
					_, err := s.Reply(ctx, bad, board.NewReply{AgentID: "bob", Body: "yes"})
					return err
				}},
				{"React id", "id", func() error {
					_, err := s.React(ctx, bad, board.NewReaction{AgentID: "bob", Reaction: board.ReactionAgree})
					return err
				}},
				{"Prediction", "id", func() error { _, err := s.Prediction(ctx, bad); return err }},
				{"Thread", "id", func() error { _, err := s.Thread(ctx, bad); return err }},
				{"Reactions", "id", func() error { _, err := s.Reactions(ctx, bad); return err }},
				{"Resolve", "id", func() error {
					_, err := s.Resolve(ctx, bad, board.NewResolution{Outcome: board.OutcomeYes})
					return err
				}},
				{"Agent", "id", func() error { _, err := s.Agent(ctx, bad); return err }},
				{"Resolved", "agent_id", func() error { _, err := s.Resolved(ctx, bad, 10); return err }},
			} {
				err := tc.call()
				var ve *board.ValidationError
				if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, board.ErrInvalid) {
					t.Errorf("%s(%q) = %v, want a ValidationError naming %s", tc.name, bad, err, tc.field)
				}
			}
		}
		if th, err := s.Thread(ctx, p.ID); err != nil || len(th) != 0 {
			t.Errorf("after the refusals: thread %v, %v; want empty", th, err)
		}
	})
}
