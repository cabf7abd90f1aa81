package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/pool"
)

// seedCrowd opens a board of 27 open predictions, each forecast by a crowd
// of 5 to 8 agents, as a board with many forecasters looks: on most
// questions the crowd agrees within a few points and one agent sits far
// from it, on 3 nobody does, and on 6 (every fifth) the crowd is two camps
// 40 points apart. It returns the board and the prediction ids.
func seedCrowd(tb testing.TB) (*board.Store, []string) {
	tb.Helper()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := func() time.Time { return now }
	s, err := board.Open(ctx, boardtest.SQLite(tb), board.Options{Now: clk})
	if err != nil {
		tb.Fatalf("board.Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	near := []float64{-0.05, 0.03, 0, -0.02, 0.05, -0.04, 0.02, 0.01}
	var ids []string
	for i := range 27 {
		n := 5 + i%4
		b := 0.15 + 0.7*float64((i*37)%27)/26
		ps := make([]float64, n)
		for j := range ps {
			switch {
			case i%5 == 0: // two camps
				ps[j] = b - 0.2 + 0.4*float64(j%2) + near[j]/3
			case j == n-1 && i%9 != 4: // one agent far from the rest
				ps[j] = b + 0.35
				if b > 0.5 {
					ps[j] = b - 0.35
				}
			default:
				ps[j] = b + near[j]
			}
			ps[j] = math.Round(min(max(ps[j], 0.02), 0.98)*100) / 100
		}
		now = now.Add(time.Minute)
		p, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "crowd-0", Title: fmt.Sprintf("Crowd question %02d", i+1),
			Body: "A question many agents forecast.", Confidence: ptr(ps[0]), Timeframe: "by 2026-12-31", Domain: "Science"})
		if err != nil {
			tb.Fatalf("CreatePrediction: %v", err)
		}
		for j, v := range ps[1:] {
			now = now.Add(time.Second)
			if _, err := s.Forecast(ctx, p.ID, board.NewForecast{AgentID: fmt.Sprintf("crowd-%d", j+1), P: json.RawMessage(fmt.Sprint(v))}); err != nil {
				tb.Fatalf("Forecast: %v", err)
			}
		}
		ids = append(ids, p.ID)
	}
	return s, ids
}

// flagText is the red flag of a card in the feed, with its measure.
const flagText = `<span class="disagree split">agents disagree: the middle half of their forecasts spans more than 20 points</span>`

var (
	cardRE   = regexp.MustCompile(`(?s)<li class="prediction">.*?</li>`)
	cardIDRE = regexp.MustCompile(`<h2><a href="/predictions/([^"]+)"`)
)

// TestDisagreementFlagMinority: on a board where most questions have an
// agent far from the rest, the feed's red flag marks only the questions
// whose crowd is split (pool.MiddleDisagree), fewer than half of them,
// and says the measure; the highest minus the lowest, the tools' rule,
// would mark most of them.
func TestDisagreementFlagMinority(t *testing.T) {
	s, ids := seedCrowd(t)
	ctx := context.Background()
	srv := newServer(t, &fixture{store: s, clock: testclock.New(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))})
	_, _, body := get(t, srv, "/?limit=50")
	var flagged []string
	cards := cardRE.FindAllString(body, -1)
	if len(cards) != len(ids) {
		t.Fatalf("the feed shows %d cards, want all %d", len(cards), len(ids))
	}
	for _, c := range cards {
		if id := cardIDRE.FindStringSubmatch(c); id != nil && strings.Contains(c, flagText) {
			flagged = append(flagged, id[1])
		}
	}
	if n := strings.Count(body, `class="disagree split"`); n != len(flagged) {
		t.Fatalf("%d flags in the feed, %d of them with the measure's text", n, len(flagged))
	}
	var wantFlagged []string
	old := 0
	for _, id := range ids {
		st, err := s.Standing(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		fs := make([]pool.Forecast, len(st))
		ps := make([]float64, len(st))
		for i, f := range st {
			fs[i], ps[i] = pool.Forecast{Who: f.AgentID, P: f.P}, f.P
		}
		r, err := pool.Combine(fs, pool.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Disagree {
			old++
		}
		slices.Sort(ps)
		if pool.MiddleDisagree(ps) {
			wantFlagged = append(wantFlagged, id)
		}
	}
	slices.Sort(flagged)
	slices.Sort(wantFlagged)
	if !slices.Equal(flagged, wantFlagged) {
		t.Errorf("flagged in the feed: %q, want pool.MiddleDisagree's %q", flagged, wantFlagged)
	}
	t.Logf("flagged: %d of %d predictions (the highest minus the lowest above 20 points: %d)", len(flagged), len(ids), old)
	if len(flagged) == 0 || 2*len(flagged) >= len(ids) {
		t.Errorf("%d of %d predictions flagged; want some, fewer than half", len(flagged), len(ids))
	}
	if 2*old <= len(ids) {
		t.Errorf("the spread rule flags %d of %d: the board no longer shows what the measure fixes", old, len(ids))
	}
	// A flagged prediction's page says the measure and the spread beside it.
	if len(flagged) > 0 {
		_, _, page := get(t, srv, "/predictions/"+flagged[0])
		if !strings.Contains(page, "; they disagree: the middle half of their forecasts spans more than 20 points (") {
			t.Errorf("prediction %s: no explanation of the flag in the headline", flagged[0])
		}
	}
}

// disagreementFlag: in the browser, at both widths, the red flag marks
// fewer than half of the feed's predictions and names its measure, in
// the feed and in the flagged prediction's headline.
func disagreementFlag(t *testing.T, b *browser, f *fixture) {
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			ctx := b.on(t, s)
			b.open(t, ctx, "/?limit=100", 200)
			cards := eval[int](t, ctx, `document.querySelectorAll('#feed li.prediction').length`)
			flags := eval[[]string](t, ctx, `[...document.querySelectorAll('#feed li.prediction .meta .split')].map(e => e.textContent)`)
			t.Logf("on %s: %d of %d predictions flagged", s.name, len(flags), cards)
			if len(flags) == 0 || 2*len(flags) >= cards {
				t.Errorf("on %s: %d of %d predictions flagged; want some, fewer than half", s.name, len(flags), cards)
			}
			for _, fl := range flags {
				if !strings.Contains(fl, "the middle half of their forecasts spans more than 20 points") {
					t.Errorf("on %s: the flag says %q, not its measure", s.name, fl)
				}
			}
			b.open(t, ctx, "/predictions/"+f.thread, 200)
			if got := eval[string](t, ctx, `document.getElementById('headline').textContent`); !strings.Contains(got, "they disagree: the middle half of their forecasts spans more than 20 points") {
				t.Errorf("on %s: the thread's headline %q does not explain the flag", s.name, got)
			}
			fitsWidth(t, ctx, "flagged prediction")
		})
	}
}
