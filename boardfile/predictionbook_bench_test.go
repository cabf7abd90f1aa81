package boardfile_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
)

// pbDirEnv names the directory of PredictionBook's forecast files
// (early-0.md, early-1.md); without it the benchmark reads
// ../../shared/data/predictionbook, the shared data beside a checkout,
// and skips when neither holds them. The files stay out of the
// repository: the dump they come from carries no licence of its own.
const pbDirEnv = "PREDICTIONS_PREDICTIONBOOK"

// predictionBook reads PredictionBook's files, or skips.
func predictionBook(tb testing.TB) (early0, early1 []byte) {
	tb.Helper()
	dir := os.Getenv(pbDirEnv)
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data", "predictionbook")
	}
	var files [2][]byte
	for i := range files {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("early-%d.md", i)))
		if err != nil {
			tb.Skipf("PredictionBook's files are not here (set %s to their directory): %v", pbDirEnv, err)
		}
		files[i] = b
	}
	return files[0], files[1]
}

// renamed is file with every question id given the prefix p and every
// time moved years earlier (a multiple of 4 keeps 29 February a date): the same questions and forecasters, new to a
// board that has file.
func renamed(file []byte, p string, years int) []byte {
	out := bytes.ReplaceAll(file, []byte("\n- id: pb-"), []byte("\n- id: "+p+"pb-"))
	return yearRE.ReplaceAllFunc(out, func(y []byte) []byte {
		n, _ := strconv.Atoi(string(y))
		return []byte(strconv.Itoa(n - years))
	})
}

// yearRE matches the years of PredictionBook's times (2008 to 2016, and
// the file's date).
var yearRE = regexp.MustCompile(`\b20[0-2][0-9]\b`)

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkImportPredictionBook imports PredictionBook's early-1.md
// (1,014 questions, 8,068 forecasts) into an empty board and into boards
// that hold the whole earlier half twice over (4,872 questions, 34,306
// forecasts, 1,090 forecasters: early-0.md and early-1.md with their ids
// renamed, by the same forecasters): "older", moved 12 and 24 years
// earlier, as a board grows when files come in time order; and "same
// years", at their own times, so that every forecast of the file weighs
// skills that change with the board's resolutions while it stands. It
// reports the CPU time too (cpu-ms/op, the process's), steadier than the
// time on a shared machine. A flat import takes the same time on each.
func BenchmarkImportPredictionBook(b *testing.B) {
	early0, early1 := predictionBook(b)
	now := func() time.Time { return time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC) }
	boards := []struct {
		name  string
		years []int // the copies' shifts in years; none for an empty board
	}{{"empty", nil}, {"older", []int{12, 24}}, {"same-years", []int{0, 0}}}
	for _, be := range benchBackends() {
		for _, bd := range boards {
			b.Run(be.name+"/board="+bd.name, func(b *testing.B) {
				ctx := context.Background()
				var cpu time.Duration
				for b.Loop() {
					b.StopTimer()
					s, err := board.Open(ctx, be.dsn(b), board.Options{Now: now})
					if err != nil {
						b.Fatal(err)
					}
					for i, years := range bd.years {
						for _, f := range [][]byte{early0, early1} {
							if _, err := boardfile.Import(ctx, s, bytes.NewReader(renamed(f, fmt.Sprintf("c%d-", i), years))); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.StartTimer()
					c0 := cpuTime(b)
					res, err := boardfile.Import(ctx, s, bytes.NewReader(early1))
					cpu += cpuTime(b) - c0
					b.StopTimer()
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Created) != 1014 {
						b.Fatalf("Import created %d questions, want 1014", len(res.Created))
					}
					s.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
