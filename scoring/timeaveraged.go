package scoring

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// ErrLife is returned (wrapped, with the detail) by [TimeAveraged] when the
// question's life lacks its open or its actual close time.
var ErrLife = errors.New("scoring: the question's life needs its open time and its actual close time")

// TimedForecast is one forecast on a binary question: who gave it, the probability of yes, and when.
type TimedForecast struct {
	Who string
	P   float64
	At  time.Time
}

// Life is when a question took forecasts.
type Life struct {
	Open        time.Time // forecasting opens (the board: the question's creation)
	Close       time.Time // the scheduled close; zero: the question has none and is scored as if it closed on schedule at ActualClose
	ActualClose time.Time // when forecasting actually stopped: Close, or earlier when resolved early
}

// TimeScore is one forecaster's time-averaged scores on a resolved binary question.
type TimeScore struct {
	Who      string
	Baseline float64
	Peer     float64
	Coverage float64
}

// TimeAveraged returns Metaculus's time-averaged baseline and peer scores
// of every forecaster on a binary question with the given life that
// resolved yes (yes true) or no, exactly as Metaculus computes them
// (scoring/score_math.py in the Metaculus repository: get_geometric_means,
// evaluate_forecasts_baseline_accuracy, evaluate_forecasts_peer_accuracy,
// evaluate_question; and https://www.metaculus.com/help/scores-faq/).
//
// Each forecast stands from its At until its forecaster's next forecast,
// or until the actual close. Forecasts are taken in At order, forecasts
// at the same time in the order of fs (fs need not be sorted; it is not
// modified). p is first limited to [ClipLow, ClipHigh], as Metaculus
// limits binary forecasts to [0.1%, 99.9%]; q is the probability given to
// what happened: p if yes, 1 − p if no. With T = Close − Open (ActualClose
// − Open when Close is zero):
//
//   - Baseline_i = Σ over i's forecasts of 100 · log2(2q) · d / T, d the
//     time the forecast stood within [Open, ActualClose].
//   - Peer_i = Σ over the moments t between one forecast time and the next
//     (or ActualClose) at which i has a standing forecast of
//     100 · N/(N−1) · ln(q_i / G) · d / T: the N forecasters present at t
//     are those with a standing forecast, G is the geometric mean of
//     their q, and the term is 0 when N = 1 (Metaculus counts a lone
//     forecaster as none). The peer scores of the forecasters present sum
//     to zero at every moment. ln(q_i / G) is computed as
//     ln q_i − mean(ln q), the same number with less rounding.
//   - Coverage_i = (time i had a standing forecast within [Open,
//     ActualClose]) / T.
//
// A forecast before Open counts from Open; time after ActualClose does
// not count; an ActualClose after Close is taken as Close. So a question
// resolved early scores only up to its actual close but is still divided
// by its scheduled length: coverage is then below 1.
//
// The result has one TimeScore per forecaster, in order of first forecast.
// A forecaster with zero coverage (for example one whose only forecast is
// at the actual close) gets 0, 0 and 0: Metaculus stores no score for it.
// When ActualClose is not after Open every score is 0 with coverage 0.
// No result is NaN or infinite.
//
// Errors: a *[ForecastError] wrapping [ErrProbability] for the first
// forecast whose P is NaN or outside [0, 1] (its index in fs); an error
// wrapping [ErrLife] when life.Open or life.ActualClose is zero.
func TimeAveraged(fs []TimedForecast, life Life, yes bool) ([]TimeScore, error) {
	if life.Open.IsZero() || life.ActualClose.IsZero() {
		return nil, fmt.Errorf("%w: open %v, actual close %v; give both (the zero time means none)", ErrLife, life.Open, life.ActualClose)
	}
	for i, f := range fs {
		if !(f.P >= 0 && f.P <= 1) { // also catches NaN
			return nil, &ForecastError{Index: i, Who: f.Who, P: f.P, Err: ErrProbability}
		}
	}
	order := make([]int, len(fs))
	for i := range order {
		order[i] = i
	}
	// Stable: equal times keep the order of fs.
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(fs[a].At.Compare(fs[b].At), cmp.Compare(a, b)) })

	open, end := life.Open, life.ActualClose
	if !life.Close.IsZero() && end.After(life.Close) {
		end = life.Close
	}
	total := seconds(open, cmp.Or(life.Close, life.ActualClose))
	sw := sweep{idx: map[string]int{}}
	if !end.After(open) || total <= 0 {
		for _, i := range order {
			sw.who(fs[i].Who)
		}
		return sw.out, nil
	}
	// Positions are fractions of T from Open, so that the running
	// integrals stay of the size of the scores.
	at := func(t time.Time) float64 { return seconds(open, t) / total }
	for _, i := range order {
		f := fs[i]
		k := sw.who(f.Who)
		if !f.At.Before(end) {
			continue // stands for no time: no score
		}
		t := f.At
		if t.Before(open) {
			t = open
		}
		sw.set(k, at(t), outcomeProb(f.P, yes))
	}
	sw.advance(at(end))
	for k := range sw.state {
		if sw.state[k].present {
			sw.close(k)
		}
	}
	return sw.out, nil
}

// seconds returns b − a in seconds, without the overflow of time.Duration.
func seconds(a, b time.Time) float64 {
	return float64(b.Unix()-a.Unix()) + float64(b.Nanosecond()-a.Nanosecond())/1e9
}

// outcomeProb is the probability p gave to what happened, limited to
// [ClipLow, ClipHigh].
func outcomeProb(p float64, yes bool) float64 {
	p = min(max(p, ClipLow), ClipHigh)
	if yes {
		return p
	}
	return 1 - p
}

// sweep integrates the scores over the life, one forecast at a time.
// For the peer score it keeps two running integrals over time x (in
// fractions of T): a = ∫ c(N) dx and b = ∫ c(N) · mean(ln q) dx, with
// c(N) = 100 · N/(N−1) (0 when N < 2). A forecast standing from x0 to x1
// with ln q = l then adds l · (a(x1) − a(x0)) − (b(x1) − b(x0)) to its
// forecaster's peer score, so the work per forecast is constant.
type sweep struct {
	idx   map[string]int
	out   []TimeScore
	state []standing

	x    float64 // the position integrated up to
	n    int     // forecasters present
	sumL float64 // Σ ln q over the forecasters present
	a, b float64
}

// standing is a forecaster's standing forecast.
type standing struct {
	present bool
	l, base float64 // ln q, and the baseline score of q
	x0      float64 // where it started to stand
	a0, b0  float64 // a and b at x0
}

// who returns the index of a forecaster, adding it on its first forecast.
func (s *sweep) who(w string) int {
	k, ok := s.idx[w]
	if !ok {
		k = len(s.out)
		s.idx[w] = k
		s.out = append(s.out, TimeScore{Who: w})
		s.state = append(s.state, standing{})
	}
	return k
}

// advance integrates up to x with the forecasters present now.
func (s *sweep) advance(x float64) {
	if d := x - s.x; d > 0 && s.n > 1 {
		c := 100 * float64(s.n) / float64(s.n-1)
		s.a += c * d
		s.b += c * s.sumL / float64(s.n) * d
	}
	s.x = max(s.x, x)
}

// set makes q, given at x, forecaster k's standing forecast.
func (s *sweep) set(k int, x, q float64) {
	s.advance(x)
	st := &s.state[k]
	l := math.Log(q)
	if st.present {
		s.close(k)
		s.sumL += l - st.l
	} else {
		s.n++
		s.sumL += l
	}
	*st = standing{present: true, l: l, base: 100 * math.Log2(2*q), x0: s.x, a0: s.a, b0: s.b}
}

// close adds forecaster k's standing forecast, from its start up to the
// current position, to its scores.
func (s *sweep) close(k int) {
	st, o := &s.state[k], &s.out[k]
	d := s.x - st.x0
	o.Baseline += st.base * d
	o.Coverage += d
	o.Peer += st.l*(s.a-st.a0) - (s.b - st.b0)
}
