package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// TestAgentsUnscoredLast: in every order but recency, agents never
// scored come after every scored agent, even under trust, where their
// neutral 0.5 is above a scored agent worse than a coin. Three agents are
// scored on one prediction (sharp said 95%, the author 70%, dull 5%; it
// resolved yes), two are not (newbie posted an open prediction, lurker
// forecast on it); among the unscored the order stays most recently seen
// first.
func TestAgentsUnscoredLast(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()

		np := newPrediction("author")
		np.Confidence = ptr(0.7)
		scored := mustCreate(t, s, np)
		for agent, p := range map[string]string{"sharp": "0.95", "dull": "0.05"} {
			if _, err := s.Forecast(ctx, scored.ID, board.NewForecast{AgentID: agent, P: raw(p)}); err != nil {
				t.Fatalf("Forecast(%s): %v", agent, err)
			}
		}
		clk.Advance(time.Hour)
		if _, err := s.Resolve(ctx, scored.ID, board.NewResolution{Outcome: board.OutcomeYes}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Hour)
		unscored := mustCreate(t, s, newPrediction("newbie"))
		clk.Advance(time.Hour)
		if _, err := s.Forecast(ctx, unscored.ID, board.NewForecast{AgentID: "lurker", P: raw("0.4")}); err != nil {
			t.Fatal(err)
		}

		// Equal last_seen (the first three) are ordered by id.
		recent := []string{"lurker", "newbie", "author", "dull", "sharp"}
		tests := []struct {
			sort board.AgentSort
			want []string
		}{
			{board.AgentSortTrust, []string{"sharp", "author", "dull", "lurker", "newbie"}},
			{board.AgentSortPeer, []string{"sharp", "author", "dull", "lurker", "newbie"}},
			{board.AgentSortBrier, []string{"sharp", "author", "dull", "lurker", "newbie"}},
			{board.AgentSortRecent, recent},
			{"", recent},
		}
		for _, tt := range tests {
			page, err := s.Agents(ctx, board.AgentQuery{Sort: tt.sort})
			if err != nil {
				t.Fatalf("Agents(sort=%q): %v", tt.sort, err)
			}
			as := page.Agents
			var got []string
			for _, a := range as {
				got = append(got, a.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Agents(sort=%q) order (-want +got):\n%s", tt.sort, diff)
			}
			if tt.sort == board.AgentSortTrust && len(as) == 5 && !(as[2].TrustScore < 0.5 && as[3].TrustScore == 0.5 && as[3].Scored == 0) {
				t.Errorf("trust of dull %v (want below 0.5), of lurker %v with %d scored (want 0.5 with none)",
					as[2].TrustScore, as[3].TrustScore, as[3].Scored)
			}
		}
	})
}
