package evaluate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
)

// Defaults of [Options].
const (
	// DefaultResamples is the number of bootstrap resamples used when
	// [Options.Resamples] is 0.
	DefaultResamples = 2000
	// SeedStream is the second word of the bootstrap's PCG state, next to
	// [Options.Seed]; fixed, so that a seed names one sequence.
	SeedStream = 0x9e3779b97f4a7c15
)

// Errors returned by [Run]; test with errors.Is.
var (
	ErrWarmup      = errors.New("evaluate: warmup must be a fraction from 0 up to but not including 1")
	ErrResamples   = errors.New("evaluate: resamples must be 0 (the default) or more")
	ErrNoQuestions = errors.New("evaluate: no question to evaluate: give resolved yes/no questions with forecasts made before they closed")
)

// Options tune [Run]. The zero value evaluates every question with
// [DefaultResamples] resamples and seed 0.
type Options struct {
	// Warmup is the fraction F of the questions, the earliest by actual
	// close, that only feed the forecasters' skills: the first ⌊F·n⌋ of
	// the n questions replayed are not scored. From 0 up to but not
	// including 1.
	Warmup float64
	// Resamples is the number of bootstrap resamples; 0 means
	// [DefaultResamples].
	Resamples int
	// Seed seeds the bootstrap's PCG generator (math/rand/v2, with
	// [SeedStream]); a seed gives the same intervals on every run.
	Seed uint64
}

// Validate returns the error [Run] would return for these options: an
// error wrapping [ErrWarmup] or [ErrResamples], or nil.
func (o Options) Validate() error {
	if !(o.Warmup >= 0 && o.Warmup < 1) {
		return fmt.Errorf("%w: got %v; try 0.5", ErrWarmup, o.Warmup)
	}
	if o.Resamples < 0 {
		return fmt.Errorf("%w: got %d; try %d", ErrResamples, o.Resamples, DefaultResamples)
	}
	return nil
}

// Report is the result of [Run]. It marshals as JSON and prints as text
// ([Report.WriteText]).
type Report struct {
	// Questions is the number of questions replayed: resolved yes or no,
	// with a known actual close and at least one forecast before it.
	Questions int `json:"questions"`
	// Warmup is [Options.Warmup]; WarmupQuestions = ⌊Warmup · Questions⌋,
	// the earliest questions by actual close, which only fed skills.
	Warmup          float64 `json:"warmup"`
	WarmupQuestions int     `json:"warmup_questions"`
	// Evaluated is the number of questions scored: Questions −
	// WarmupQuestions. From and To are the actual closes of the first and
	// last of them.
	Evaluated int       `json:"evaluated"`
	From      time.Time `json:"from"`
	To        time.Time `json:"to"`
	// Forecasts is the number of forecasts replayed on the evaluated
	// questions: one community forecast by each pool after each.
	Forecasts int `json:"forecasts"`
	// Skipped counts what was not replayed.
	Skipped Skipped `json:"skipped"`
	// Resamples and Seed are the bootstrap's.
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`
	// Pools has one row per method of [pool.Methods], in that order.
	Pools []PoolResult `json:"pools"`
}

// Skipped counts the questions and forecast lines [Run] leaves out.
type Skipped struct {
	// Questions left out: void; open (or without a readable status);
	// resolved without a yes or no outcome; resolved yes or no but with
	// nothing that says when they closed (no resolve_by, close_at or
	// closed_at); resolved with no forecast before the actual close.
	Void        int `json:"void"`
	Open        int `json:"open"`
	NoOutcome   int `json:"no_outcome"`
	NoClose     int `json:"no_close"`
	NoForecasts int `json:"no_forecasts"`
	// Late counts the forecasts on questions resolved yes or no made at or
	// after the actual close, when the question no longer took forecasts.
	Late int `json:"late_forecasts"`
	// Unreadable counts the forecast lines, on any question, that could not
	// be read completely (rule-2 findings of `predictions check`).
	Unreadable int `json:"unreadable_forecasts"`
}

// PoolResult is one pool's mean scores over the evaluated questions and
// its gains over the median and over recency.
type PoolResult struct {
	Method pool.Method `json:"method"`
	Scores Scores      `json:"scores"`
	// OverMedian and OverRecency compare this pool with [pool.Median] and
	// [pool.Recency] on the same questions (0 against itself).
	OverMedian  Gains `json:"over_median"`
	OverRecency Gains `json:"over_recency"`
}

// Scores are the mean scores of a pool's community forecast over the
// evaluated questions. Log: the natural log of the probability given to
// the outcome, p clipped to [scoring.ClipLow, scoring.ClipHigh] (0 best,
// higher is better; scoring.Log). Brier: (p − outcome)² (0 best, lower is
// better; scoring.Brier). At the close: the community after the
// question's last forecast. Time-averaged: each community value weighted
// by the time it stood, from its forecast to the next forecast or the
// actual close, over [first forecast, actual close].
type Scores struct {
	LogClose     float64 `json:"log_close"`
	LogAverage   float64 `json:"log_time_averaged"`
	BrierClose   float64 `json:"brier_close"`
	BrierAverage float64 `json:"brier_time_averaged"`
}

// Gains are a pool's gains over a reference pool, one per score of
// [Scores]. A gain is nil (JSON null) when the reference's mean score is
// 0, which only a reference with a perfect Brier score on every question
// has.
type Gains struct {
	LogClose     *Gain `json:"log_close"`
	LogAverage   *Gain `json:"log_time_averaged"`
	BrierClose   *Gain `json:"brier_close"`
	BrierAverage *Gain `json:"brier_time_averaged"`
}

// Gain is how much better a pool scores than a reference, in percent of
// the reference's mean score: (mean − ref)/|ref| · 100 for the log score,
// (ref − mean)/|ref| · 100 for the Brier score, so that positive is better
// for both. Low and High bound its paired bootstrap 95% percentile
// interval: the questions are resampled with replacement, every pool
// scored on the same resample, and the gain of each resample computed;
// Low and High are the ⌊0.025·B⌋-th smallest and largest of the B gains
// (counting from 0; Efron and Tibshirani 1993, "An Introduction to the
// Bootstrap", ch. 13). A resample on which the reference's mean is 0 has
// no gain and is left out.
type Gain struct {
	Percent float64 `json:"percent"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
}

// The scores of a community forecast on one question, in the order of
// [Scores]; sign says which way is better.
const (
	logClose = iota
	logAverage
	brierClose
	brierAverage
	nScores
)

var sign = [nScores]float64{logClose: 1, logAverage: 1, brierClose: -1, brierAverage: -1}

// Run replays the forecast files in time order and scores every pool of
// [pool.Methods] as a community forecast on each question.
//
// The questions are the resolved yes/no questions of all files, with
// their life from [forecastfile.Question.Life] (open, scheduled close,
// actual close); a question's resolution is known from its actual close
// on. A question's forecasts are the readable ones made before its actual
// close (the board takes none from the close on), in time order, equal
// times in file order.
//
// Skill: every question gives each of its forecasters Metaculus's peer
// score and coverage ([scoring.TimeAveraged]), recorded in a
// [scoring.History] at the question's actual close (a forecaster with
// zero coverage, which Metaculus does not score, is not recorded). A
// forecaster's skill at a moment t is the Estimate that
// [scoring.History.At] gives at t: only questions closed strictly before
// t count.
//
// Replay: on each question, after each forecast, the standing forecasts
// (each forecaster's latest, with At its time and Skill its skill at the
// moment of that forecast) are pooled once by [pool.Combine], which gives
// every method. Each pool's community forecasts are scored as [Scores]
// says, and the questions after the warmup ([Options.Warmup]) are
// averaged, each counting once. Gains and their intervals are as [Gain]
// says.
//
// Errors: [ErrWarmup] or [ErrResamples] (wrapped, with the value) for bad
// options, [ErrNoQuestions] when no question can be replayed (with a
// warmup below 1, at least one question is always evaluated).
func Run(files []*forecastfile.File, opt Options) (*Report, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	resamples := opt.Resamples
	if resamples == 0 {
		resamples = DefaultResamples
	}
	qs, skipped := gather(files)
	var h scoring.History
	for _, q := range qs {
		if err := q.feed(&h); err != nil {
			return nil, err
		}
	}
	warm := int(math.Floor(opt.Warmup * float64(len(qs))))
	eval := qs[warm:]
	if len(eval) == 0 {
		return nil, ErrNoQuestions
	}
	methods := pool.Methods()
	rows := make([][]float64, len(eval))
	rep := &Report{
		Questions: len(qs), Warmup: opt.Warmup, WarmupQuestions: warm, Evaluated: len(eval),
		From: eval[0].life.ActualClose, To: eval[len(eval)-1].life.ActualClose,
		Skipped: skipped, Resamples: resamples, Seed: opt.Seed,
	}
	for i, q := range eval {
		row, err := q.replay(&h, methods)
		if err != nil {
			return nil, err
		}
		rows[i] = row
		rep.Forecasts += len(q.fs)
	}
	means := mean(rows)
	over := bootstrap(rows, []int{slices.Index(methods, pool.Median), slices.Index(methods, pool.Recency)}, resamples, opt.Seed)
	for k, m := range methods {
		var s [nScores]float64
		copy(s[:], means[k*nScores:])
		rep.Pools = append(rep.Pools, PoolResult{
			Method:      m,
			Scores:      Scores{LogClose: s[logClose], LogAverage: s[logAverage], BrierClose: s[brierClose], BrierAverage: s[brierAverage]},
			OverMedian:  gainsOf(over[0][k]),
			OverRecency: gainsOf(over[1][k]),
		})
	}
	return rep, nil
}

func gainsOf(g [nScores]*Gain) Gains {
	return Gains{LogClose: g[logClose], LogAverage: g[logAverage], BrierClose: g[brierClose], BrierAverage: g[brierAverage]}
}

// mean returns the column means of rows (at least one row).
func mean(rows [][]float64) []float64 {
	m := make([]float64, len(rows[0]))
	for _, r := range rows {
		for j, v := range r {
			m[j] += v
		}
	}
	for j := range m {
		m[j] /= float64(len(rows))
	}
	return m
}
