package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
)

// crowdForecasters and crowdEach size the crowded question: a resolved
// question of 200 forecasters, each of whom forecast it 3 times, the
// size at which a page that lists every row costs more than it reads.
const crowdForecasters, crowdEach = 200, 3

// seedCrowdQuestion puts a question on f's board that n agents
// (crowd-001, crowd-002, …) forecast each times in turns, a minute
// apart, and that then resolves yes; person, when not "", is a
// signed-in person's id that forecasts last, so that their rows come
// after every agent's in the history and the standing table. It returns
// the question's id. The question is written as an import writes it, in
// one Store.Load (each forecast pooled and the resolution scored as
// Forecast and Resolve would), which costs a fraction of 400 writes.
func seedCrowdQuestion(tb testing.TB, f *fixture, n, each int, person string) string {
	tb.Helper()
	start := f.clock.Now()
	id := fmt.Sprintf("crowded-%d", start.Unix())
	at := start
	next := func() time.Time { at = at.Add(time.Minute); return at }
	q := board.LoadQuestion{ID: id, OpensAt: next(),
		Prediction: board.NewPrediction{AgentID: "crowd-host", AgentName: "Crowd Host",
			Title: "Crowded question resolves yes", Body: "Many forecasters.", Confidence: ptr(0.5), Timeframe: "by 2027", Domain: "Science"},
		Outcome: board.OutcomeYes}
	q.Forecasts = append(q.Forecasts, board.LoadForecast{NewForecast: board.NewForecast{AgentID: "crowd-host", AgentName: "Crowd Host", P: json.RawMessage(`0.5`)}, At: at})
	for round := range each {
		for i := range n {
			v := float64((i*37+round*11)%97+2) / 100
			q.Forecasts = append(q.Forecasts, board.LoadForecast{NewForecast: board.NewForecast{AgentID: fmt.Sprintf("crowd-%03d", i+1), AgentName: fmt.Sprintf("Crowd forecaster %03d", i+1),
				P: json.RawMessage(fmt.Sprint(v)), Note: fmt.Sprintf("round %d", round+1)}, At: next()})
		}
	}
	if person != "" {
		// A poor forecast: the person's score row falls below the cut too.
		q.Forecasts = append(q.Forecasts, board.LoadForecast{NewForecast: board.NewForecast{AgentID: person, P: json.RawMessage(`0.03`), Kind: board.KindPerson}, At: next()})
	}
	q.ClosedAt = at.Add(time.Hour)
	f.clock.Advance(q.ClosedAt.Sub(start))
	if _, err := f.store.Load(context.Background(), []board.LoadQuestion{q}); err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return id
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkQuestionPageCrowd reads the page of a resolved question of
// 200 forecasters, with 3 forecasts each and with 1, signed out and
// signed in (the person forecast it too), at the server on SQLite. It
// reports the CPU time a page costs (cpu-ms/op, the process's: the
// page's work and the database's), steadier than the time on a shared
// machine, and the page's size (kB/op).
func BenchmarkQuestionPageCrowd(b *testing.B) {
	for _, each := range []int{crowdEach, 1} {
		ps, cookie := benchSite(b)
		q := "/predictions/" + seedCrowdQuestion(b, ps.fixture, crowdForecasters, each, "ada")
		for _, c := range []struct {
			name   string
			cookie *http.Cookie
		}{{"signed-out", nil}, {"signed-in", cookie}} {
			b.Run(fmt.Sprintf("%dx%d/%s", crowdForecasters, each, c.name), func(b *testing.B) {
				size := len(pageBody(b, ps, q, c.cookie))
				c0 := cpuTime(b)
				for b.Loop() {
					page(b, ps, q, c.cookie)
				}
				b.ReportMetric(float64((cpuTime(b)-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(size)/1000, "kB/op")
			})
		}
	}
}
