package board_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// agentSorts are the agent list's orders, the default included.
var agentSorts = []board.AgentSort{board.AgentSortRecent, board.AgentSortPeer, board.AgentSortBrier, board.AgentSortTrust}

// seedAgents makes a board of agents with every kind of tie: groups of
// three seen at the same moment, agents never scored (no peer or Brier
// score, trust 0.5), agents alone on their question (peer score 0) and
// agents that forecast others' questions (peer scores of both signs).
func seedAgents(t *testing.T, s *board.Store, clk *clock, n int) {
	t.Helper()
	ctx := context.Background()
	var ps []board.Prediction
	for i := range n {
		if i%3 == 0 {
			clk.Advance(time.Second)
		}
		np := newPrediction(fmt.Sprintf("agent-%02d", i))
		np.Confidence = ptr(0.05 + 0.9*float64((i*7)%n)/float64(n))
		ps = append(ps, mustCreate(t, s, np))
	}
	for i, p := range ps {
		if i%4 == 3 {
			continue // its author stays unscored
		}
		if i%2 == 0 { // two others forecast it
			for _, j := range []int{(i + 1) % n, (i + 5) % n} {
				clk.Advance(time.Second)
				if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: fmt.Sprintf("agent-%02d", j),
					P: raw(strconv.FormatFloat(float64(j%10)/10+0.05, 'f', 2, 64))}); err != nil {
					t.Fatal(err)
				}
			}
		}
		outcome := board.OutcomeYes
		if i%3 == 1 {
			outcome = board.OutcomeNo
		}
		if _, err := s.Resolve(ctx, p.ID, board.NewResolution{Outcome: outcome}); err != nil {
			t.Fatal(err)
		}
	}
}

// openAgents opens a store on a test clock with n agents (seedAgents).
func openAgents(open func(board.Options) *board.Store, t *testing.T, n int) (*board.Store, *clock) {
	t.Helper()
	clk := newClock()
	s := open(board.Options{Now: clk.Now})
	seedAgents(t, s, clk, n)
	return s, clk
}

// agentOrder is the documented order of a sort, as Go computes it from
// the scores the list shows: the sort's key (higher first, but lower
// Brier first; agents never scored last, trust included), then last seen
// (newest first), then id.
func agentOrder(sort board.AgentSort, as []board.Agent) []string {
	key := func(a board.Agent) (*float64, bool) {
		switch sort {
		case board.AgentSortPeer:
			return a.PeerScore, true
		case board.AgentSortBrier:
			return a.ForecastBrier, false
		case board.AgentSortTrust:
			if a.Scored == 0 {
				return nil, true
			}
			return &a.TrustScore, true
		}
		return nil, true
	}
	as = slices.Clone(as)
	slices.SortFunc(as, func(a, b board.Agent) int {
		x, higher := key(a)
		y, _ := key(b)
		switch {
		case x == nil && y != nil:
			return 1
		case x != nil && y == nil:
			return -1
		case x != nil && *x != *y:
			if higher {
				return cmp.Compare(*y, *x)
			}
			return cmp.Compare(*x, *y)
		}
		if c := b.LastSeen.Compare(a.LastSeen); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

func agentIDs(as []board.Agent) []string {
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

// TestAgentsOrder: each sort's page, in one piece, is the documented
// order of the scores it shows.
func TestAgentsOrder(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s, _ := openAgents(open, t, 30)
		ctx := context.Background()
		for _, sort := range agentSorts {
			page, err := s.Agents(ctx, board.AgentQuery{Sort: sort, Limit: board.MaxAgentLimit})
			if err != nil {
				t.Fatalf("Agents(sort=%s): %v", sort, err)
			}
			if page.Total != 30 || len(page.Agents) != 30 || page.HasMore || page.NextCursor != "" || page.Sort != sort {
				t.Fatalf("Agents(sort=%s) = total %d, %d agents, has_more %v, sort %s", sort, page.Total, len(page.Agents), page.HasMore, page.Sort)
			}
			if diff := gocmp.Diff(agentOrder(sort, page.Agents), agentIDs(page.Agents)); diff != "" {
				t.Errorf("Agents(sort=%s) order (-documented +got):\n%s", sort, diff)
			}
		}
	})
}

// allAgents lists every agent's id in the order sort, by pages of the
// largest size.
func allAgents(t *testing.T, s *board.Store, sort board.AgentSort) []string {
	t.Helper()
	var ids []string
	q := board.AgentQuery{Sort: sort, Limit: board.MaxAgentLimit}
	for {
		page, err := s.Agents(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, agentIDs(page.Agents)...)
		if !page.HasMore {
			return ids
		}
		q.Cursor = page.NextCursor
	}
}

// TestAgentsCursorWalk walks every sort by cursor at several page sizes,
// adding an agent between the first pages: every agent that was there at the start
// is seen exactly once and in the order of the whole list, and no agent
// is seen twice.
func TestAgentsCursorWalk(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s, clk := openAgents(open, t, 30)
		ctx := context.Background()
		added := 0
		for _, sort := range agentSorts {
			for _, limit := range []int{1, 2, 3, 7} {
				t.Run(fmt.Sprintf("%s/limit=%d", sort, limit), func(t *testing.T) {
					whole := allAgents(t, s, sort)
					seen := map[string]int{}
					var got []string
					q := board.AgentQuery{Sort: sort, Limit: limit}
					for pages := 0; ; pages++ {
						if pages > 2*len(whole)+2 { // each page may add one after the cursor
							t.Fatalf("the walk does not end")
						}
						page, err := s.Agents(ctx, q)
						if err != nil {
							t.Fatalf("page %d: %v", pages+1, err)
						}
						if len(page.Agents) > limit || page.HasMore != (page.NextCursor != "") {
							t.Fatalf("page %d: %d agents, has_more %v, next_cursor %q", pages+1, len(page.Agents), page.HasMore, page.NextCursor)
						}
						for _, a := range page.Agents {
							seen[a.ID]++
							got = append(got, a.ID)
						}
						if !page.HasMore {
							break
						}
						// A new agent between the first pages: the newest, not
						// yet scored (first in recent, first of the unscored
						// in the score sorts).
						if pages < 6 {
							clk.Advance(time.Second)
							added++
							mustCreate(t, s, newPrediction(fmt.Sprintf("new-%03d", added)))
						}
						q.Cursor = page.NextCursor
					}
					for id, n := range seen {
						if n != 1 {
							t.Errorf("%s seen %d times", id, n)
						}
					}
					var before []string // the agents of the whole list, in the walk's order
					for _, id := range got {
						if slices.Contains(whole, id) {
							before = append(before, id)
						}
					}
					if diff := gocmp.Diff(whole, before); diff != "" {
						t.Errorf("the walk's agents that were there at the start (-whole list +walk):\n%s", diff)
					}
				})
			}
		}
	})
}

// TestAgentsBadQuery: a bad sort, limit or cursor is a *ValidationError
// naming the field, with a hint; a limit above the maximum is clamped with
// a note.
func TestAgentsBadQuery(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		s, _ := openAgents(open, t, 6)
		ctx := context.Background()
		first, err := s.Agents(ctx, board.AgentQuery{Sort: board.AgentSortPeer, Limit: 2})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("first page: %+v, %v", first, err)
		}
		feed, err := s.Feed(ctx, board.FeedQuery{Limit: 1})
		if err != nil || feed.NextCursor == "" {
			t.Fatalf("feed: %+v, %v", feed, err)
		}
		for _, tt := range []struct {
			name  string
			q     board.AgentQuery
			field string
		}{
			{"unknown sort", board.AgentQuery{Sort: "loudest"}, "sort"},
			{"negative limit", board.AgentQuery{Limit: -1}, "limit"},
			{"cursor of another sort", board.AgentQuery{Sort: board.AgentSortTrust, Cursor: first.NextCursor}, "cursor"},
			{"cursor of the default sort given to peer_score", board.AgentQuery{Cursor: first.NextCursor}, "cursor"},
			{"feed cursor", board.AgentQuery{Cursor: feed.NextCursor}, "cursor"},
			{"cut short", board.AgentQuery{Sort: board.AgentSortPeer, Cursor: first.NextCursor[:len(first.NextCursor)-3]}, "cursor"},
			{"not base64", board.AgentQuery{Cursor: "***"}, "cursor"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.Agents(ctx, tt.q)
				var ve *board.ValidationError
				if !errors.As(err, &ve) || ve.Field != tt.field || ve.Hint == "" || !errors.Is(err, board.ErrInvalid) {
					t.Fatalf("Agents(%+v) = %v, want a ValidationError on %s with a hint", tt.q, err, tt.field)
				}
			})
		}
		page, err := s.Agents(ctx, board.AgentQuery{Limit: board.MaxAgentLimit + 1})
		if err != nil || page.Limit != board.MaxAgentLimit || len(page.Notes) != 1 || len(page.Agents) != 6 {
			t.Errorf("Agents(limit=%d) = limit %d, notes %q, %d agents, %v; want clamped with a note", board.MaxAgentLimit+1, page.Limit, page.Notes, len(page.Agents), err)
		}
		page, err = s.Agents(ctx, board.AgentQuery{})
		if err != nil || page.Limit != board.DefaultAgentLimit || len(page.Notes) != 0 || page.Total != 6 {
			t.Errorf("Agents() = limit %d, notes %q, total %d, %v", page.Limit, page.Notes, page.Total, err)
		}
	})
}
