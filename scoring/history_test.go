package scoring

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// at0 and day(d): the resolution times of the History tests.
var at0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func day(d int) time.Time { return at0.AddDate(0, 0, d) }

func TestHistory(t *testing.T) {
	var h History
	if got := h.At("ann", day(10)); got != (Skill{}) {
		t.Errorf("empty History: At = %+v, want the zero Skill", got)
	}
	// Added out of order: by resolution time ann has 10 (day 1), −4
	// (day 2), 6 (day 3).
	h.Add("ann", day(3), 6, 1)
	h.Add("ann", day(1), 10, 1)
	h.Add("bob", day(2), -20, 1)
	h.Add("ann", day(2), -4, 0.5)
	tests := []struct {
		name string
		who  string
		at   time.Time
		want Skill
	}{
		{"before any resolution", "ann", day(1).Add(-time.Nanosecond), Skill{}},
		{"a resolution at t is not yet known", "ann", day(1), Skill{}},
		{"just after the first", "ann", day(1).Add(time.Nanosecond), SkillOf([]float64{10}, []float64{1})},
		{"the second at t is not counted", "ann", day(2), SkillOf([]float64{10}, []float64{1})},
		{"two", "ann", day(2).Add(time.Hour), SkillOf([]float64{10, -4}, []float64{1, 0.5})},
		{"all three", "ann", day(30), SkillOf([]float64{10, -4, 6}, []float64{1, 0.5, 1})},
		{"another forecaster", "bob", day(30), SkillOf([]float64{-20}, []float64{1})},
		{"unknown forecaster", "carol", day(30), Skill{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, h.At(tt.who, tt.at), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("At(%q, %v) (-want +got):\n%s", tt.who, tt.at, diff)
			}
		})
	}
	// A question added after a look is counted in the next one.
	h.Add("ann", day(0), 2, 1)
	want := SkillOf([]float64{2, 10, -4, 6}, []float64{1, 1, 0.5, 1})
	if diff := cmp.Diff(want, h.At("ann", day(30)), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("At after a late Add (-want +got):\n%s", diff)
	}
}

// TestHistoryMatchesSkillOf: at any moment, History.At is SkillOf over the
// questions resolved strictly before it, whatever order they were added
// in, ties in time included.
func TestHistoryMatchesSkillOf(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 7))
	type question struct {
		who       string
		at        time.Time
		peer, cov float64
	}
	for trial := range 50 {
		var h History
		var qs []question
		for range 1 + r.IntN(60) {
			q := question{who: []string{"ann", "bob", "cy"}[r.IntN(3)], at: day(r.IntN(20)),
				peer: 200*r.Float64() - 100, cov: r.Float64()}
			qs = append(qs, q)
			h.Add(q.who, q.at, q.peer, q.cov)
			if r.IntN(4) == 0 { // look in between, so Add must refresh what At keeps
				h.At(q.who, day(r.IntN(22)))
			}
		}
		for _, who := range []string{"ann", "bob", "cy", "dan"} {
			for d := range 22 {
				moment := day(d)
				var peers, covs []float64
				for _, q := range qs {
					if q.who == who && q.at.Before(moment) {
						peers, covs = append(peers, q.peer), append(covs, q.cov)
					}
				}
				want := SkillOf(peers, covs)
				if diff := cmp.Diff(want, h.At(who, moment), cmpopts.EquateApprox(1e-12, 1e-9)); diff != "" {
					t.Fatalf("trial %d: At(%q, day %d) (-SkillOf +At):\n%s", trial, who, d, diff)
				}
			}
		}
	}
}

// TestHistoryAddEarlier: sums given for the questions resolved before a
// moment, with the later questions added one by one, answer At at that
// moment and after as the whole history added one by one does; the sums
// given twice add up.
func TestHistoryAddEarlier(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 1))
	for trial := range 50 {
		var whole, split History
		from := day(10)
		var early sums
		for range 1 + r.IntN(60) {
			at, peer, cov := day(r.IntN(20)), 200*r.Float64()-100, r.Float64()
			whole.Add("ann", at, peer, cov)
			if at.Before(from) {
				early.n++
				early.peer, early.sq, early.cov = early.peer+peer, early.sq+peer*peer, early.cov+cov
			} else {
				split.Add("ann", at, peer, cov)
			}
		}
		split.AddEarlier("ann", early.n/2, early.peer/2, early.sq/2, early.cov/2)
		split.AddEarlier("ann", early.n-early.n/2, early.peer/2, early.sq/2, early.cov/2)
		for d := 10; d < 22; d++ {
			if diff := cmp.Diff(whole.At("ann", day(d)), split.At("ann", day(d)), cmpopts.EquateApprox(1e-12, 1e-9)); diff != "" {
				t.Fatalf("trial %d: At(day %d) (-whole +with AddEarlier):\n%s", trial, d, diff)
			}
		}
	}
	var h History
	h.AddEarlier("bob", 2, 10, 68, 1.5)
	if diff := cmp.Diff(SkillOf([]float64{8, 2}, []float64{1, 0.5}), h.At("bob", day(0)), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("At with only sums given (-want +got):\n%s", diff)
	}
}
