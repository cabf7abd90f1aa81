package evaluate_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/evaluate"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/scoring"
)

// genForecast and genQuestion are a generated question, as the oracle
// sees it.
type genForecast struct {
	who  string
	pct  int // as the file writes it
	p    float64
	at   time.Time
	line int // position in the file's list
}

type genQuestion struct {
	id                  string
	yes                 bool
	open, closes, early time.Time // early: the actual close
	fs                  []genForecast
}

// generate makes n questions by six forecasters on whole minutes, with
// forecasts before the open, at the same minute, at 0% and 100%, and at
// or after the actual close, and questions resolved early. It returns
// the questions and their forecast file.
func generate(seed uint64, n int) ([]genQuestion, string) {
	r := rand.New(rand.NewPCG(seed, 7))
	pcts := []int{0, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 100}
	minute := func(m int) time.Duration { return time.Duration(m) * time.Minute }
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	b.WriteString("---\npredictions: 2\n---\n\n")
	var qs []genQuestion
	for i := range n {
		q := genQuestion{id: fmt.Sprintf("q%d", i), yes: r.IntN(2) == 0}
		q.open = t0.Add(minute(i*3*24*60 + r.IntN(2000)))
		life := 60 + r.IntN(10*24*60)
		q.closes = q.open.Add(minute(life))
		q.early = q.closes
		if r.IntN(3) == 0 {
			q.early = q.open.Add(minute(r.IntN(life)))
		}
		span := int(q.early.Sub(q.open)/time.Minute) + 90
		var at time.Time
		for j := range 1 + r.IntN(8) {
			if j == 0 || r.IntN(5) > 0 { // else the same minute as the last
				at = q.open.Add(minute(r.IntN(span) - 60))
			}
			pct := pcts[r.IntN(len(pcts))]
			q.fs = append(q.fs, genForecast{who: fmt.Sprintf("agent:f%d", r.IntN(6)), pct: pct, p: float64(pct) / 100, at: at, line: j})
		}
		outcome := map[bool]string{true: "yes", false: "no"}[q.yes]
		fmt.Fprintf(&b, "# %s\n\n- id: %s\n- resolves: yes\n- status: resolved\n- outcome: %s\n- opens_at: %s\n- close_at: %s\n- closed_at: %s\n\n## Forecasts\n\n",
			q.id, q.id, outcome, forecastfile.FormatTime(q.open), forecastfile.FormatTime(q.closes), forecastfile.FormatTime(q.early))
		for _, f := range q.fs {
			fmt.Fprintf(&b, "- %s · %s · %d%%\n", forecastfile.FormatTime(f.at), f.who, f.pct)
		}
		b.WriteString("\n")
		qs = append(qs, q)
	}
	return qs, b.String()
}

// oracle scores the generated questions by the rules of evaluate.Run,
// written out plainly: the standing set rebuilt from scratch after each
// forecast, the pools from their formulas, skills summed from the
// per-question scores, and each time average by sampling the step
// function in the middle of every minute of the question's window.
func oracle(t *testing.T, qs []genQuestion, warmup float64) map[pool.Method]evaluate.Scores {
	type scored struct {
		who       string
		at        time.Time
		peer, cov float64
	}
	var history []scored
	var kept []genQuestion
	for _, q := range qs {
		var fs []genForecast
		for _, f := range q.fs {
			if f.at.Before(q.early) {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			continue
		}
		slices.SortFunc(fs, func(a, b genForecast) int { return cmp.Or(a.at.Compare(b.at), a.line-b.line) })
		q.fs = fs
		kept = append(kept, q)
		var tf []scoring.TimedForecast
		for _, f := range fs {
			tf = append(tf, scoring.TimedForecast{Who: f.who, P: f.p, At: f.at})
		}
		ts, err := scoring.TimeAveraged(tf, scoring.Life{Open: q.open, Close: q.closes, ActualClose: q.early}, q.yes)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ts {
			history = append(history, scored{s.Who, q.early, s.Peer, s.Coverage})
		}
	}
	skill := func(who string, at time.Time) float64 {
		var peer, cov float64
		for _, h := range history {
			if h.who == who && h.at.Before(at) {
				peer += h.peer
				cov += h.cov
			}
		}
		return peer / (scoring.SkillPrior + cov)
	}
	slices.SortStableFunc(kept, func(a, b genQuestion) int { return a.early.Compare(b.early) })
	kept = kept[int(warmup*float64(len(kept))):]

	sums := map[pool.Method]*evaluate.Scores{}
	for _, m := range pool.Methods() {
		sums[m] = &evaluate.Scores{}
	}
	for _, q := range kept {
		// community[m][i]: pool m after forecast i.
		community := map[pool.Method][]float64{}
		for i, f := range q.fs {
			latest := map[string]int{}
			for j := range i + 1 {
				latest[q.fs[j].who] = j
			}
			var idx []int
			for _, j := range latest {
				idx = append(idx, j)
			}
			slices.Sort(idx) // time order, ties in file order
			var ps, skills []float64
			for _, j := range idx {
				ps = append(ps, q.fs[j].p)
				skills = append(skills, skill(q.fs[j].who, f.at))
			}
			for m, p := range naivePools(ps, skills) {
				community[m] = append(community[m], p)
			}
		}
		logOf := func(p float64) float64 {
			p = min(max(p, 0.001), 0.999)
			if q.yes {
				return math.Log(p)
			}
			return math.Log(1 - p)
		}
		brierOf := func(p float64) float64 {
			if q.yes {
				return (1 - p) * (1 - p)
			}
			return p * p
		}
		first := q.fs[0].at
		minutes := int(q.early.Sub(first) / time.Minute)
		for m, cs := range community {
			last := cs[len(cs)-1]
			s := sums[m]
			s.LogClose += logOf(last)
			s.BrierClose += brierOf(last)
			var la, ba float64
			for k := range minutes {
				mid := first.Add(time.Duration(k)*time.Minute + 30*time.Second)
				i := 0
				for i+1 < len(q.fs) && q.fs[i+1].at.Before(mid) {
					i++
				}
				la += logOf(cs[i])
				ba += brierOf(cs[i])
			}
			s.LogAverage += la / float64(minutes)
			s.BrierAverage += ba / float64(minutes)
		}
	}
	out := map[pool.Method]evaluate.Scores{}
	for m, s := range sums {
		n := float64(len(kept))
		out[m] = evaluate.Scores{LogClose: s.LogClose / n, LogAverage: s.LogAverage / n, BrierClose: s.BrierClose / n, BrierAverage: s.BrierAverage / n}
	}
	return out
}

// naivePools pools the standing forecasts ps (in time order) of
// forecasters with the given skills by each pool's formula.
func naivePools(ps, skills []float64) map[pool.Method]float64 {
	n := len(ps)
	clip := func(p float64) float64 { return min(max(p, 0.001), 0.999) }
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	recency := make([]float64, n) // Metaculus: e^(√k − √n), k from 1; none for n ≤ 2
	var geo, mean float64
	for k, p := range ps {
		if n > 2 {
			recency[k] = math.Sqrt(float64(k+1)) - math.Sqrt(float64(n))
		}
		geo += logit(clip(p)) / float64(n)
		mean += p / float64(n)
	}
	sorted := slices.Sorted(slices.Values(ps))
	median := (sorted[(n-1)/2] + sorted[n/2]) / 2
	// Weighted median, Metaculus's rule: the mean of the first value whose
	// cumulative weight reaches half and the first that passes it.
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	var total float64
	for _, r := range recency {
		total += math.Exp(r)
	}
	var cum float64
	lo, hi := -1, -1
	for _, k := range order {
		cum += math.Exp(recency[k])
		if lo < 0 && cum >= total/2*(1-1e-12) {
			lo = k
		}
		if hi < 0 && cum > total/2*(1+1e-12) {
			hi = k
		}
	}
	var sw, sl float64
	for k, p := range ps {
		w := math.Exp(recency[k] + pool.SkillBeta*skills[k]/100)
		sw += w
		sl += w * logit(clip(p))
	}
	ext := 1.0
	if n >= pool.SkillExtremizeMin {
		ext = pool.SkillExtremize
	}
	return map[pool.Method]float64{
		pool.GeoOdds: logistic(geo),
		pool.Mean:    mean,
		pool.Median:  median,
		pool.Recency: (ps[lo] + ps[hi]) / 2,
		pool.Skill:   logistic(ext * sl / sw),
	}
}

// TestRunOracle compares Run with the oracle on generated questions.
func TestRunOracle(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		qs, text := generate(seed, 40)
		for _, warmup := range []float64{0, 0.5} {
			t.Run(fmt.Sprintf("seed %d warmup %v", seed, warmup), func(t *testing.T) {
				rep := mustRun(t, evaluate.Options{Warmup: warmup, Resamples: 10}, text)
				want := oracle(t, qs, warmup)
				if diff := gocmp.Diff(want, scoresOf(rep), cmpopts.EquateApprox(1e-9, 1e-12)); diff != "" {
					t.Errorf("Run scores (-oracle +got):\n%s", diff)
				}
				// The gains' point estimates follow from the means.
				wantGains := map[pool.Method][2][4]float64{}
				for m, s := range want {
					var g [2][4]float64
					for i, ref := range []evaluate.Scores{want[pool.Median], want[pool.Recency]} {
						g[i] = [4]float64{
							(s.LogClose - ref.LogClose) / math.Abs(ref.LogClose) * 100,
							(s.LogAverage - ref.LogAverage) / math.Abs(ref.LogAverage) * 100,
							(ref.BrierClose - s.BrierClose) / ref.BrierClose * 100,
							(ref.BrierAverage - s.BrierAverage) / ref.BrierAverage * 100,
						}
					}
					wantGains[m] = g
				}
				if diff := gocmp.Diff(wantGains, percents(rep), cmpopts.EquateApprox(1e-8, 1e-9)); diff != "" {
					t.Errorf("Run gains (-oracle +got):\n%s", diff)
				}
			})
		}
	}
}
