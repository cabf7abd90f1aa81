package scoring_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/predictions-md/predictions/scoring"
)

// t(0.975, df) in closed form for df 1 and 2 (see TestTQuantileByIntegration).
var (
	t975df1 = math.Tan(math.Pi * 0.475)         // ≈ 12.7062
	t975df2 = 0.95 * math.Sqrt(2/(1-0.95*0.95)) // ≈ 4.3027
)

func TestSkillOf(t *testing.T) {
	tests := []struct {
		name             string
		peers, coverages []float64
		want             scoring.Skill
	}{
		{"no questions", nil, nil, scoring.Skill{}},
		{
			// One question: no interval; the estimate 8 / (30 + 0.5).
			"one question", []float64{8}, []float64{0.5},
			scoring.Skill{Questions: 1, MeanPeer: 8, Low: 8, High: 8, Estimate: 8 / 30.5},
		},
		{
			// Mean 2, s = √((3² + 3²)/1) = √18, half width
			// t(0.975, 1)·√18/√2 = 3·12.7062; estimate 4 / (30 + 2).
			"two questions", []float64{5, -1}, []float64{1, 1},
			scoring.Skill{Questions: 2, MeanPeer: 2, Low: 2 - 3*t975df1, High: 2 + 3*t975df1, Estimate: 4.0 / 32},
		},
		{
			// Mean 4, s = √((6² + (−8)² + 2²)/2) = √52, half width
			// 4.302653·√52/√3 ≈ 17.9128; estimate 12 / (30 + 2.5).
			"three questions", []float64{10, -4, 6}, []float64{1, 0.5, 1},
			scoring.Skill{Questions: 3, MeanPeer: 4, Low: 4 - t975df2*math.Sqrt(52)/math.Sqrt(3),
				High: 4 + t975df2*math.Sqrt(52)/math.Sqrt(3), Estimate: 12 / 32.5},
		},
		{
			// No spread: the interval is the mean alone.
			"all the same", []float64{-2.5, -2.5, -2.5, -2.5}, []float64{1, 1, 1, 1},
			scoring.Skill{Questions: 4, MeanPeer: -2.5, Low: -2.5, High: -2.5, Estimate: -10.0 / 34},
		},
		{
			// Coverage 0 (present for no time) adds a question but no
			// evidence to the estimate: 6 / 30.
			"no coverage", []float64{6}, []float64{0},
			scoring.Skill{Questions: 1, MeanPeer: 6, Low: 6, High: 6, Estimate: 6.0 / 30},
		},
	}
	approx := cmpopts.EquateApprox(0, 1e-12)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scoring.SkillOf(tt.peers, tt.coverages)
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("SkillOf(%v, %v) (-want +got):\n%s", tt.peers, tt.coverages, diff)
			}
			var sum, sq, cov float64
			for i, p := range tt.peers {
				sum, sq, cov = sum+p, sq+p*p, cov+tt.coverages[i]
			}
			fromSums := scoring.SkillFromSums(len(tt.peers), sum, sq, cov)
			if diff := cmp.Diff(tt.want, fromSums, approx); diff != "" {
				t.Errorf("SkillFromSums(%d, %v, %v, %v) (-want +got):\n%s", len(tt.peers), sum, sq, cov, diff)
			}
			if got.HasInterval() != (len(tt.peers) >= 2) {
				t.Errorf("HasInterval() = %v with %d questions", got.HasInterval(), len(tt.peers))
			}
		})
	}
}

// Rounding in Σp² − n·mean² can make the variance of equal scores a hair
// below 0; it counts as 0, never as NaN.
func TestSkillFromSumsNoNegativeVariance(t *testing.T) {
	peers := []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}
	s := scoring.SkillOf(peers, make([]float64, len(peers)))
	if math.IsNaN(s.Low) || math.IsNaN(s.High) || s.Low > s.MeanPeer || s.High < s.MeanPeer || s.High-s.Low > 1e-6 {
		t.Errorf("SkillOf(%v) = %+v, want an interval of width about 0 around 0.1", peers, s)
	}
	if s := scoring.SkillFromSums(0, 5, 25, 1); s != (scoring.Skill{}) {
		t.Errorf("SkillFromSums(0, ...) = %+v, want the zero Skill", s)
	}
}

func TestRanked(t *testing.T) {
	for n, want := range map[int]bool{0: false, 1: false, scoring.MinRanked - 1: false, scoring.MinRanked: true, 50: true} {
		if got := scoring.SkillFromSums(n, 0, 0, 0).Ranked(); got != want {
			t.Errorf("Ranked() with %d questions = %v, want %v", n, got, want)
		}
	}
}

func TestTrust(t *testing.T) {
	// trust = 0.5 + 0.5·e/(|e| + 10).
	for _, tt := range []struct{ e, want float64 }{
		{0, 0.5},
		{scoring.TrustScale, 0.75},
		{-scoring.TrustScale, 0.25},
		{30, 0.5 + 0.5*30/40},   // 0.875
		{-90, 0.5 - 0.5*90/100}, // 0.05
	} {
		if got := scoring.Trust(tt.e); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("Trust(%v) = %v, want %v", tt.e, got, tt.want)
		}
	}
	// Increasing and strictly inside (0, 1) over every estimate a peer
	// score can give (at most about 690 points a question) and beyond.
	prev := 0.0
	for e := -1e6; e <= 1e6; e += 97.3 {
		got := scoring.Trust(e)
		if !(got > 0 && got < 1) || got <= prev {
			t.Fatalf("Trust(%v) = %v after %v: want increasing, within (0, 1)", e, got, prev)
		}
		prev = got
	}
}
