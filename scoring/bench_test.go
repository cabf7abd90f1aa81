package scoring_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/predictions-md/predictions/scoring"
)

const benchN = 1_000_000

// benchData returns n forecasts from the given number of forecasters
// (assigned at random, the harder case for grouping), with outcomes drawn
// at the forecast probability.
func benchData(n, forecasters int) []scoring.Forecast {
	r := rand.New(rand.NewPCG(1, 2))
	whos := make([]string, forecasters)
	for i := range whos {
		whos[i] = fmt.Sprintf("agent:%03d", i)
	}
	fs := make([]scoring.Forecast, n)
	for i := range fs {
		p := r.Float64()
		fs[i] = scoring.Forecast{Who: whos[r.IntN(forecasters)], P: p, Outcome: r.Float64() < p}
	}
	return fs
}

var sink float64

// BenchmarkBaseline is a bare loop computing the mean squared error over
// the same data: the floor the other figures are read against.
func BenchmarkBaseline(b *testing.B) {
	fs := benchData(benchN, 1)
	b.ReportAllocs()
	for b.Loop() {
		var sum float64
		for _, f := range fs {
			o := 0.0
			if f.Outcome {
				o = 1
			}
			d := f.P - o
			sum += d * d
		}
		sink = sum / float64(len(fs))
	}
}

func BenchmarkScore(b *testing.B) {
	for _, forecasters := range []int{1, 100} {
		b.Run(fmt.Sprintf("forecasters=%d", forecasters), func(b *testing.B) {
			fs := benchData(benchN, forecasters)
			b.ReportAllocs()
			for b.Loop() {
				res, err := scoring.Score(fs, scoring.Options{})
				if err != nil {
					b.Fatal(err)
				}
				sink = res.Overall.Brier
			}
		})
	}
}

func BenchmarkBrier(b *testing.B) {
	fs := benchData(benchN, 1)
	b.ReportAllocs()
	for b.Loop() {
		v, err := scoring.Brier(fs)
		if err != nil {
			b.Fatal(err)
		}
		sink = v
	}
}

// BenchmarkTimeAveraged: 1,000 forecasts by 100 forecasters on one
// question, resolved early.
func BenchmarkTimeAveraged(b *testing.B) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(5, 6))
	fs := make([]scoring.TimedForecast, 1000)
	for i := range fs {
		fs[i] = scoring.TimedForecast{Who: fmt.Sprint("agent-", r.IntN(100)), P: r.Float64(), At: start.Add(time.Duration(r.IntN(1000)) * time.Minute)}
	}
	life := scoring.Life{Open: start, Close: start.Add(1000 * time.Minute), ActualClose: start.Add(900 * time.Minute)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scoring.TimeAveraged(fs, life, true); err != nil {
			b.Fatal(err)
		}
	}
}
