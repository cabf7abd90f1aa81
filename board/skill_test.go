package board_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
)

// TestSkillPool loads two resolved questions and an open one whose
// forecasts come before, between and after their resolutions, then
// checks every community forecast of the open one against package pool
// given the skills an independent sum of the stored scores says were
// known at each forecast's time: a resolution counts from its time on.
// A forecast made now counts both.
func TestSkillPool(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		s := open(board.Options{Pool: pool.Skill})
		ctx := context.Background()
		day := func(d int) time.Time { return time.Date(2025, 1, d, 12, 0, 0, 0, time.UTC) }
		question := func(id string, outcome board.Outcome, closed time.Time, fs ...board.LoadForecast) board.LoadQuestion {
			np := newPrediction(fs[0].AgentID)
			np.Confidence = ptr(readP(t, string(fs[0].P)))
			np.Timeframe = "by 2025-12-31"
			return board.LoadQuestion{ID: id, Prediction: np, OpensAt: fs[0].At, Forecasts: fs, Outcome: outcome, ClosedAt: closed}
		}
		fc := func(agent, p string, at time.Time) board.LoadForecast {
			return board.LoadForecast{NewForecast: board.NewForecast{AgentID: agent, P: raw(p)}, At: at}
		}
		qs := []board.LoadQuestion{
			question("q1", board.OutcomeYes, day(5), fc("ann", "0.9", day(1)), fc("bob", "0.2", day(2)), fc("cy", "0.6", day(3))),
			question("q2", board.OutcomeNo, day(9), fc("bob", "0.7", day(6)), fc("ann", "0.1", day(6)), fc("cy", "0.5", day(7))),
			question("q3", "", time.Time{}, fc("cy", "0.4", day(4)), fc("ann", "0.8", day(5)), fc("bob", "0.3", day(8)),
				fc("dee", "0.6", day(10)), fc("ann", "0.85", day(11))),
		}
		if _, err := s.Load(ctx, qs); err != nil {
			t.Fatal(err)
		}
		// The skills from the stored scores, summed here.
		type scored struct {
			at        time.Time
			peer, cov float64
		}
		by := map[string][]scored{}
		for _, id := range []string{"q1", "q2"} {
			tb, err := s.Scores(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if tb.Community == nil {
				t.Errorf("%s: no community score", id)
			}
			for _, sc := range tb.Scores {
				by[sc.AgentID] = append(by[sc.AgentID], scored{sc.ResolvedAt, sc.PeerScore, sc.Coverage})
			}
		}
		skillAt := func(agent string, at time.Time) *float64 {
			var peer, cov float64
			for _, sc := range by[agent] {
				if sc.at.Before(at) {
					peer, cov = peer+sc.peer, cov+sc.cov
				}
			}
			e := math.Round(peer/(30+cov)*1e9) / 1e9
			return &e
		}
		page, err := s.Forecasts(ctx, "q3", board.Page{})
		if err != nil {
			t.Fatal(err)
		}
		standing := map[string]pool.Forecast{}
		moved := 0
		for _, f := range page.Forecasts {
			standing[f.AgentID] = pool.Forecast{Who: f.AgentID, P: f.P, At: f.CreatedAt}
			var fs []pool.Forecast
			for _, a := range []string{"ann", "bob", "cy", "dee"} {
				if sf, ok := standing[a]; ok {
					sf.Skill = skillAt(a, f.CreatedAt)
					if *sf.Skill != 0 {
						moved++
					}
					fs = append(fs, sf)
				}
			}
			want, err := pool.Combine(fs, pool.Options{Method: pool.Skill})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.P, f.Community.P, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("community after %s's forecast at %s (-want +got):\n%s", f.AgentID, f.CreatedAt.Format(time.DateOnly), diff)
			}
		}
		if moved == 0 {
			t.Fatal("no forecast was pooled with a skill other than 0: the test checks nothing")
		}
		// A forecast now knows both resolutions.
		res, err := s.Forecast(ctx, "q3", board.NewForecast{AgentID: "bob", P: raw("0.35")})
		if err != nil {
			t.Fatal(err)
		}
		now := res.Forecast.CreatedAt
		standing["bob"] = pool.Forecast{Who: "bob", P: 0.35, At: now}
		var fs []pool.Forecast
		for _, a := range []string{"ann", "bob", "cy", "dee"} {
			sf := standing[a]
			sf.Skill = skillAt(a, now)
			fs = append(fs, sf)
		}
		want, err := pool.Combine(fs, pool.Options{Method: pool.Skill})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.P, res.Community.P, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("community after a forecast now (-want +got):\n%s", diff)
		}
		if res.Community.Method != pool.Skill {
			t.Errorf("community method = %s, want skill", res.Community.Method)
		}
	})
}

// TestAgentsSkill checks the leaderboard's skill: each agent's from its
// peer scores, sort=skill listing the ranked first, the domain filter,
// and the community's record.
func TestAgentsSkill(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		s := open(board.Options{})
		ctx := context.Background()
		var qs []board.LoadQuestion
		// sharp forecasts well on 12 questions, dull on 12 at 50%, lucky on
		// one: only sharp and dull are ranked.
		for i := range 12 {
			at := time.Date(2025, 2, 1+i, 0, 0, 0, 0, time.UTC)
			np := newPrediction("sharp")
			np.Confidence, np.Timeframe = ptr(0.9), "by 2025-12-31"
			if i%2 == 1 {
				np.Domain = "Science"
			}
			qs = append(qs, board.LoadQuestion{ID: fmt.Sprintf("s%d", i), Prediction: np, OpensAt: at, Outcome: board.OutcomeYes, ClosedAt: at.Add(48 * time.Hour),
				Forecasts: []board.LoadForecast{
					{NewForecast: board.NewForecast{AgentID: "sharp", P: raw("0.9")}, At: at},
					{NewForecast: board.NewForecast{AgentID: "dull", P: raw("0.5")}, At: at},
				}})
		}
		at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
		np := newPrediction("lucky")
		np.Confidence, np.Timeframe = ptr(0.99), "by 2025-12-31"
		qs = append(qs, board.LoadQuestion{ID: "l0", Prediction: np, OpensAt: at, Outcome: board.OutcomeYes, ClosedAt: at.Add(time.Hour),
			Forecasts: []board.LoadForecast{
				{NewForecast: board.NewForecast{AgentID: "lucky", P: raw("0.99")}, At: at},
				{NewForecast: board.NewForecast{AgentID: "dull", P: raw("0.5")}, At: at},
			}})
		if _, err := s.Load(ctx, qs); err != nil {
			t.Fatal(err)
		}
		page, err := s.Agents(ctx, board.AgentQuery{Sort: board.AgentSortSkill})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, a := range page.Agents {
			order = append(order, fmt.Sprintf("%s ranked=%v", a.ID, a.Ranked))
		}
		if diff := cmp.Diff([]string{"sharp ranked=true", "dull ranked=true", "lucky ranked=false"}, order); diff != "" {
			t.Errorf("sort=skill (-want +got):\n%s", diff)
		}
		// Each question has two forecasters from open to close: peer =
		// 100·ln(q/G)·2 with G the geometric mean, i.e. ±100·ln(0.9/0.5).
		peer := 100 * math.Log(0.9/0.5)
		want := scoring.SkillOf(repeat(peer, 12), repeat(1, 12))
		if diff := cmp.Diff(want, page.Agents[0].Skill, cmpopts.EquateApprox(1e-7, 0)); diff != "" { // sums of squares round
			t.Errorf("sharp's skill (-want +got):\n%s", diff)
		}
		if got, w := page.Agents[0].TrustScore, scoring.Trust(want.Estimate); math.Abs(got-w) > 1e-12 {
			t.Errorf("sharp's trust = %v, want %v", got, w)
		}
		if page.Community == nil || page.Community.Scored != 13 || page.Community.Method != pool.GeoOdds {
			t.Errorf("community record = %+v, want 13 scored by geo_odds", page.Community)
		}
		sci, err := s.Agents(ctx, board.AgentQuery{Sort: board.AgentSortPeer, Domain: "science"})
		if err != nil {
			t.Fatal(err)
		}
		if sci.Domain != "Science" || sci.Total != 2 || len(sci.Agents) != 2 || sci.Agents[0].Scored != 6 {
			t.Errorf("domain=science: domain %q total %d, %d agents, first scored %d; want Science, 2, 2, 6", sci.Domain, sci.Total, len(sci.Agents), sci.Agents[0].Scored)
		}
		if _, err := s.Agents(ctx, board.AgentQuery{Domain: "astrology"}); err == nil {
			t.Error("domain=astrology: no error")
		}
	})
}

func repeat(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

func readP(t *testing.T, s string) float64 {
	t.Helper()
	var p float64
	if _, err := fmt.Sscan(s, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSkillAfterCorrection corrects a resolution after a question's
// forecasts were pooled with the skills it gave: their stored community
// forecasts do not change, a forecast made afterwards is pooled with the
// corrected skills, and loading the same questions again changes
// nothing.
func TestSkillAfterCorrection(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(opt board.Options) *board.Store) {
		s := open(board.Options{Pool: pool.Skill})
		ctx := context.Background()
		day := func(d int) time.Time { return time.Date(2025, 1, d, 12, 0, 0, 0, time.UTC) }
		fc := func(agent, p string, at time.Time) board.LoadForecast {
			return board.LoadForecast{NewForecast: board.NewForecast{AgentID: agent, P: raw(p)}, At: at}
		}
		question := func(id string, outcome board.Outcome, closed time.Time, fs ...board.LoadForecast) board.LoadQuestion {
			np := newPrediction(fs[0].AgentID)
			np.Confidence = ptr(readP(t, string(fs[0].P)))
			np.Timeframe = "by 2025-12-31"
			return board.LoadQuestion{ID: id, Prediction: np, OpensAt: fs[0].At, Forecasts: fs, Outcome: outcome, ClosedAt: closed}
		}
		qs := []board.LoadQuestion{
			question("q1", board.OutcomeYes, day(5), fc("ann", "0.9", day(1)), fc("bob", "0.2", day(2))),
			question("q2", "", time.Time{}, fc("ann", "0.7", day(6)), fc("bob", "0.4", day(7))),
		}
		if _, err := s.Load(ctx, qs); err != nil {
			t.Fatal(err)
		}
		history := func() []board.Forecast {
			t.Helper()
			page, err := s.Forecasts(ctx, "q2", board.Page{})
			if err != nil {
				t.Fatal(err)
			}
			return page.Forecasts
		}
		before := history()
		if len(before) != 2 {
			t.Fatalf("history before the correction: %+v", before)
		}
		// The pool of two forecasts with ann's skill known on day 7 (ann was
		// right on q1): ann weighs more, so the pool sits nearer 0.7.
		if got, _ := pool.Combine([]pool.Forecast{{P: 0.7}, {P: 0.4}}, pool.Options{}); before[1].Community.P <= got.GeoOdds {
			t.Errorf("community on day 7 = %v, want above the unweighted %v: ann's skill counts", before[1].Community.P, got.GeoOdds)
		}
		if _, err := s.Resolve(ctx, "q1", board.NewResolution{Outcome: board.OutcomeNo}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, history()); diff != "" {
			t.Errorf("history after the correction (-before +after):\n%s", diff)
		}
		res, err := s.Forecast(ctx, "q2", board.NewForecast{AgentID: "bob", P: raw("0.4")})
		if err != nil {
			t.Fatal(err)
		}
		tb, err := s.Scores(ctx, "q1")
		if err != nil {
			t.Fatal(err)
		}
		skill := map[string]*float64{}
		for _, sc := range tb.Scores {
			e := math.Round(sc.PeerScore/(30+sc.Coverage)*1e9) / 1e9
			skill[sc.AgentID] = &e
		}
		if *skill["ann"] >= 0 {
			t.Fatalf("ann's skill after the correction = %v, want below 0", *skill["ann"])
		}
		want, err := pool.Combine([]pool.Forecast{
			{Who: "ann", P: 0.7, At: day(6), Skill: skill["ann"]},
			{Who: "bob", P: 0.4, At: res.Forecast.CreatedAt, Skill: skill["bob"]},
		}, pool.Options{Method: pool.Skill})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.P, res.Community.P, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("community after a forecast made after the correction (-want +got):\n%s", diff)
		}
		after := history()
		if _, err := s.Load(ctx, qs); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(after, history()); diff != "" {
			t.Errorf("loading the same questions again changed the history (-before +after):\n%s", diff)
		}
	})
}
