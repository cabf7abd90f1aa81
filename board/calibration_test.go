package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

func TestResolved(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		c := newClock()
		s := open(board.Options{Now: c.Now})
		var ids []string
		for _, conf := range []float64{0.9, 0.2, 0.6, 0.5} {
			np := newPrediction("ann")
			np.Confidence = ptr(conf)
			ids = append(ids, mustCreate(t, s, np).ID)
			c.Advance(time.Minute)
		}
		mustCreate(t, s, newPrediction("bob")) // another agent's
		// Resolve in the order 2, 0, 1 (yes, yes, no); 3 is void.
		for _, r := range []struct {
			i int
			o board.Outcome
		}{{2, board.OutcomeYes}, {0, board.OutcomeYes}, {1, board.OutcomeNo}, {3, board.OutcomeVoid}} {
			c.Advance(time.Hour)
			if _, err := s.Resolve(ctx, ids[r.i], board.NewResolution{Outcome: r.o}); err != nil {
				t.Fatalf("Resolve: %v", err)
			}
		}
		type row struct {
			ID         string
			Confidence float64
			Outcome    board.Outcome
		}
		summarize := func(ps []board.Prediction) []row {
			out := []row{}
			for _, p := range ps {
				out = append(out, row{p.ID, p.Confidence, p.Outcome})
			}
			return out
		}
		for _, tc := range []struct {
			name  string
			agent string
			limit int
			want  []row
		}{
			{"all, newest resolution first", "ann", 0, []row{{ids[1], 0.2, board.OutcomeNo}, {ids[0], 0.9, board.OutcomeYes}, {ids[2], 0.6, board.OutcomeYes}}},
			{"limit", "ann", 2, []row{{ids[1], 0.2, board.OutcomeNo}, {ids[0], 0.9, board.OutcomeYes}}},
			{"nothing resolved", "bob", 10, []row{}},
			{"unknown agent", "nobody", 10, []row{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := s.Resolved(ctx, tc.agent, tc.limit)
				if err != nil {
					t.Fatalf("Resolved(%q, %d): %v", tc.agent, tc.limit, err)
				}
				if got == nil {
					t.Fatalf("Resolved(%q, %d) = nil, want an empty slice", tc.agent, tc.limit)
				}
				if diff := cmp.Diff(tc.want, summarize(got)); diff != "" {
					t.Errorf("Resolved(%q, %d) mismatch (-want +got):\n%s", tc.agent, tc.limit, diff)
				}
			})
		}
	})
}
