package scoring

import (
	"math"
	"slices"
	"sort"
	"time"
)

// SkillPrior is the prior weight, in questions of full coverage, that a
// skill estimate needs to outweigh before it moves far from 0: Metaculus's
// reputation, Σ peer / (30 + Σ coverage) (Metaculus, "Scores FAQ",
// reputation of a forecaster; Metaculus/metaculus
// scoring/reputation.py).
const SkillPrior = 30.0

// MinRanked is the fewest scored questions a forecaster needs to be ranked
// on a leaderboard; below it the interval of its mean peer score is too
// wide to order it among others (with 10 questions the 95% interval is
// still ±0.72 standard deviations of one question's peer score).
const MinRanked = 10

// TrustScale is the skill, in peer-score points per question, at which the
// trust score is 0.75 (see [Trust]).
const TrustScale = 10.0

// Skill is what a forecaster's scored questions say about how well it
// forecasts compared with the others on the same questions: Metaculus's
// peer score (see [TimeAveraged]) per question.
type Skill struct {
	// Questions is the number of scored questions.
	Questions int `json:"questions"`
	// MeanPeer is the mean peer score per scored question; 0 for none.
	MeanPeer float64 `json:"mean_peer"`
	// Low and High bound the 95% interval of the mean peer score: the
	// Student t interval over questions, MeanPeer ± t(0.975, n−1) · s/√n,
	// s the sample standard deviation. With fewer than 2 questions
	// there is no interval and both equal MeanPeer; [Skill.HasInterval]
	// tells.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Estimate is the shrunk skill, Σ peer / ([SkillPrior] + Σ coverage):
	// 0 with no evidence, near MeanPeer after many questions of full
	// coverage. Leaderboards rank by it, the [Trust] score is made of it
	// and the skill pool of package pool weights by it.
	Estimate float64 `json:"estimate"`
}

// HasInterval reports whether Low and High bound an interval: at least 2
// scored questions.
func (s Skill) HasInterval() bool { return s.Questions >= 2 }

// Ranked reports whether the forecaster has the [MinRanked] scored
// questions a leaderboard needs to rank it.
func (s Skill) Ranked() bool { return s.Questions >= MinRanked }

// SkillOf returns the skill of a forecaster from its peer scores and
// coverages on scored questions (equal lengths; the coverages are those
// [TimeAveraged] gives, in [0, 1]).
func SkillOf(peers, coverages []float64) Skill {
	var sum, sq, cov float64
	for i, p := range peers {
		sum += p
		sq += p * p
		cov += coverages[i]
	}
	return SkillFromSums(len(peers), sum, sq, cov)
}

// SkillFromSums returns the skill from running sums over n scored
// questions: of the peer scores, of their squares and of the coverages.
// It is what a store that keeps the sums computes; [SkillOf] calls it.
func SkillFromSums(n int, peerSum, peerSquares, coverageSum float64) Skill {
	if n <= 0 {
		return Skill{}
	}
	m := peerSum / float64(n)
	s := Skill{Questions: n, MeanPeer: m, Low: m, High: m, Estimate: peerSum / (SkillPrior + coverageSum)}
	if n >= 2 {
		v := max((peerSquares-float64(n)*m*m)/float64(n-1), 0)
		h := tQuantile975(n-1) * math.Sqrt(v/float64(n))
		s.Low, s.High = m-h, m+h
	}
	return s
}

// Trust maps a skill estimate to a score in (0, 1), 0.5 for no evidence
// or no better than the others on the same questions:
//
//	trust = 0.5 + 0.5 · e / (|e| + TrustScale)
//
// e the [Skill.Estimate]. It rises with skill, reaches 0.75 at e =
// [TrustScale], and never reaches 0 or 1. Because a peer score compares a
// forecaster with the others on the same question, forecasting only
// questions whose answer everyone knows earns about nothing.
func Trust(estimate float64) float64 {
	return 0.5 + 0.5*estimate/(math.Abs(estimate)+TrustScale)
}

// t975 holds t(0.975, df) for df 1 to 9 (the 97.5th percentile of
// Student's t distribution).
var t975 = [...]float64{12.706204736174707, 4.302652729749464, 3.1824463052837078, 2.7764451051977934,
	2.5705818356363146, 2.4469118511449692, 2.3646242515927844, 2.3060041352041662, 2.2621571628540993}

// tQuantile975 is t(0.975, df): the table for df below 10, then the
// Cornish–Fisher expansion (Abramowitz and Stegun 26.7.5), within 1e-5
// from df = 10 on.
func tQuantile975(df int) float64 {
	if df <= len(t975) {
		return t975[df-1]
	}
	const z = 1.959963984540054
	v := float64(df)
	z2 := z * z
	g1 := z * (z2 + 1) / 4
	g2 := z * ((5*z2+16)*z2 + 3) / 96
	g3 := z * (((3*z2+19)*z2+17)*z2 - 15) / 384
	g4 := z * ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) / 92160
	return z + g1/v + g2/(v*v) + g3/(v*v*v) + g4/(v*v*v*v)
}

// History is the record of scored questions of many forecasters, to
// answer what was known of a forecaster's skill at a moment: [History.At]
// counts only the questions whose resolution was recorded before it. The
// zero value is empty and ready to use; a History is not safe for
// concurrent use.
type History struct {
	by map[string]*record
}

// record is one forecaster's scored questions in resolution order, with
// running sums filled on demand, after those summed in base.
type record struct {
	base            sums
	at              []time.Time
	peer, cov       []float64
	sum, sq, covSum []float64 // running sums; nil when stale
}

// sums are running sums over n scored questions.
type sums struct {
	n             int
	peer, sq, cov float64
}

// Add records a scored question of who: resolved at at, with its peer
// score and coverage. Questions may be added in any order.
func (h *History) Add(who string, at time.Time, peer, coverage float64) {
	if h.by == nil {
		h.by = map[string]*record{}
	}
	r := h.by[who]
	if r == nil {
		r = &record{}
		h.by[who] = r
	}
	i := sort.Search(len(r.at), func(i int) bool { return r.at[i].After(at) })
	r.at = slices.Insert(r.at, i, at)
	r.peer = slices.Insert(r.peer, i, peer)
	r.cov = slices.Insert(r.cov, i, coverage)
	r.sum = nil
}

// AddEarlier records n scored questions of who resolved before every
// question given to [History.Add], by their sums: of the peer scores,
// of their squares and of the coverages. A store that keeps running sums
// gives those of the questions resolved before the earliest moment it
// will ask [History.At] about, and adds the later ones one by one, so
// that it reads only those. Sums given again are added to those given.
func (h *History) AddEarlier(who string, n int, peerSum, peerSquares, coverageSum float64) {
	if h.by == nil {
		h.by = map[string]*record{}
	}
	r := h.by[who]
	if r == nil {
		r = &record{}
		h.by[who] = r
	}
	r.base.n += n
	r.base.peer += peerSum
	r.base.sq += peerSquares
	r.base.cov += coverageSum
	r.sum = nil
}

// At returns who's skill from the questions resolved strictly before t
// (with those given to [History.AddEarlier]).
func (h *History) At(who string, t time.Time) Skill {
	r := h.by[who]
	if r == nil {
		return Skill{}
	}
	if r.sum == nil {
		r.sum, r.sq, r.covSum = make([]float64, len(r.at)), make([]float64, len(r.at)), make([]float64, len(r.at))
		s, q, c := r.base.peer, r.base.sq, r.base.cov
		for i := range r.at {
			s, q, c = s+r.peer[i], q+r.peer[i]*r.peer[i], c+r.cov[i]
			r.sum[i], r.sq[i], r.covSum[i] = s, q, c
		}
	}
	n := sort.Search(len(r.at), func(i int) bool { return !r.at[i].Before(t) })
	if n == 0 {
		return SkillFromSums(r.base.n, r.base.peer, r.base.sq, r.base.cov)
	}
	return SkillFromSums(r.base.n+n, r.sum[n-1], r.sq[n-1], r.covSum[n-1])
}
