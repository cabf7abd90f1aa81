package loadbench

import (
	"testing"

	"github.com/predictions-md/predictions/odds"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/tools"
	"github.com/predictions-md/predictions/scoring"
)

// BenchmarkReference is the floor of two tool scenarios of
// BenchmarkInProcess, measured in the same run: the same body decoded by
// the tools' decoder and handed to the domain package, with no HTTP, no
// validation and no answer written. The goals (docs/BENCHMARKS.md) hold
// score_forecasts within 3× and check_forecast_md within 1.5× of these.
//
//	go test ./internal/loadbench -run '^$' -bench 'InProcess|Reference' -benchmem
func BenchmarkReference(b *testing.B) {
	b.Run("score_forecasts-decode+Score", func(b *testing.B) {
		body := scoreBody()
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			var in struct {
				Forecasts []struct {
					Who     string        `json:"who"`
					P       tools.Prob    `json:"p"`
					Outcome tools.Outcome `json:"outcome"`
				} `json:"forecasts"`
				Bins int `json:"bins"`
			}
			if _, err := tools.Decode(body, &in, nil); err != nil {
				b.Fatal(err)
			}
			sent := make([]odds.Sent, len(in.Forecasts))
			for i, f := range in.Forecasts {
				sent[i] = f.P.Sent()
			}
			rs, _, err := odds.ReadGroup(sent, func(int) string { return "p" })
			if err != nil {
				b.Fatal(err)
			}
			fs := make([]scoring.Forecast, len(in.Forecasts))
			for i, f := range in.Forecasts {
				o, err := f.Outcome.Read()
				if err != nil {
					b.Fatal(err)
				}
				fs[i] = scoring.Forecast{Who: f.Who, P: rs[i].P, Outcome: o}
			}
			if _, err := scoring.Score(fs, scoring.Options{Bins: max(in.Bins, scoring.DefaultBins)}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("check_forecast_md-Parse+Report", func(b *testing.B) {
		var in struct {
			Text  string `json:"text"`
			Today string `json:"today"`
		}
		if _, err := tools.Decode(checkBody(), &in, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			f, err := forecastfile.Parse([]byte(in.Text))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Report(forecastfile.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	})
}
