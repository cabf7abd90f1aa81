package board_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/scoring"
)

// TestScoreSumsFollowResolutions checks the running sums that the
// leaderboards and an agent's page read (over a domain, the community's,
// the calibration tables) against the scores they sum, recomputed from
// Store.Scores, after first resolutions and after corrections that change
// an outcome, void a question and resolve it again.
func TestScoreSumsFollowResolutions(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		ctx := context.Background()
		clk := newClock()
		s := open(board.Options{Now: clk.Now})
		agents := []string{"ann", "bob", "cat", "dan"}
		domains := []string{"ai", "science", "politics"}
		var ids []string
		for i := range 9 {
			np := newPrediction(agents[i%len(agents)])
			np.Domain = domains[i%len(domains)]
			np.Title = fmt.Sprintf("Question %d resolves yes", i)
			ids = append(ids, mustCreate(t, s, np).ID)
			for j, a := range agents {
				if (i+j)%3 == 0 {
					continue // not everyone forecasts everything
				}
				clk.Advance(time.Hour)
				p := []string{"0.3", "0.7", "0.05", "0.95", "0.5", "0.42"}[(i*j+i)%6]
				if _, err := s.Forecast(ctx, ids[i], board.NewForecast{AgentID: a, P: raw(p)}); err != nil {
					t.Fatalf("Forecast: %v", err)
				}
			}
		}
		resolve := func(i int, o board.Outcome) {
			t.Helper()
			clk.Advance(time.Hour)
			if _, err := s.Resolve(ctx, ids[i], board.NewResolution{Outcome: o}); err != nil {
				t.Fatalf("Resolve(%d, %s): %v", i, o, err)
			}
		}
		for i := range ids {
			resolve(i, []board.Outcome{board.OutcomeYes, board.OutcomeNo, board.OutcomeYes}[i%3])
		}
		check(t, s, ids, agents, "after first resolutions")
		resolve(0, board.OutcomeNo)   // an outcome corrected
		resolve(1, board.OutcomeVoid) // voided
		resolve(2, board.OutcomeVoid)
		resolve(2, board.OutcomeNo) // and resolved again
		check(t, s, ids, agents, "after corrections")
		for _, i := range []int{3, 4, 5, 6, 7, 8} {
			resolve(i, board.OutcomeVoid) // every score of some domains gone
		}
		check(t, s, ids, agents, "after voiding most")
	})
}

// check compares what the sums give with the scores recomputed.
func check(t *testing.T, s *board.Store, ids, agents []string, when string) {
	t.Helper()
	ctx := context.Background()
	checkCounters(t, s)
	type tally struct {
		n          int
		peer, base float64
	}
	byDomain := map[string]map[string]*tally{} // domain, agent
	community := map[string]*tally{}           // domain; "" for all
	forecasts := map[string][]scoring.Forecast{}
	for _, id := range ids {
		p, err := s.Prediction(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.Scores(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if byDomain[p.Domain] == nil {
			byDomain[p.Domain] = map[string]*tally{}
		}
		for _, sc := range st.Scores {
			a := byDomain[p.Domain][sc.AgentID]
			if a == nil {
				a = &tally{}
				byDomain[p.Domain][sc.AgentID] = a
			}
			a.n++
			a.peer += sc.PeerScore
			a.base += sc.BaselineScore
			forecasts[sc.AgentID] = append(forecasts[sc.AgentID], scoring.Forecast{P: sc.P, Outcome: sc.Outcome == board.OutcomeYes})
		}
		if st.Community != nil {
			for _, d := range []string{"", p.Domain} {
				c := community[d]
				if c == nil {
					c = &tally{}
					community[d] = c
				}
				c.n++
				c.peer += st.Community.PeerScore
				c.base += st.Community.BaselineScore
			}
		}
	}
	type row struct {
		Agent      string
		Scored     int
		Peer, Base float64
	}
	for d, want := range byDomain {
		{
			page, err := s.Agents(ctx, board.AgentQuery{Domain: d, Sort: board.AgentSortPeer, Limit: 200})
			if err != nil {
				t.Fatal(err)
			}
			var got, wantRows []row
			for _, a := range page.Agents {
				r := row{Agent: a.ID, Scored: a.Scored}
				if a.PeerScore != nil {
					r.Peer, r.Base = *a.PeerScore, *a.BaselineScore
				}
				got = append(got, r)
			}
			for _, a := range agents {
				if w := want[a]; w != nil && w.n > 0 {
					wantRows = append(wantRows, row{a, w.n, w.peer / float64(w.n), w.base / float64(w.n)})
				}
			}
			byID := func(rs []row) map[string]row {
				m := map[string]row{}
				for _, r := range rs {
					m[r.Agent] = r
				}
				return m
			}
			if diff := cmp.Diff(byID(wantRows), byID(got), approx); diff != "" {
				t.Errorf("%s: domain %s leaderboard (-want +got):\n%s", when, d, diff)
			}
			if page.Total != len(wantRows) {
				t.Errorf("%s: domain %s leaderboard total = %d, want %d", when, d, page.Total, len(wantRows))
			}
			var wantCom *row
			if c := community[d]; c != nil && c.n > 0 {
				wantCom = &row{"community", c.n, c.peer / float64(c.n), c.base / float64(c.n)}
			}
			var gotCom *row
			if c := page.Community; c != nil {
				gotCom = &row{"community", c.Scored, c.PeerScore, c.BaselineScore}
			}
			if diff := cmp.Diff(wantCom, gotCom, approx); diff != "" {
				t.Errorf("%s: domain %s community record (-want +got):\n%s", when, d, diff)
			}
		}
	}
	all, err := s.Agents(ctx, board.AgentQuery{Sort: board.AgentSortPeer, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	var wantAll any
	if c := community[""]; c != nil && c.n > 0 {
		wantAll = [2]float64{float64(c.n), c.peer / float64(c.n)}
	}
	var gotAll any
	if c := all.Community; c != nil {
		gotAll = [2]float64{float64(c.Scored), c.PeerScore}
	}
	if diff := cmp.Diff(wantAll, gotAll, approx); diff != "" {
		t.Errorf("%s: the whole board's community record (-want +got):\n%s", when, diff)
	}
	for _, a := range agents {
		got, err := s.Agent(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		var want []scoring.Bin
		if fs := forecasts[a]; len(fs) > 0 {
			if want, err = scoring.Calibration(fs, 0); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(want, got.Calibration, approx); diff != "" {
			t.Errorf("%s: %s's calibration (-want +got):\n%s", when, a, diff)
		}
	}
}
