package scoring

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Limits and constants of the scores.
const (
	// DefaultBins is the number of calibration bins used when
	// [Options.Bins] (or the bins argument) is 0.
	DefaultBins = 10

	// MaxBins is the largest number of calibration bins accepted; it keeps
	// the memory used by a calibration table small whatever the input.
	MaxBins = 1000

	// ClipLow and ClipHigh bound the probability used by the log score,
	// so that a forecast of 0 or 1 on the wrong side scores ln 0.001
	// instead of minus infinity. The Brier score and the calibration table
	// use the probability as given.
	ClipLow  = 0.001
	ClipHigh = 0.999
)

// Forecast is one resolved yes/no forecast: the probability P (from 0 to
// 1) that Who gave to "yes", and whether the question resolved yes.
type Forecast struct {
	Who     string  `json:"who,omitempty"`
	P       float64 `json:"p"`
	Outcome bool    `json:"outcome"`
}

// Options tunes [Score]. The zero value is ready to use.
type Options struct {
	// Bins is the number of equal-width calibration bins, from 1 to
	// [MaxBins]; 0 means [DefaultBins]. The HTTP and MCP tools allow 2 to 20.
	Bins int
	// RightClosed puts a forecast on an inner edge into the bin below it,
	// g[i] < p ≤ g[i+1] (p = 0 in the first bin), the convention of
	// scikit-learn's calibration_curve. The default is left-closed,
	// g[i] ≤ p < g[i+1] (p = 1 in the last bin).
	RightClosed bool
}

// Result is the outcome of [Score]: the scores over all forecasts and the
// same scores for each forecaster.
type Result struct {
	// Bins is the number of calibration bins used.
	Bins int `json:"bins"`
	// Overall scores every forecast together.
	Overall Summary `json:"overall"`
	// Forecasters scores each forecaster's forecasts, sorted by Who in
	// byte order. Forecasts with an empty Who form the group "".
	Forecasters []Forecaster `json:"forecasters"`
}

// Forecaster is the [Summary] of one forecaster's forecasts. In JSON the
// summary's fields sit next to "who".
type Forecaster struct {
	Who string `json:"who"`
	Summary
}

// Summary holds every score of a group of resolved forecasts. No field is
// ever NaN or infinite.
type Summary struct {
	// N is the number of forecasts and Yes how many resolved yes.
	N   int `json:"n"`
	Yes int `json:"yes"`
	// Brier is the mean squared difference between forecast and outcome
	// (0 best, 1 worst).
	Brier float64 `json:"brier"`
	// LogScore is the mean natural logarithm of the probability given to
	// what happened (0 best, always ≤ 0), with p clipped to
	// [ClipLow, ClipHigh]; LogScoreBits is the same in bits (log base 2).
	LogScore     float64 `json:"log_score"`
	LogScoreBits float64 `json:"log_score_bits"`
	// Clipped counts the forecasts whose p was clipped for the log score.
	Clipped int `json:"clipped"`
	// BaseRate is the share of forecasts that resolved yes.
	BaseRate float64 `json:"base_rate"`
	// BrierSkill is 1 − Brier / (BaseRate × (1 − BaseRate)): above 0 is
	// better than always forecasting the base rate. It is nil (JSON null),
	// with a note, when every outcome is the same.
	BrierSkill *float64 `json:"brier_skill"`
	// Calibration has one row per bin, empty bins included.
	Calibration []Bin `json:"calibration"`
	// Murphy splits Brier into its parts, see [Murphy].
	Murphy Murphy `json:"murphy"`
	// Notes says what was clipped or left out, in plain words. Never nil.
	Notes []string `json:"notes"`
}

// Bin is one row of a calibration table: the forecasts with Lo ≤ p < Hi
// (Lo ≤ p ≤ 1 in the last bin). MeanForecast and ObservedFrequency are nil
// (JSON null) when Count is 0.
type Bin struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Count int     `json:"count"`
	// Yes is how many of the bin's forecasts resolved yes.
	Yes int `json:"yes"`
	// MeanForecast is the mean p in the bin.
	MeanForecast *float64 `json:"mean_forecast"`
	// ObservedFrequency is Yes / Count.
	ObservedFrequency *float64 `json:"observed_frequency"`
}

// Murphy is the decomposition of the Brier score over the calibration bins
// (Murphy 1973, with the two within-bin terms of Stephenson, Coelho and
// Jolliffe 2008):
//
//	Brier = Reliability − Resolution + Uncertainty
//	      + WithinBinVariance − WithinBinCovariance
//
// The identity is exact (up to rounding). When all forecasts in each bin
// are equal, for example when forecasters use only a few values such as
// 10%, 20%, …, both within-bin terms are 0 and Murphy's three-term identity
// holds exactly.
type Murphy struct {
	// Reliability is the mean squared gap between each bin's mean forecast
	// and its observed frequency, weighted by count (0 best).
	Reliability float64 `json:"reliability"`
	// Resolution is the weighted mean squared gap between each bin's
	// observed frequency and the base rate (higher is better).
	Resolution float64 `json:"resolution"`
	// Uncertainty is BaseRate × (1 − BaseRate).
	Uncertainty float64 `json:"uncertainty"`
	// WithinBinVariance is the mean squared gap between each forecast and
	// its bin's mean forecast.
	WithinBinVariance float64 `json:"within_bin_variance"`
	// WithinBinCovariance is twice the mean, over forecasts, of
	// (p − bin mean forecast) × (outcome − bin observed frequency).
	WithinBinCovariance float64 `json:"within_bin_covariance"`
}

// binAcc accumulates one calibration bin. The sums are of d = p − c, where
// c is the first p seen in the bin: shifting keeps the within-bin variance
// accurate (no cancellation of two large sums) and makes the within-bin
// terms exactly 0 when every p in the bin is the same.
type binAcc struct {
	n     int
	yes   int
	c     float64 // shift: the first p added
	sumD  float64 // Σ d
	sumD2 float64 // Σ d²
	sumDY float64 // Σ d over the forecasts that resolved yes
}

// acc accumulates one group of forecasts in a single pass.
type acc struct {
	n, yes, clipped int
	sq              float64 // Σ (p − o)²
	logSum          float64 // Σ ln(probability given to what happened), clipped
	bins            []binAcc
}

// grid holds the bin edges, so that a bin is chosen by the very numbers
// reported as its Lo and Hi.
type grid []float64

func newGrid(k int) grid {
	g := make(grid, k+1)
	for i := range g {
		g[i] = float64(i) / float64(k)
	}
	return g
}

// index returns the bin of p (p in [0, 1]): g[i] ≤ p < g[i+1], with p = 1
// in the last bin.
func (g grid) index(p float64) int {
	k := len(g) - 1
	i := int(p * float64(k))
	if i >= k {
		return k - 1
	}
	// p*k may round across an edge; one step corrects it.
	if p < g[i] {
		i--
	} else if i < k-1 && p >= g[i+1] {
		i++
	}
	return i
}

// bin is index, or with right the right-closed bin: g[i] < p ≤ g[i+1],
// with p = 0 in the first bin.
func (g grid) bin(p float64, right bool) int {
	i := g.index(p)
	if right && i > 0 && p == g[i] {
		i--
	}
	return i
}

// add scores one validated forecast into a, in bin b.
func (a *acc) add(p float64, yes bool, b int) {
	o := 0.0
	if yes {
		o = 1
	}
	d := p - o
	a.sq += d * d
	c := p
	if c < ClipLow {
		c, a.clipped = ClipLow, a.clipped+1
	} else if c > ClipHigh {
		c, a.clipped = ClipHigh, a.clipped+1
	}
	if !yes {
		c = 1 - c
	}
	a.logSum += math.Log(c)
	a.n++
	bin := &a.bins[b]
	if bin.n == 0 {
		bin.c = p
	}
	bin.n++
	d = p - bin.c
	bin.sumD += d
	bin.sumD2 += d * d
	if yes {
		a.yes++
		bin.yes++
		bin.sumDY += d
	}
}

// merge adds the sums of b into a (same number of bins).
func (a *acc) merge(b *acc) {
	a.n += b.n
	a.yes += b.yes
	a.clipped += b.clipped
	a.sq += b.sq
	a.logSum += b.logSum
	for i := range a.bins {
		x, y := &a.bins[i], &b.bins[i]
		switch {
		case y.n == 0:
			continue
		case x.n == 0:
			*x = *y
			continue
		}
		// Move y's sums to x's shift: d' = d + δ.
		δ, n := y.c-x.c, float64(y.n)
		x.sumD2 += y.sumD2 + 2*δ*y.sumD + n*δ*δ
		x.sumD += y.sumD + n*δ
		x.sumDY += y.sumDY + float64(y.yes)*δ
		x.n += y.n
		x.yes += y.yes
	}
}

// Score scores resolved forecasts overall and per forecaster in one pass
// over fs. It returns [ErrBins] (wrapped) for a bad opt.Bins, [ErrEmpty]
// when fs is empty, and a [*ForecastError] wrapping [ErrProbability] for
// the first forecast whose P is NaN or outside [0, 1].
//
// Time is O(len(fs)) plus sorting the forecasters; memory is
// O(forecasters × bins), whatever the number of forecasts.
func Score(fs []Forecast, opt Options) (*Result, error) {
	k, err := binsFor(opt.Bins)
	if err != nil {
		return nil, err
	}
	if len(fs) == 0 {
		return nil, ErrEmpty
	}
	g := newGrid(k)

	// One accumulator per forecaster; the overall one is their sum.
	index := make(map[string]int)
	var accs []acc
	var whos []string
	last, cur := "", -1
	for i, f := range fs {
		if err := check(i, f); err != nil {
			return nil, err
		}
		if cur < 0 || f.Who != last {
			j, ok := index[f.Who]
			if !ok {
				j = len(accs)
				index[f.Who] = j
				accs = append(accs, acc{bins: make([]binAcc, k)})
				whos = append(whos, f.Who)
			}
			last, cur = f.Who, j
		}
		accs[cur].add(f.P, f.Outcome, g.bin(f.P, opt.RightClosed))
	}

	order := make([]int, len(accs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(whos[a], whos[b]) })

	all := acc{bins: make([]binAcc, k)}
	res := &Result{Bins: k, Forecasters: make([]Forecaster, len(accs))}
	for n, j := range order {
		all.merge(&accs[j])
		res.Forecasters[n] = Forecaster{Who: whos[j], Summary: summarize(&accs[j], g)}
	}
	res.Overall = summarize(&all, g)
	return res, nil
}

// summarize turns the sums of a non-empty group into its scores.
func summarize(a *acc, g grid) Summary {
	n := float64(a.n)
	s := Summary{
		N:        a.n,
		Yes:      a.yes,
		Brier:    a.sq / n,
		LogScore: a.logSum / n,
		Clipped:  a.clipped,
		BaseRate: float64(a.yes) / n,
		Notes:    []string{},
	}
	s.LogScoreBits = s.LogScore / math.Ln2
	s.Calibration, s.Murphy = table(a, g)
	if a.clipped > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf(
			"log score: %d of %d forecasts were below %g%% or above %g%% and were clipped to that range (a forecast of 0%% or 100%% on the wrong side would score minus infinity); the Brier score and calibration use them as given",
			a.clipped, a.n, ClipLow*100, ClipHigh*100))
	}
	switch a.yes {
	case 0, a.n:
		what := "no"
		if a.yes == a.n {
			what = "yes"
		}
		s.Notes = append(s.Notes, fmt.Sprintf(
			"brier_skill is null: every outcome is %s, so always forecasting the base rate scores a perfect 0 and there is nothing to compare against", what))
	default:
		skill := 1 - s.Brier/(s.BaseRate*(1-s.BaseRate))
		s.BrierSkill = &skill
	}
	return s
}

// table builds the calibration rows and the Murphy decomposition of a.
func table(a *acc, g grid) ([]Bin, Murphy) {
	n := float64(a.n)
	obar := float64(a.yes) / n
	rows := make([]Bin, len(a.bins))
	means := make([]float64, 2*len(a.bins)) // backing store for the row pointers
	var m Murphy
	for i, b := range a.bins {
		rows[i] = Bin{Lo: g[i], Hi: g[i+1], Count: b.n, Yes: b.yes}
		if b.n == 0 {
			continue
		}
		nk := float64(b.n)
		dk := b.sumD / nk // mean of d, so p̄_k = c + dk
		pk := b.c + dk
		ok := float64(b.yes) / nk
		means[2*i], means[2*i+1] = pk, ok
		rows[i].MeanForecast, rows[i].ObservedFrequency = &means[2*i], &means[2*i+1]
		m.Reliability += nk * (pk - ok) * (pk - ok)
		m.Resolution += nk * (ok - obar) * (ok - obar)
		// Σ (p − p̄)² = Σ d² − n d̄²; Σ (p − p̄)(o − ō) = Σ_yes d − ō Σ d.
		m.WithinBinVariance += max(b.sumD2-b.sumD*dk, 0) // rounding can dip below 0
		m.WithinBinCovariance += 2 * (b.sumDY - b.sumD*ok)
	}
	m.Reliability /= n
	m.Resolution /= n
	m.Uncertainty = obar * (1 - obar)
	m.WithinBinVariance /= n
	m.WithinBinCovariance = m.WithinBinCovariance/n + 0 // no -0 in JSON
	return rows, m
}
