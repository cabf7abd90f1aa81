package board_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/predictions-md/predictions/board"
)

// imported returns n valid open predictions by three agents over three
// domains, one second apart from start, with popularity i%4 when
// withCounts (as agree reactions and replies) and 0 otherwise.
func imported(n int, start time.Time, withCounts bool) []board.Prediction {
	ps := make([]board.Prediction, n)
	for i := range ps {
		id, _ := uuid.NewV7()
		p := board.Prediction{
			ID: id.String(), AgentID: fmt.Sprintf("imp-%d", i%3), Title: fmt.Sprintf("Imported %d", i),
			Body: "Imported body.", Confidence: float64(i%101) / 100, Timeframe: "2027",
			Domain: []string{"ai", "Science", "SPACE"}[i%3], CreatedAt: start.Add(time.Duration(i) * time.Second),
		}
		if withCounts {
			p.Reactions.Agree, p.Replies = i%4/2, i%2
			p.Popularity = p.Reactions.Agree + p.Replies
		}
		ps[i] = p
	}
	return ps
}

func TestImport(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{Now: newClock().Now})
		// An agent that already posted keeps its name and adds the imports.
		mustCreate(t, s, board.NewPrediction{AgentID: "imp-0", AgentName: "Importer Zero", Title: "Live", Body: "b",
			Confidence: ptr(0.5), Timeframe: "2026", Domain: "AI"})

		start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		ps := imported(1203, start, false) // more than two insert chunks
		if err := s.Import(ctx, ps); err != nil {
			t.Fatal(err)
		}
		if got, err := board.CounterMismatches(ctx, s); err != nil || len(got) != 0 {
			t.Fatalf("CounterMismatches = %q, %v", got, err)
		}
		rows, err := board.RowCounts(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{"agents": 3, "predictions": 1204, "replies": 0, "reactions": 0}, rows); diff != "" {
			t.Errorf("RowCounts (-want +got):\n%s", diff)
		}
		a, err := s.Agent(ctx, "imp-0")
		if err != nil {
			t.Fatal(err)
		}
		if a.Name != "Importer Zero" || a.Predictions != 402 || !a.FirstSeen.Equal(start) {
			t.Errorf("agent imp-0 = %q, %d predictions, first seen %s; want Importer Zero, 402, %s", a.Name, a.Predictions, a.FirstSeen, start)
		}
		b, err := s.Agent(ctx, "imp-1")
		if err != nil {
			t.Fatal(err)
		}
		if b.Name != "imp-1" || !b.LastSeen.Equal(ps[1201].CreatedAt) {
			t.Errorf("agent imp-1 = %q last seen %s; want imp-1, %s", b.Name, b.LastSeen, ps[1201].CreatedAt)
		}

		// The imported rows read back as they were given, in feed order.
		f, err := s.Feed(ctx, board.FeedQuery{Domain: "science", Sort: board.SortRecent, Limit: 2, Offset: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := []board.Prediction{ps[1198], ps[1195]} // newest Science ones after the first
		for i := range want {
			want[i].Domain, want[i].Status, want[i].Flags, want[i].AgentName = "Science", board.StatusOpen, []string{}, want[i].AgentID
		}
		if diff := cmp.Diff(want, f.Predictions); diff != "" {
			t.Errorf("Feed (-want +got):\n%s", diff)
		}
		if f.Total != 401 {
			t.Errorf("Feed total = %d, want 401", f.Total)
		}
	})
}

// TestImportCounts checks that imported reaction and reply counts order
// the popular feed and reach the domain counters.
func TestImportCounts(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{})
		ps := imported(12, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), true)
		if err := s.Import(ctx, ps); err != nil {
			t.Fatal(err)
		}
		f, err := s.Feed(ctx, board.FeedQuery{Sort: board.SortPopular, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, p := range f.Predictions {
			got = append(got, p.Popularity)
		}
		if diff := cmp.Diff([]int{2, 2, 2}, got); diff != "" {
			t.Errorf("popular feed popularity (-want +got):\n%s", diff)
		}
		// Imported replies count as plain replies.
		for _, p := range f.Predictions {
			if p.ReplyKinds != (board.ReplyKindCounts{Plain: p.Replies}) {
				t.Errorf("prediction %s: ReplyKinds = %+v with %d replies, want them all plain", p.ID, p.ReplyKinds, p.Replies)
			}
		}
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Replies on odd i (6), agree on i%4 in {2, 3} (6); threads = predictions with a reply.
		if st.Predictions != 12 || st.Replies != 6 || st.Reactions != 6 || st.Threads != 6 || st.Agents != 3 {
			t.Errorf("Stats = %+v; want 12 predictions, 6 replies, 6 reactions, 6 threads, 3 agents", st)
		}
	})
}

func TestImportErrors(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		change func(p *board.Prediction)
		field  string
	}{
		{"bad id", func(p *board.Prediction) { p.ID = "42" }, "predictions[1].id"},
		{"upper-case id", func(p *board.Prediction) { p.ID = "0190A6E2-8F3B-7C4D-9E5F-0123456789AB" }, "predictions[1].id"},
		{"no agent", func(p *board.Prediction) { p.AgentID = "" }, "predictions[1].agent_id"},
		{"bad domain", func(p *board.Prediction) { p.Domain = "Gardening" }, "predictions[1].domain"},
		{"confidence", func(p *board.Prediction) { p.Confidence = 75 }, "predictions[1].confidence"},
		{"no time", func(p *board.Prediction) { p.CreatedAt = time.Time{} }, "predictions[1].created_at"},
		{"resolved", func(p *board.Prediction) { p.Status, p.Outcome = board.StatusResolved, board.OutcomeYes }, "predictions[1].status"},
		{"negative", func(p *board.Prediction) { p.Reactions.Disagree = -1 }, "predictions[1].reactions.disagree"},
		{"popularity", func(p *board.Prediction) { p.Reactions.Agree = 3 }, "predictions[1].popularity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, t.TempDir()+"/b.db", board.Options{})
			ps := imported(3, start, false)
			tc.change(&ps[1])
			err := s.Import(context.Background(), ps)
			var ve *board.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, board.ErrInvalid) || ve.Field != tc.field || ve.Hint == "" {
				t.Fatalf("Import = %v, want a ValidationError on %s with a hint", err, tc.field)
			}
			if rows, _ := board.RowCounts(context.Background(), s); rows["predictions"] != 0 {
				t.Errorf("%d predictions stored after an error", rows["predictions"])
			}
		})
	}
}

// TestImportAtomic: a duplicate id in a later insert chunk rolls back the
// whole import, counters included.
func TestImportAtomic(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{})
		ps := imported(700, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), false)
		ps[650].ID = ps[3].ID
		if err := s.Import(ctx, ps); err == nil || errors.Is(err, board.ErrInvalid) {
			t.Fatalf("Import with a duplicate id = %v, want a database error", err)
		}
		rows, err := board.RowCounts(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rows["predictions"] != 0 || rows["agents"] != 0 || st.Predictions != 0 {
			t.Errorf("after a failed import: rows %v, stats predictions %d; want nothing stored", rows, st.Predictions)
		}
		if err := s.Import(ctx, nil); err != nil {
			t.Errorf("Import(nil) = %v", err)
		}
	})
}
