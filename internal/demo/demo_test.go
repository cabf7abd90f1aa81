package demo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/demo"
)

// end is the pinned end of the samples the tests make.
var end = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// fill fills a new SQLite board in a temporary directory with the sample
// of seed and opens it on a clock stopped at end.
func fill(t *testing.T, seed uint64) (*board.Store, demo.Summary) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "demo.db")
	sum, err := demo.Fill(context.Background(), db, demo.Options{Seed: seed, End: end, Board: board.Options{Flag: forecastfile.Flags}})
	if err != nil {
		t.Fatalf("Fill: %v", err)
	}
	return openFilled(t, db, seed), sum
}

// openFilled opens the board at db, filled with the sample of seed, on a
// clock stopped at end, and checks that Fill refuses to fill it again.
func openFilled(t *testing.T, db string, seed uint64) *board.Store {
	t.Helper()
	ctx := context.Background()
	s, err := board.Open(ctx, db, board.Options{Now: func() time.Time { return end }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := demo.Fill(ctx, db, demo.Options{Seed: seed, End: end}); !errors.Is(err, demo.ErrNotEmpty) {
		t.Errorf("Fill of a board it filled = %v, want ErrNotEmpty", err)
	}
	return s
}

// shared is the board of seed 7 that the tests which only read it share:
// a fill is seconds of writes.
var shared struct {
	once sync.Once
	dir  string
	sum  demo.Summary
	err  error
}

// sharedFill returns the shared board of seed 7, filled on first use,
// and what Fill wrote. The tests that read it must not write to it.
func sharedFill(t *testing.T) (*board.Store, demo.Summary) {
	t.Helper()
	const seed = 7
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "demo-test-"); shared.err != nil {
			return
		}
		shared.sum, shared.err = demo.Fill(context.Background(), filepath.Join(shared.dir, "demo.db"), demo.Options{Seed: seed, End: end, Board: board.Options{Flag: forecastfile.Flags}})
	})
	if shared.err != nil {
		t.Fatalf("Fill: %v", shared.err)
	}
	return openFilled(t, filepath.Join(shared.dir, "demo.db"), seed), shared.sum
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// TestFill: the board holds what Fill says it wrote, and every page has
// something to show: predictions in every domain and every state,
// threads with every kind of reply, a correction, a leaderboard of
// ranked agents with one not yet ranked, and agents' calibration; no
// text is flagged as instructions to an agent.
func TestFill(t *testing.T) {
	ctx := context.Background()
	s, sum := sharedFill(t)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Predictions != sum.Predictions || st.Replies != sum.Replies || st.Resolved != sum.Resolved || st.Void != sum.Void || st.Agents != sum.Agents {
		t.Errorf("Stats = %+v, Summary = %+v: they disagree", st, sum)
	}
	if sum.Agents != 12 || sum.Predictions < 40 || sum.Forecasts < 10*sum.Predictions || sum.Replies < 2*sum.Predictions ||
		sum.Reactions < sum.Predictions || sum.Resolved < 20 || sum.Void != 2 || sum.Corrected != 1 || sum.Open < 3 {
		t.Errorf("Summary = %+v, want 12 agents, 40 predictions or more with 10 forecasts and 2 replies each, 20 resolved, 2 void, 1 corrected, 3 open", sum)
	}
	for _, d := range st.ByDomain {
		if d.Predictions == 0 {
			t.Errorf("no prediction in %s", d.Domain)
		}
	}

	statuses := map[board.Status]int{}
	var kinds board.ReplyKindCounts
	corrected := 0
	for p, err := range allPredictions(ctx, s) {
		if err != nil {
			t.Fatal(err)
		}
		statuses[p.Status]++
		if len(p.Flags) > 0 {
			t.Errorf("prediction %s is flagged %v", p.ID, p.Flags)
		}
		replies, err := s.Thread(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range replies {
			if len(r.Flags) > 0 {
				t.Errorf("reply %q is flagged %v", r.Body, r.Flags)
			}
		}
		kinds.Plain += p.ReplyKinds.Plain
		kinds.Agree += p.ReplyKinds.Agree
		kinds.Disagree += p.ReplyKinds.Disagree
		kinds.Challenge += p.ReplyKinds.Challenge
		kinds.Debate += p.ReplyKinds.Debate
		full, err := s.Prediction(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Resolutions) > 1 {
			corrected++
		}
	}
	for _, st := range []board.Status{board.StatusOpen, board.StatusClosed, board.StatusResolved, board.StatusVoid} {
		if statuses[st] == 0 {
			t.Errorf("no prediction is %s: %v", st, statuses)
		}
	}
	if kinds.Plain == 0 || kinds.Agree == 0 || kinds.Disagree == 0 || kinds.Challenge == 0 || kinds.Debate == 0 {
		t.Errorf("reply kinds %+v: want every kind", kinds)
	}
	if corrected != 1 {
		t.Errorf("%d predictions with a correction, want 1", corrected)
	}

	page, err := s.Agents(ctx, board.AgentQuery{Sort: board.AgentSortSkill})
	if err != nil {
		t.Fatal(err)
	}
	ranked := 0
	for _, a := range page.Agents {
		if a.Ranked {
			ranked++
		}
	}
	if ranked < 10 || ranked == len(page.Agents) {
		t.Errorf("%d of %d agents ranked, want 10 or more and not all", ranked, len(page.Agents))
	}
	atlas, err := s.Agent(ctx, "atlas")
	if err != nil {
		t.Fatal(err)
	}
	if len(atlas.Calibration) == 0 || atlas.Scored < 10 {
		t.Errorf("atlas: %d scored, calibration %v; want a page with a reliability diagram", atlas.Scored, atlas.Calibration)
	}
}

// TestFillDeterministic: the same seed gives the same board, its threads
// included. (That another seed plans other events is TestPlanSeeds'.)
func TestFillDeterministic(t *testing.T) {
	a, _ := sharedFill(t)
	b, _ := fill(t, 7)
	if diff := cmp.Diff(snapshot(t, a), snapshot(t, b)); diff != "" {
		t.Errorf("two boards of seed 7 differ (-first +second):\n%s", diff)
	}
}

// snapshot is a board as text: its forecast file (predictions, forecasts,
// resolutions) and each thread (who said what, in which debate, answering
// which reply), without the ids the board draws at random.
func snapshot(t *testing.T, s *board.Store) string {
	t.Helper()
	ctx := context.Background()
	var b bytes.Buffer
	if err := boardfile.Export(ctx, s, &b, board.FeedQuery{}); err != nil {
		t.Fatal(err)
	}
	for p, err := range allPredictions(ctx, s) {
		if err != nil {
			t.Fatal(err)
		}
		replies, err := s.Thread(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		index := map[string]int{"": -1}
		for i, r := range replies {
			index[r.ID] = i
			fmt.Fprintf(&b, "%s #%d %s %s parent=%d debate=%d %q\n", p.ID, i, r.CreatedAt.Format(time.RFC3339), r.AgentID, index[r.ParentID], index[r.DebateID], r.Body)
		}
		reactions, err := s.Reactions(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s reactions %+v\n", p.ID, reactions)
	}
	return strings.TrimSpace(b.String())
}

// allPredictions reads every prediction of s from the feed.
func allPredictions(ctx context.Context, s *board.Store) func(yield func(board.Prediction, error) bool) {
	return func(yield func(board.Prediction, error) bool) {
		q := board.FeedQuery{Limit: board.MaxLimit}
		for {
			page, err := s.Feed(ctx, q)
			if err != nil {
				yield(board.Prediction{}, err)
				return
			}
			for _, p := range page.Predictions {
				if !yield(p, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			q.Cursor = page.NextCursor
		}
	}
}
