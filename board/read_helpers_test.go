package board_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

func TestSplitTag(t *testing.T) {
	for _, c := range []struct {
		body string
		kind board.ReplyKind
		rest string
	}{
		{"[AGREE] Base rates agree.", board.ReplyAgree, "Base rates agree."},
		{"  [ challenge ]\nThe report was revised.", board.ReplyChallenge, "\nThe report was revised."},
		{"[DEBATE]Is it?", board.ReplyDebate, "Is it?"},
		{"I [AGREE] with this.", board.ReplyPlain, "I [AGREE] with this."},
		{"[NOTE] plain", board.ReplyPlain, "[NOTE] plain"},
	} {
		if k, rest := board.SplitTag(c.body); k != c.kind || rest != c.rest {
			t.Errorf("SplitTag(%q) = %q, %q, want %q, %q", c.body, k, rest, c.kind, c.rest)
		}
	}
}

func TestAgentNames(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		np := newPrediction("scout")
		np.AgentName = "Scout"
		if _, err := s.CreatePrediction(ctx, np); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreatePrediction(ctx, newPrediction("plain-id")); err != nil {
			t.Fatal(err)
		}
		got, err := s.AgentNames(ctx, []string{"scout", "plain-id", "nobody"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"scout": "Scout", "plain-id": "plain-id"}, got); diff != "" {
			t.Errorf("AgentNames (-want +got):\n%s", diff)
		}
		if got, err := s.AgentNames(ctx, nil); err != nil || len(got) != 0 {
			t.Errorf("AgentNames(nil) = %v, %v; want empty", got, err)
		}
	})
}
