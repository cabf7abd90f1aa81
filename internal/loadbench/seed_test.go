package loadbench

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/predictions-md/predictions/pool"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// TestSeedReadsBack seeds a board in two steps, as the large feed is
// grown from the small one, and reads it back through the board's own
// API: every feed order with and without the domain filter, the
// statistics kept in the domains' counters and an agent's counters. A
// change of the board's schema that the seed's SQL does not follow fails
// here.
func TestSeedReadsBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "seed.db")
	const n = 600
	if err := seed(ctx, path, 0, 250); err != nil {
		t.Fatal(err)
	}
	if err := seed(ctx, path, 250, n); err != nil {
		t.Fatal(err)
	}
	s, err := board.Open(ctx, path, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []board.Prediction
	for i := range n {
		p := seedPrediction(i, start)
		// The author's confidence is its one forecast: the community is
		// that forecast pooled by package pool.
		r, err := pool.Combine([]pool.Forecast{{Who: p.AgentID, P: p.Confidence}}, pool.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p.Community = board.Community{P: r.GeoOdds, Forecasters: 1, Method: pool.GeoOdds, UpdatedAt: p.CreatedAt, Notes: []string{}}
		all = append(all, p)
	}
	orders := map[board.Sort]func(a, b board.Prediction) int{
		board.SortRecent:     func(a, b board.Prediction) int { return 0 },
		board.SortConfidence: func(a, b board.Prediction) int { return cmp.Compare(b.Confidence, a.Confidence) },
		board.SortPopular:    func(a, b board.Prediction) int { return cmp.Compare(b.Popularity, a.Popularity) },
	}
	for sort, key := range orders {
		for _, domain := range []string{"", "Science", "Other"} {
			for _, offset := range []int{0, 40} {
				var want []board.Prediction
				for _, p := range all {
					if domain == "" || p.Domain == domain {
						want = append(want, p)
					}
				}
				total := len(want)
				slices.SortFunc(want, func(a, b board.Prediction) int {
					return cmp.Or(key(a, b), b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
				})
				want = want[min(offset, len(want)):min(offset+20, len(want))]
				got, err := s.Feed(ctx, board.FeedQuery{Sort: sort, Domain: domain, Offset: offset})
				if err != nil {
					t.Fatal(err)
				}
				if got.Total != total {
					t.Errorf("Feed(%s, %q, offset %d).Total = %d, want %d", sort, domain, offset, got.Total, total)
				}
				if diff := gocmp.Diff(want, got.Predictions); diff != "" {
					t.Errorf("Feed(%s, %q, offset %d) (-want +got):\n%s", sort, domain, offset, diff)
				}
			}
		}
	}

	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var reactions, replies, threads int
	agents := map[string][]board.Prediction{}
	for _, p := range all {
		reactions += p.Reactions.Agree + p.Reactions.Disagree + p.Reactions.Uncertain
		replies += p.Replies
		if p.Replies > 0 {
			threads++
		}
		agents[p.AgentID] = append(agents[p.AgentID], p)
	}
	gotCounts := [6]int{st.Predictions, st.Open, st.Reactions, st.Replies, st.Threads, st.Agents}
	wantCounts := [6]int{n, n, reactions, replies, threads, len(agents)}
	if gotCounts != wantCounts {
		t.Errorf("Stats: predictions, open, reactions, replies, threads, agents = %v, want %v", gotCounts, wantCounts)
	}
	id := all[n-1].AgentID // an agent with predictions in both steps, most likely
	ps := agents[id]
	a, err := s.Agent(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if a.Predictions != len(ps) || !a.FirstSeen.Equal(ps[0].CreatedAt) || !a.LastSeen.Equal(ps[len(ps)-1].CreatedAt) {
		t.Errorf("Agent(%s) = %d predictions, seen %s to %s; want %d, %s to %s", id, a.Predictions, a.FirstSeen, a.LastSeen,
			len(ps), ps[0].CreatedAt, ps[len(ps)-1].CreatedAt)
	}
}
