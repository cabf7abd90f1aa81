package loadbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The goals of a board of real size (docs/BENCHMARKS.md), against the
// same scenario on the small board in the same rounds.
const (
	RealGoal       = 0.8 // req/s on the large board ≥ RealGoal × on the small one
	RealP99        = 50  // p99 on the large board < RealP99 ms
	RealMemoryMB   = 150 // the large board's server RSS under RealMemoryMB
	realReaderConn = 8   // connections of the reader beside the writes
)

// realDepth is the depth of the feed's cursor page on boards of small
// questions and more: four fifths into the small board.
func realDepth(small int) int { return max(20, small*4/5/20*20) }

// runReal builds (or reuses, with SeedDir) the boards of RealSmall and
// RealQuestions generated questions, serves a copy of each (the writes
// change it), and runs each real-size scenario on both in the same
// rounds, sampling the large server's memory throughout.
func (r *runner) runReal(ctx context.Context, small, large []*scenario) error {
	var pairs [][2]*scenario
	for i := range large {
		if r.sel[large[i].name] || r.sel[small[i].name] {
			pairs = append(pairs, [2]*scenario{small[i], large[i]})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	var srvs [2]*server
	for i, n := range []int{r.cfg.RealSmall, r.cfg.RealQuestions} {
		kept, err := r.keep(fmt.Sprintf("real-%d-%s.db", n, realVersion), fmt.Sprintf("%s questions", thousands(float64(n))), func(path string) error {
			return importReal(ctx, path, n, func(done int) {
				if done%(10*realChunk) == 0 {
					r.logf("imported %s of %s questions", thousands(float64(done)), thousands(float64(n+realOpen)))
				}
			})
		})
		if err != nil {
			return err
		}
		db := filepath.Join(r.dir, fmt.Sprintf("real-%d.db", n))
		if err := copyFile(kept, db); err != nil {
			return err
		}
		srv, err := r.serve(ctx, fmt.Sprintf("predictions serve, %s questions", thousands(float64(n))), db)
		if err != nil {
			return err
		}
		defer srv.stop()
		srvs[i] = srv
	}
	mem := SampleRSS(srvs[1].pid())
	for _, pair := range pairs {
		if err := r.runRealPair(ctx, pair, srvs); err != nil {
			mem.Finish("")
			return err
		}
	}
	m := mem.Finish(srvs[1].name)
	m.LimitMB = RealMemoryMB
	m.Met = met(m.HWMMB < RealMemoryMB && m.PeakRSSMB < RealMemoryMB)
	r.rep.Memory = append(r.rep.Memory, m)
	return errors.Join(srvs[1].stop(), srvs[0].stop())
}

// runRealPair runs a scenario on the small board and on the large one in
// the same rounds; the large one's row carries the ratio and the goal.
func (r *runner) runRealPair(ctx context.Context, pair [2]*scenario, srvs [2]*server) error {
	var sides []*side
	bodies := make([]int, 2)
	for i, s := range pair {
		if err := resolveCursor(ctx, s, srvs[i].proc); err != nil {
			return err
		}
		body, err := preflight(ctx, s, srvs[i].proc)
		if err != nil {
			return err
		}
		bodies[i] = len(body)
		sd := r.httpSide(s, srvs[i].proc)
		sd.profile = srvs[i]
		if s.lua != "" { // the writes: a reader beside them
			sd = r.besideReader(sd, realReader(s.n), srvs[i].proc)
		}
		sides = append(sides, sd)
	}
	fs, err := r.compare(ctx, sides...)
	if err != nil {
		return err
	}
	r.addRow(pair[0], fs[0], bodies[0])
	row := r.addRow(pair[1], fs[1], bodies[1])
	row.Baseline = fmt.Sprintf("%s questions: %s/s", thousands(float64(pair[0].n)), thousands(fs[0].rps))
	row.Ratio, row.RoundRatios = ratio(fs[1].rps, fs[0].rps), roundRatios(fs[1], fs[0])
	if pair[1].lua != "" {
		row.Goal = fmt.Sprintf("≥ %.1f× the small board, 0 errors", RealGoal)
		row.Met = met(row.Ratio >= RealGoal && fs[1].errors == 0)
	} else {
		row.Goal = fmt.Sprintf("≥ %.1f× the small board, p99 < %d ms", RealGoal, RealP99)
		row.Met = met(row.Ratio >= RealGoal && row.P99MS < RealP99 && fs[1].errors == 0)
	}
	return nil
}

// besideReader returns sd with reader driven against p, by
// realReaderConn connections of their own, while sd's load runs; only
// sd's requests are counted.
func (r *runner) besideReader(sd *side, reader *scenario, p *proc) *side {
	w := *r.wrk
	w.conns, w.threads = realReaderConn, 1
	run := sd.run
	sd.run = func(ctx context.Context, d time.Duration, t *tally) error {
		errc := make(chan error, 1)
		go func() {
			_, err := w.run(ctx, reader, p.url(""), d)
			errc <- err
		}()
		err := run(ctx, d, t)
		return cmp.Or(err, <-errc)
	}
	return sd
}

// keep returns the path of a database named file that build makes: in
// SeedDir, made once and reused by later runs (a file.done beside it
// says it is whole); else in the run's directory, made anew. what names
// it in the report's seeding lines.
func (r *runner) keep(file, what string, build func(path string) error) (string, error) {
	dir := r.dir
	if r.cfg.SeedDir != "" {
		dir = r.cfg.SeedDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, file)
	done := path + ".done"
	if _, err := os.Stat(done); err == nil && r.cfg.SeedDir != "" {
		r.logf("reusing %s", path)
		r.rep.Seeding = append(r.rep.Seeding, fmt.Sprintf("%s: reused from %s", what, path))
		return path, nil
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	r.logf("seeding %s", what)
	t := time.Now()
	if err := build(path); err != nil {
		return "", err
	}
	r.rep.Seeding = append(r.rep.Seeding, fmt.Sprintf("%s: %s", what, time.Since(t).Round(100*time.Millisecond)))
	if r.cfg.SeedDir != "" {
		if err := os.WriteFile(done, []byte(file+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}
