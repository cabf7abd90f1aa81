package board_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/pool"
)

// TestDisagreementFlag: on every write path (post, a forecast, a forecast
// that replaces one, an import) the stored flag is pool.MiddleDisagree of
// the standing forecasts, not the spread of the highest and lowest, and
// the community check agrees with it.
func TestDisagreementFlag(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(board.Options) *board.Store) {
		ctx := context.Background()
		s := open(board.Options{Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }})
		check := func(step, id string, got board.Community, want bool, spread float64) {
			t.Helper()
			if got.Disagreement != want || got.SpreadPts != spread {
				t.Errorf("%s: disagreement %v, spread %v; want %v, %v", step, got.Disagreement, got.SpreadPts, want, spread)
			}
			p, err := s.Prediction(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if p.Community.Disagreement != want {
				t.Errorf("%s: stored disagreement %v, want %v", step, p.Community.Disagreement, want)
			}
			if m, err := s.CommunityMismatches(ctx, id); err != nil || len(m) > 0 {
				t.Errorf("%s: CommunityMismatches = %v, %v", step, m, err)
			}
		}
		np := newPrediction("alice")
		np.Confidence = ptr(0.2)
		p := mustCreate(t, s, np)
		check("post", p.ID, p.Community, false, 0)
		forecast := func(agent, pv string) board.Community {
			t.Helper()
			r, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: agent, P: raw(pv)})
			if err != nil {
				t.Fatalf("Forecast(%s, %s): %v", agent, pv, err)
			}
			return r.Community
		}
		forecast("bob", "0.25")
		// Three forecasts 50 points apart: below pool.MiddleMinForecasts.
		check("three forecasts", p.ID, forecast("carol", "0.7"), false, 50)
		// 0.2, 0.25, 0.7, 0.75: the middle half spans 47.5 points.
		check("four, split in two", p.ID, forecast("dave", "0.75"), true, 55)
		// carol's replaced: 0.2, 0.25, 0.3, 0.75, the middle half 17.5.
		check("a forecast replaced", p.ID, forecast("carol", "0.3"), false, 55)

		const file = `# Split question

- id: split-1
- resolves: yes if it happens
- resolve_by: 2026-06-30
- status: open

## Forecasts

- 2026-01-05 · agent:a · 20%
- 2026-01-06 · agent:b · 25%
- 2026-01-07 · agent:c · 70%
- 2026-01-08 · agent:d · 75%

# Outlier question

- id: outlier-1
- resolves: yes if it happens
- resolve_by: 2026-06-30
- status: open

## Forecasts

- 2026-01-05 · agent:a · 60%
- 2026-01-06 · agent:b · 62%
- 2026-01-07 · agent:c · 5%
- 2026-01-08 · agent:d · 65%
- 2026-01-09 · agent:e · 58%
`
		if _, err := boardfile.Import(ctx, s, strings.NewReader(file)); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id     string
			want   bool
			spread float64
		}{{"split-1", true, 55}, {"outlier-1", false, 60}} {
			p, err := s.Prediction(ctx, c.id)
			if err != nil {
				t.Fatal(err)
			}
			check("import "+c.id, c.id, p.Community, c.want, c.spread)
		}
		// The tools keep their rule on the same forecasts.
		r, err := pool.Combine([]pool.Forecast{{P: 0.6}, {P: 0.62}, {P: 0.05}, {P: 0.65}, {P: 0.58}}, pool.Options{})
		if err != nil || !r.Disagree {
			t.Errorf("Combine on the outlier question: Disagree %v, %v; want true", r.Disagree, err)
		}
	})
}
