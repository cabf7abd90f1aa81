package loadbench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
)

// A real-size board has the shape of PredictionBook's resolved questions
// (docs/BENCHMARKS.md): about 8 forecasts a question, forecasters whose
// activity has a heavy tail (a few make most forecasts), yes/no outcomes,
// questions spread over years; one question in the middle has
// realBigForecasters forecasters, and realOpen open questions at the end
// take the forecast writes.
const (
	realBigForecasters = 200
	realOpen           = forecastTargets
	realMinForecasts   = 3  // forecasts of a resolved question: 3 to 13, mean 8
	realMaxForecasts   = 13 //
	realVersion        = "v1"
	realChunk          = 2000 // questions per imported file
	realSpanDays       = 8 * 365
	realQuestionDays   = 60
)

// realStart is when the first generated question opens.
var realStart = time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC)

// realForecasters is the number of forecasters of a board of n resolved
// questions: one for every 5 questions (10,000 for 50,000), and at least
// realBigForecasters.
func realForecasters(n int) int { return max(n/5, realBigForecasters) }

// realBigID is the id of the question with realBigForecasters forecasters
// on a board of n questions.
func realBigID(n int) string { return realID(n / 2) }

func realID(i int) string { return fmt.Sprintf("rb-%d", i) }

// realOpenID is the id of open question j.
func realOpenID(j int) string { return fmt.Sprintf("rb-open-%d", j) }

// realAgent is the id of forecaster f: the write scenario's agents
// (agent-0 …) are the board's forecasters, agent-0 the most active.
func realAgent(f int) string { return fmt.Sprintf("agent-%d", f) }

// writeRealQuestions writes questions from..to-1 of a board of n resolved
// questions (indices n and up are the open ones) as a forecast file. Each
// question is drawn from a generator seeded by its index alone, so that
// the same question reads the same whatever the chunk it is written in.
func writeRealQuestions(w io.Writer, n, from, to int) error {
	var b bytes.Buffer
	b.WriteString("---\npredictions: 1\nupdated: 2026-11-28\n---\n\n")
	domains := board.Domains()
	forecasters := realForecasters(n)
	step := time.Duration(realSpanDays) * 24 * time.Hour / time.Duration(max(n, 1))
	for i := from; i < to; i++ {
		r := rand.New(rand.NewPCG(0x5eed, uint64(i)))
		// Zipf: forecaster 0 is the most active, and activity falls off
		// as a power of the rank, as on PredictionBook.
		zipf := rand.NewZipf(r, 1.1, 4, uint64(forecasters-1))
		domain := domains[min(int(r.ExpFloat64()*2.5), len(domains)-1)]
		open := i >= n
		var id string
		var opens, closes time.Time
		var who []int
		if open {
			id = realOpenID(i - n)
			opens, closes = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i-n)*time.Minute), time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			who = distinct(zipf, realMinForecasts)
		} else {
			id = realID(i)
			opens = realStart.Add(time.Duration(i) * step)
			closes = opens.Add(realQuestionDays * 24 * time.Hour)
			k := realMinForecasts + r.IntN(realMaxForecasts-realMinForecasts+1)
			if id == realBigID(n) {
				who = make([]int, realBigForecasters)
				for f := range who {
					who[f] = f
				}
				r.Shuffle(len(who), func(a, c int) { who[a], who[c] = who[c], who[a] })
			} else {
				who = distinct(zipf, k)
			}
		}
		yes := r.Float64() < 0.45
		fmt.Fprintf(&b, "# Generated question %d: will it happen?\n\n- id: %s\n- resolves: yes if generated question %d happens\n",
			i, id, i)
		fmt.Fprintf(&b, "- resolve_by: %s\n- tags: %s\n- opens_at: %s\n- close_at: %s\n", closes.Format(time.DateOnly), domain,
			opens.Format(time.DateTime), closes.Format(time.DateTime))
		if open {
			b.WriteString("- status: open\n")
		} else {
			fmt.Fprintf(&b, "- status: resolved\n- outcome: %s\n- closed_at: %s\n", map[bool]string{true: "yes", false: "no"}[yes], closes.Format(time.DateTime))
		}
		b.WriteString("\n## Forecasts\n\n")
		gap := realQuestionDays * 24 * time.Hour / time.Duration(len(who)+1)
		if open {
			gap = time.Hour
		}
		for j, f := range who {
			// A forecaster leans toward the outcome by its own skill (from
			// 0 to 0.6, fixed per forecaster), with noise.
			skill := 0.6 * math.Mod(float64(f)*0.6180339887, 1)
			p := 0.5 + skill*map[bool]float64{true: 0.5, false: -0.5}[yes] + 0.25*(r.Float64()-0.5)
			pct := min(99, max(1, int(math.Round(p*100))))
			at := opens.Add(time.Duration(j) * gap)
			fmt.Fprintf(&b, "- %s · agent:%s · %d%%\n", at.Format(time.DateTime), realAgent(f), pct)
		}
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// distinct draws k distinct forecasters from z.
func distinct(z *rand.Zipf, k int) []int {
	seen := map[int]bool{}
	out := make([]int, 0, k)
	for len(out) < k {
		f := int(z.Uint64())
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// importReal builds a board of n resolved questions and realOpen open
// ones at path through the board's own import (boardfile.Import, so that
// scores, skills and pools are the board's arithmetic), in files of
// realChunk questions. progress, when set, is called after each file.
func importReal(ctx context.Context, path string, n int, progress func(done int)) error {
	s, err := board.Open(ctx, path, board.Options{})
	if err != nil {
		return err
	}
	total := n + realOpen
	for from := 0; from < total; from += realChunk {
		to := min(total, from+realChunk)
		var f bytes.Buffer
		if err := writeRealQuestions(&f, n, from, to); err != nil {
			s.Close()
			return err
		}
		if _, err := boardfile.Import(ctx, s, &f); err != nil {
			s.Close()
			return fmt.Errorf("importing generated questions %d to %d: %w", from, to, err)
		}
		if progress != nil {
			progress(to)
		}
	}
	return s.Close()
}
