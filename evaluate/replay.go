package evaluate

import (
	"fmt"
	"slices"
	"time"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
)

// question is a resolved yes/no question ready to replay.
type question struct {
	id   string
	yes  bool
	life scoring.Life
	// fs are the readable forecasts made before the actual close, in time
	// order, equal times in file order.
	fs []scoring.TimedForecast
}

// gather returns the questions of files to replay, in order of actual
// close (equal closes in file order, files in the order given), and what
// it left out.
func gather(files []*forecastfile.File) ([]question, Skipped) {
	var qs []question
	var sk Skipped
	for _, f := range files {
		for i := range f.Questions {
			fq := &f.Questions[i]
			for _, fc := range fq.Forecasts {
				if !fc.OK() {
					sk.Unreadable++
				}
			}
			switch {
			case fq.Status == forecastfile.StatusVoid:
				sk.Void++
				continue
			case fq.Status != forecastfile.StatusResolved:
				sk.Open++
				continue
			case fq.Outcome != forecastfile.OutcomeYes && fq.Outcome != forecastfile.OutcomeNo:
				sk.NoOutcome++
				continue
			}
			open, closes, actual, _ := fq.Life()
			if actual.IsZero() {
				sk.NoClose++
				continue
			}
			q := question{id: fq.ID, yes: fq.Outcome == forecastfile.OutcomeYes,
				life: scoring.Life{Open: open, Close: closes, ActualClose: actual}}
			for _, fc := range fq.Forecasts {
				if !fc.OK() {
					continue
				}
				if at := fc.At(); at.Before(actual) {
					q.fs = append(q.fs, scoring.TimedForecast{Who: fc.Who, P: fc.P, At: at})
				} else {
					sk.Late++
				}
			}
			if len(q.fs) == 0 {
				sk.NoForecasts++
				continue
			}
			slices.SortStableFunc(q.fs, func(a, b scoring.TimedForecast) int { return a.At.Compare(b.At) })
			qs = append(qs, q)
		}
	}
	slices.SortStableFunc(qs, func(a, b question) int { return a.life.ActualClose.Compare(b.life.ActualClose) })
	return qs, sk
}

// feed records q's forecasters' peer scores and coverages in h at q's
// actual close.
func (q question) feed(h *scoring.History) error {
	ts, err := scoring.TimeAveraged(q.fs, q.life, q.yes)
	if err != nil {
		return fmt.Errorf("evaluate: question %s: %w", q.id, err)
	}
	for _, t := range ts {
		if t.Coverage > 0 {
			h.Add(t.Who, q.life.ActualClose, t.Peer, t.Coverage)
		}
	}
	return nil
}

// replay pools q's standing forecasts after each forecast by every method
// and returns each method's scores: nScores values per method, in the
// order of methods.
func (q question) replay(h *scoring.History, methods []pool.Method) ([]float64, error) {
	// standing holds each forecaster's latest forecast, in the order of
	// their times (equal times in replay order): a new forecast moves its
	// forecaster to the end.
	var standing []pool.Forecast
	community := make([][]float64, len(methods)) // per method, after each forecast
	for _, f := range q.fs {
		standing = slices.DeleteFunc(standing, func(s pool.Forecast) bool { return s.Who == f.Who })
		standing = append(standing, pool.Forecast{Who: f.Who, P: f.P, At: f.At})
		for i := range standing {
			// |Estimate| < 690 < pool.MaxSkill: a peer score is at most
			// 100·ln(0.999/0.001) per unit of coverage.
			standing[i].Skill = new(h.At(standing[i].Who, f.At).Estimate)
		}
		res, err := pool.Combine(standing, pool.Options{})
		if err != nil {
			return nil, fmt.Errorf("evaluate: question %s: %w", q.id, err)
		}
		for k, m := range methods {
			p, err := pooled(res, m)
			if err != nil {
				return nil, err
			}
			community[k] = append(community[k], p)
		}
	}
	row := make([]float64, 0, len(methods)*nScores)
	for _, cs := range community {
		s, err := q.score(cs)
		if err != nil {
			return nil, err
		}
		row = append(row, s[:]...)
	}
	return row, nil
}

// score scores the community forecasts cs, one after each of q's
// forecasts: at the close (the last) and time-averaged over [first
// forecast, actual close].
func (q question) score(cs []float64) ([nScores]float64, error) {
	var s [nScores]float64
	logs, briers := make([]float64, len(cs)), make([]float64, len(cs))
	for i, p := range cs {
		one := []scoring.Forecast{{P: p, Outcome: q.yes}}
		var err error
		if logs[i], _, err = scoring.Log(one); err != nil {
			return s, fmt.Errorf("evaluate: question %s: %w", q.id, err)
		}
		if briers[i], err = scoring.Brier(one); err != nil {
			return s, fmt.Errorf("evaluate: question %s: %w", q.id, err)
		}
	}
	last := len(cs) - 1
	s[logClose], s[brierClose] = logs[last], briers[last]
	end := q.life.ActualClose
	total := seconds(q.fs[0].At, end)
	if total <= 0 {
		// A question of zero length counts its close value. Forecasts
		// are taken only before the actual close, so this is a guard.
		s[logAverage], s[brierAverage] = logs[last], briers[last]
		return s, nil
	}
	for i := range cs {
		to := end
		if i < last {
			to = q.fs[i+1].At
		}
		w := seconds(q.fs[i].At, to) / total
		s[logAverage] += w * logs[i]
		s[brierAverage] += w * briers[i]
	}
	return s, nil
}

// pooled returns the community forecast of method m in r.
func pooled(r pool.Result, m pool.Method) (float64, error) {
	switch m {
	case pool.GeoOdds:
		return r.GeoOdds, nil
	case pool.Mean:
		return r.Mean, nil
	case pool.Median:
		return r.Median, nil
	case pool.Recency:
		return r.Recency, nil
	case pool.Skill:
		return r.Skill, nil
	}
	return 0, fmt.Errorf("evaluate: no community value for pool method %q", m)
}

// seconds returns b − a in seconds, without the overflow of
// time.Duration past 292 years.
func seconds(a, b time.Time) float64 {
	return float64(b.Unix()-a.Unix()) + float64(b.Nanosecond()-a.Nanosecond())/1e9
}
