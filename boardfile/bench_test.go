package boardfile_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardfile"
)

// crowdFile is a forecast file of one question forecast once by each of n
// forecasters, a second apart from 2026-01-01, resolved yes at
// closed_at when resolved is true: the shape whose import used to grow
// with the square of n (each forecast pooled every standing one again).
func crowdFile(n int, resolved bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\npredictions: 1\nupdated: 2026-02-01\n---\n\n# Crowd of %d\n\n- id: crowd-%d\n- resolves: the crowd says so\n- resolve_by: 2026-01-31\n- opens_at: 2026-01-01 00:00\n- close_at: 2026-01-31 00:00\n", n, n)
	if resolved {
		b.WriteString("- status: resolved\n- closed_at: 2026-01-30 00:00\n- outcome: yes\n")
	} else {
		b.WriteString("- status: open\n")
	}
	b.WriteString("\n## Forecasts\n\n")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Second)
		fmt.Fprintf(&b, "- %s · agent:f%05d · %d%%\n", at.Format("2006-01-02 15:04:05"), i, 5+(i*37)%91)
	}
	return b.Bytes()
}

type benchBackend struct {
	name string
	dsn  func(tb testing.TB) string // a new, empty board
}

// benchBackends are SQLite in a temporary directory and, when pgEnv is
// set, a PostgreSQL database of its own.
func benchBackends() []benchBackend {
	bs := []benchBackend{{"sqlite", func(tb testing.TB) string { return tb.TempDir() + "/board.db" }}}
	if os.Getenv(pgEnv) != "" {
		bs = append(bs, benchBackend{"postgres", func(tb testing.TB) string { return boardtest.Postgres(tb, os.Getenv(pgEnv)) }})
	}
	return bs
}

// BenchmarkImportCrowd imports one question with 1,000, 4,000 and 16,000
// forecasters, open and resolved, into a new board each time, on SQLite
// and, when PREDICTIONS_TEST_POSTGRES is set, on PostgreSQL. ns/forecast
// is the cost of one forecast line: linear imports keep it flat as n
// grows.
func BenchmarkImportCrowd(b *testing.B) {
	bs := benchBackends()
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	for _, be := range bs {
		for _, resolved := range []bool{false, true} {
			for _, n := range []int{1000, 4000, 16000} {
				file := crowdFile(n, resolved)
				state := map[bool]string{false: "open", true: "resolved"}[resolved]
				b.Run(fmt.Sprintf("%s/%s/forecasters=%d", be.name, state, n), func(b *testing.B) {
					ctx := context.Background()
					for b.Loop() {
						b.StopTimer()
						s, err := board.Open(ctx, be.dsn(b), board.Options{Now: now})
						if err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						res, err := boardfile.Import(ctx, s, bytes.NewReader(file))
						b.StopTimer()
						if err != nil {
							b.Fatal(err)
						}
						if res.Forecasts != n {
							b.Fatalf("Import stored %d forecasts, want %d", res.Forecasts, n)
						}
						s.Close()
						b.StartTimer()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/forecast")
				})
			}
		}
	}
}

// BenchmarkImportBesideWrites imports a file while another writer posts
// predictions in the same domain as fast as it can, and reports the
// longest any one post took (max-post-ms) and how many went through
// (posts): one question of 16,000 forecasters (a transaction of its own)
// and 8 questions of 2,000 (a transaction each). A post waits for the
// batch being written, not for the whole file.
func BenchmarkImportBesideWrites(b *testing.B) {
	bs := benchBackends()
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	var eight []string
	for i := range 8 {
		eight = append(eight, crowdQuestion(fmt.Sprintf("q%d", i), "resolved", crowdLines(2000, 2000)))
	}
	files := []struct {
		name string
		doc  []byte
	}{
		{"1x16000", crowdFile(16000, true)},
		{"8x2000", []byte(crowdDoc(eight...))},
	}
	for _, be := range bs {
		for _, f := range files {
			b.Run(be.name+"/"+f.name, func(b *testing.B) {
				ctx := context.Background()
				var worst time.Duration
				posts := 0
				for b.Loop() {
					b.StopTimer()
					s, err := board.Open(ctx, be.dsn(b), board.Options{Now: now})
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					done := make(chan struct{})
					waits := make(chan []time.Duration)
					go func() {
						var ws []time.Duration
						for i := 0; ; i++ {
							select {
							case <-done:
								waits <- ws
								return
							default:
							}
							c := 0.6
							t0 := time.Now()
							if _, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "poster", Title: fmt.Sprintf("Post %d", i),
								Body: "A post beside the import.", Confidence: &c, Timeframe: "2026", Domain: "Other"}); err != nil {
								b.Error(err)
							}
							ws = append(ws, time.Since(t0))
						}
					}()
					if _, err := boardfile.Import(ctx, s, bytes.NewReader(f.doc)); err != nil {
						b.Fatal(err)
					}
					close(done)
					ws := <-waits
					b.StopTimer()
					posts += len(ws)
					for _, w := range ws {
						worst = max(worst, w)
					}
					s.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(worst.Microseconds())/1000, "max-post-ms")
				b.ReportMetric(float64(posts)/float64(b.N), "posts")
			})
		}
	}
}
