package board_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
)

// feedIDs lists the ids of a page.
func feedIDs(ps []board.Prediction) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func TestFeedFilters(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		specs := []struct {
			agent, domain, title, body string
			outcome                    board.Outcome
		}{
			{"scout", "AI", "Open-weight model tops the leaderboard", "Benchmarks favour the open release.", ""},
			{"scout", "Space", "Starship reaches orbit", "The launch window opens in March.", board.OutcomeYes},
			{"oracle", "AI", "Launch of the model slips", "Vendors missed their dates; the launch moves to Q3.", board.OutcomeVoid},
			{"oracle", "Markets", "Café prices rise", "Coffee futures climbed for the third month.", ""},
			{"scout", "Space", "Lunar lander lands", "A soft landing near the south pole.", board.OutcomeNo},
		}
		var p []board.Prediction
		for _, sp := range specs {
			clk.Advance(time.Second)
			np := newPrediction(sp.agent)
			np.Domain, np.Title, np.Body = sp.domain, sp.title, sp.body
			x := mustCreate(t, s, np)
			if sp.outcome != "" {
				if _, err := s.Resolve(ctx, x.ID, board.NewResolution{Outcome: sp.outcome}); err != nil {
					t.Fatal(err)
				}
			}
			p = append(p, x)
		}
		ids := func(i ...int) []string {
			out := []string{}
			for _, k := range i {
				out = append(out, p[k].ID)
			}
			return out
		}
		tests := []struct {
			name  string
			q     board.FeedQuery
			want  []string
			total int
		}{
			{"agent", board.FeedQuery{AgentID: "scout"}, ids(4, 1, 0), 3},
			{"agent and domain", board.FeedQuery{AgentID: "scout", Domain: "space"}, ids(4, 1), 2},
			{"unknown agent", board.FeedQuery{AgentID: "nobody"}, ids(), 0},
			{"open", board.FeedQuery{Status: "open"}, ids(3, 0), 2},
			{"resolved, any case", board.FeedQuery{Status: "Resolved"}, ids(4, 1), 2},
			{"void", board.FeedQuery{Status: board.StatusVoid}, ids(2), 1},
			{"open in AI", board.FeedQuery{Status: "open", Domain: "AI"}, ids(0), 1},
			{"agent's open", board.FeedQuery{Status: "open", AgentID: "oracle"}, ids(3), 1},
			{"search title", board.FeedQuery{Q: "starship"}, ids(1), 1},
			{"search body", board.FeedQuery{Q: "coffee"}, ids(3), 1},
			{"search title and body", board.FeedQuery{Q: "launch"}, ids(2, 1), 2},
			{"every word", board.FeedQuery{Q: "launch model"}, ids(2), 1},
			{"case and diacritics", board.FeedQuery{Q: "CAFÉ"}, ids(3), 1},
			{"punctuation and quotes", board.FeedQuery{Q: `"open-weight" (model* -`}, ids(0), 1},
			{"search with filters", board.FeedQuery{Q: "launch", Status: "void"}, ids(2), 1},
			{"search by confidence", board.FeedQuery{Q: "launch", Sort: board.SortConfidence}, ids(2, 1), 2},
			{"no match", board.FeedQuery{Q: "zeppelin"}, ids(), 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f, err := s.Feed(ctx, tt.q)
				if err != nil {
					t.Fatalf("Feed(%+v): %v", tt.q, err)
				}
				if diff := cmp.Diff(tt.want, feedIDs(f.Predictions)); diff != "" {
					t.Errorf("Feed(%+v) ids (-want +got):\n%s", tt.q, diff)
				}
				if f.Total != tt.total || f.HasMore || f.NextCursor != "" {
					t.Errorf("Feed(%+v) total %d has_more %v next_cursor %q; want %d, false, none", tt.q, f.Total, f.HasMore, f.NextCursor, tt.total)
				}
			})
		}
		checkCounters(t, s)
	})
}

func TestFeedBadInput(t *testing.T) {
	s := mustOpen(t, boardtest.SQLite(t), board.Options{})
	ctx := context.Background()
	for i := range 3 {
		np := newPrediction("scout")
		np.Confidence = ptr(0.1 * float64(i+1))
		mustCreate(t, s, np)
	}
	first, err := s.Feed(ctx, board.FeedQuery{Limit: 1})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("Feed(limit 1) = %+v, %v; want a next_cursor", first, err)
	}
	next := first.NextCursor
	byConf, err := s.Feed(ctx, board.FeedQuery{Limit: 1, Sort: board.SortConfidence})
	if err != nil {
		t.Fatal(err)
	}
	flip := []byte(next)
	flip[len(flip)/2] ^= 1
	tests := []struct {
		name  string
		q     board.FeedQuery
		field string
	}{
		{"q at the limit is fine", board.FeedQuery{Q: strings.Repeat("é", board.MaxQuery)}, ""},
		{"q one over the limit", board.FeedQuery{Q: strings.Repeat("é", board.MaxQuery+1)}, "q"},
		{"q blank", board.FeedQuery{Q: "   "}, "q"},
		{"q without words", board.FeedQuery{Q: "!!! ?"}, "q"},
		{"q with a control character", board.FeedQuery{Q: "a\x00b"}, "q"},
		{"q not UTF-8", board.FeedQuery{Q: "a\xffb"}, "q"},
		{"status unknown", board.FeedQuery{Status: "closing"}, "status"},
		{"agent_id invalid", board.FeedQuery{AgentID: "no spaces"}, "agent_id"},
		{"agent_id too long", board.FeedQuery{AgentID: strings.Repeat("a", board.MaxAgentID+1)}, "agent_id"},
		{"cursor garbage", board.FeedQuery{Cursor: "not-a-cursor"}, "cursor"},
		{"cursor not base64", board.FeedQuery{Cursor: "%%%"}, "cursor"},
		{"cursor edited", board.FeedQuery{Cursor: string(flip)}, "cursor"},
		{"cursor cut short", board.FeedQuery{Cursor: next[:len(next)-3]}, "cursor"},
		{"cursor too long", board.FeedQuery{Cursor: strings.Repeat("A", board.MaxCursor+1)}, "cursor"},
		{"cursor with offset", board.FeedQuery{Cursor: next, Offset: 1}, "cursor"},
		{"cursor of another sort", board.FeedQuery{Cursor: byConf.NextCursor}, "cursor"},
		{"cursor of another filter", board.FeedQuery{Cursor: next, Domain: "AI"}, "cursor"},
		{"cursor of another search", board.FeedQuery{Cursor: next, Q: "model"}, "cursor"},
		{"cursor fine", board.FeedQuery{Cursor: next}, ""},
		{"cursor with offset 0 is fine", board.FeedQuery{Cursor: next, Offset: 0, Limit: 5}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Feed(ctx, tt.q)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Feed(%.80v) = %v, want no error", tt.q, err)
				}
				return
			}
			var ve *board.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.field || ve.Hint == "" || !errors.Is(err, board.ErrInvalid) {
				t.Fatalf("Feed(%.80v) = %v, want a ValidationError on %s with a hint", tt.q, err, tt.field)
			}
		})
	}
}

// TestFeedCursorWalk is the pagination property: walking every page by
// cursor yields each prediction that matches exactly once, in the order
// of the sort, while new predictions are posted between the pages; and a
// cursor page is the same as the offset page at that depth when nothing
// changes.
func TestFeedCursorWalk(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		ctx := context.Background()
		post := func(i int) board.Prediction {
			if i%3 != 0 { // every third shares the time of the one before: ties go by id
				clk.Advance(time.Second)
			}
			np := newPrediction(fmt.Sprintf("agent-%d", i%4))
			np.Domain = []string{"AI", "Space", "Tech"}[i%3]
			np.Confidence = ptr(float64(i%5) / 4)
			np.Title = fmt.Sprintf("Prediction %d about launches", i)
			if i%2 == 0 {
				np.ResolveBy = clk.Now().AddDate(0, 0, i%7).Format(time.DateOnly)
			}
			p := mustCreate(t, s, np)
			for j := range i % 3 {
				if _, err := s.React(ctx, p.ID, board.NewReaction{AgentID: fmt.Sprintf("r%d", j), Reaction: board.ReactionAgree}); err != nil {
					t.Fatal(err)
				}
			}
			return p
		}
		const n = 24 // every residue of the cycles above (3, 4, 5 and 7), over several pages of each query
		for i := range n {
			post(i)
		}
		queries := []board.FeedQuery{
			{}, {Sort: board.SortConfidence}, {Sort: board.SortPopular}, {Sort: board.SortClosing},
			{Domain: "Space"}, {Domain: "AI", Sort: board.SortConfidence}, {AgentID: "agent-1"},
			{Status: "open", Sort: board.SortPopular}, {Q: "launches", Sort: board.SortConfidence},
		}
		extra := n
		for _, q := range queries {
			t.Run(fmt.Sprintf("%+v", q), func(t *testing.T) {
				all := q
				all.Limit = board.MaxLimit
				want, err := s.Feed(ctx, all)
				if err != nil {
					t.Fatal(err)
				}
				// Offset and cursor pages agree while nothing changes.
				q.Limit = 3
				byOffset, err := s.Feed(ctx, board.FeedQuery{Sort: q.Sort, Domain: q.Domain, AgentID: q.AgentID, Status: q.Status, Q: q.Q, Limit: 3, Offset: 3})
				if err != nil {
					t.Fatal(err)
				}
				page1, err := s.Feed(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				c := q
				c.Cursor = page1.NextCursor
				page2, err := s.Feed(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(feedIDs(byOffset.Predictions), feedIDs(page2.Predictions)); diff != "" {
					t.Errorf("page 2 by cursor and by offset differ (-offset +cursor):\n%s", diff)
				}

				var got []board.Prediction
				seen := map[string]bool{}
				for page := 0; ; page++ {
					f, err := s.Feed(ctx, q)
					if err != nil {
						t.Fatalf("page %d: %v", page, err)
					}
					if len(f.Predictions) > q.Limit || (f.HasMore != (f.NextCursor != "")) {
						t.Fatalf("page %d: %d predictions, has_more %v, next_cursor %q", page, len(f.Predictions), f.HasMore, f.NextCursor)
					}
					for _, p := range f.Predictions {
						if seen[p.ID] {
							t.Fatalf("page %d: %s again", page, p.ID)
						}
						seen[p.ID] = true
					}
					got = append(got, f.Predictions...)
					if f.NextCursor == "" {
						break
					}
					q.Cursor = f.NextCursor
					post(extra) // new posts between pages
					extra++
				}
				for _, p := range want.Predictions {
					if !seen[p.ID] {
						t.Errorf("%s (%s) never came", p.ID, p.Title)
					}
				}
				if !slices.IsSortedFunc(got, feedOrder(q.Sort)) {
					t.Errorf("the pages are not in %s order: %v", q.Sort, feedIDs(got))
				}
			})
		}
	})
}

// feedOrder compares two predictions in the order of a sort: negative
// when a comes first.
func feedOrder(sort board.Sort) func(a, b board.Prediction) int {
	return func(a, b board.Prediction) int {
		var c int
		switch sort {
		case board.SortConfidence:
			if a.Confidence != b.Confidence {
				c = map[bool]int{true: -1, false: 1}[a.Confidence > b.Confidence]
			}
		case board.SortPopular:
			c = b.Popularity - a.Popularity
		case board.SortClosing:
			c = strings.Compare(a.ResolveBy, b.ResolveBy)
		}
		if c != 0 {
			return c
		}
		if c = b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	}
}
