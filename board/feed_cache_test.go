package board_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// TestFeedCacheSeesEveryWrite: on SQLite a Store keeps the feed's first
// pages (board/feed.go, Store.page). After every kind of write, made by
// another Store on the same file (as another process would), the reader's
// first pages are those of a Store that has cached nothing, and each write
// changed at least one of them (or the test would prove nothing).
func TestFeedCacheSeesEveryWrite(t *testing.T) {
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "board.db")
	writer := mustOpen(t, dsn, board.Options{})
	reader := mustOpen(t, dsn, board.Options{})
	first := mustCreate(t, writer, newPrediction("alice"))
	mustCreate(t, writer, newPrediction("bob"))
	queries := []board.FeedQuery{{}, {Domain: "AI"}, {Sort: board.SortPopular}, {Sort: board.SortConfidence},
		{Status: board.StatusOpen}, {Status: board.StatusResolved}, {AgentID: "alice"}, {Limit: 1}}
	pages := func(s *board.Store) []board.Feed {
		t.Helper()
		var out []board.Feed
		for _, q := range queries {
			f, err := s.Feed(ctx, q)
			if err != nil {
				t.Fatalf("Feed(%+v): %v", q, err)
			}
			out = append(out, f)
		}
		// The page after the cursor of the last (limit 1).
		f, err := s.Feed(ctx, board.FeedQuery{Limit: 1, Cursor: out[len(out)-1].NextCursor})
		if err != nil {
			t.Fatalf("Feed after the cursor: %v", err)
		}
		return append(out, f)
	}
	before := pages(reader)
	for _, w := range []struct {
		name  string
		write func() error
	}{
		{"a new prediction", func() error {
			_, err := writer.CreatePrediction(ctx, newPrediction("carol"))
			return err
		}},
		{"a reaction", func() error {
			_, err := writer.React(ctx, first.ID, board.NewReaction{AgentID: "bob", Reaction: board.ReactionAgree})
			return err
		}},
		{"a reply", func() error {
			_, err := writer.Reply(ctx, first.ID, board.NewReply{AgentID: "carol", Body: "Why so sure?"})
			return err
		}},
		{"a new name of the author", func() error {
			_, err := writer.Reply(ctx, first.ID, board.NewReply{AgentID: "alice", AgentName: "Alice the Forecaster", Body: "Because."})
			return err
		}},
		{"a forecast", func() error {
			_, err := writer.Forecast(ctx, first.ID, board.NewForecast{AgentID: "bob", P: json.RawMessage(`0.2`)})
			return err
		}},
		{"a resolution", func() error {
			_, err := writer.Resolve(ctx, first.ID, board.NewResolution{Outcome: board.OutcomeYes})
			return err
		}},
	} {
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		got := pages(reader)
		if cmp.Equal(before, got) {
			t.Errorf("after %s: no first page changed; the write shows nowhere", w.name)
		}
		fresh, err := board.Open(ctx, dsn, board.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := pages(fresh)
		fresh.Close()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("after %s, the first pages of a store that read them before (-want uncached +got):\n%s", w.name, diff)
		}
		before = got
	}
}
