package loadbench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// The streams scenario: the board's writes (the write scenario) against
// a server that holds Config.Streams event streams open (GET /api/events,
// each reading every event it is sent), beside the same writes against a
// server of the same binary with none, in alternating rounds; and the
// RSS of the server with the streams. The goals (docs/BENCHMARKS.md,
// "The event log and its stream"): writes at StreamsWriteGoal of their
// speed without the streams, and the server under StreamsMemoryGoalMB.
const (
	StreamsWriteGoal    = 0.9
	StreamsMemoryGoalMB = 200
	// DefaultStreams is how many streams the scenario opens unless
	// Config.Streams says otherwise.
	DefaultStreams = 10_000
	// streamsOpenWait bounds the wait for every stream to be open.
	streamsOpenWait = 2 * time.Minute
	// streamsSettleWait bounds the wait, after a round with the streams,
	// for the events still on their way to them.
	streamsSettleWait = time.Minute
)

// streamsName names the scenario with n streams.
func streamsName(n int) string {
	return fmt.Sprintf("POST /api/predictions, %s streams open", thousands(float64(n)))
}

// streamsScenario is the scenario's entry in the table of scenarios, for
// selecting it; runStreams runs it.
func streamsScenario(n int) *scenario {
	return &scenario{name: streamsName(n), group: GroupWrites}
}

// runStreams runs the streams scenario when it is selected.
func (r *runner) runStreams(ctx context.Context) error {
	n := r.cfg.Streams
	name := streamsName(n)
	if !r.sel[name] {
		return nil
	}
	// Each stream is a connection at both ends: this process needs n
	// descriptors and the server n more, beside what they use otherwise.
	limit, err := raiseFileLimit()
	if err != nil {
		return fmt.Errorf("raising the limit on open files: %w", err)
	}
	if limit != 0 && limit < uint64(n)+256 {
		return fmt.Errorf("%s: this process may open %d files, too few for %d streams; raise the hard limit (ulimit -Hn) or ask for fewer streams (-streams)", name, limit, n)
	}
	var extra []string
	if r.cfg.StreamsMemoryLimit != "" {
		extra = []string{"--memory-limit", r.cfg.StreamsMemoryLimit}
	}
	without, err := r.serve(ctx, "predictions serve, no streams", filepath.Join(r.dir, "streams-none.db"), extra...)
	if err != nil {
		return err
	}
	defer without.stop()
	with, err := r.serve(ctx, fmt.Sprintf("predictions serve, %s streams open", thousands(float64(n))), filepath.Join(r.dir, "streams.db"), extra...)
	if err != nil {
		return err
	}
	defer with.stop()
	if l, ok := fileLimit(with.pid()); ok && l < uint64(n)+256 {
		return fmt.Errorf("%s: the server may open %d files, too few for %d streams", name, l, n)
	}

	var st StreamStats
	write := writeScenario()
	body, err := preflight(ctx, write, without.proc)
	if err != nil {
		return err
	}
	if _, err := preflight(ctx, write, with.proc); err != nil {
		return err
	}
	base := r.httpSide(write, without.proc)
	base.name = "POST /api/predictions, no streams open"
	base.profile = without
	loaded := r.httpSide(write, with.proc)
	loaded.name = name
	loaded.profile = with
	// The server may still be sending the round's events to the streams
	// when the round ends; the next round, the baseline's, waits until
	// they have arrived, so that their cost falls on this side.
	run := loaded.run
	loaded.run = func(ctx context.Context, d time.Duration, t *tally) error {
		err := run(ctx, d, t)
		settle(ctx, &st)
		return err
	}

	memWithout := SampleRSS(without.pid())
	memWith := SampleRSS(with.pid())
	sctx, stop := context.WithCancel(ctx)
	held := make(chan struct{})
	go func() {
		defer close(held)
		HoldStreams(sctx, strings.TrimRight(with.url(""), "/"), r.cfg.StreamsQuery, n, 100*time.Microsecond, &st)
	}()
	defer func() { stop(); <-held }()
	r.logf("opening %d streams to %s", n, with.name)
	start := time.Now()
	for st.Open.Load() < int64(n) {
		if time.Since(start) > streamsOpenWait || ctx.Err() != nil {
			memWithout.Finish("")
			memWith.Finish("")
			return fmt.Errorf("%s: not every stream opened in %v: %s", name, streamsOpenWait, st.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.logf("%d streams open in %v", n, time.Since(start).Round(time.Millisecond))
	opened := st.Events.Load()

	fs, err := r.compare(ctx, base, loaded)
	open := st.Open.Load()
	mw := memWith.Finish(with.name)
	mw.LimitMB = StreamsMemoryGoalMB
	mw.Met = met(mw.HWMMB < StreamsMemoryGoalMB && mw.PeakRSSMB < StreamsMemoryGoalMB)
	r.rep.Memory = append(r.rep.Memory, memWithout.Finish(without.name), mw)
	if err != nil {
		return err
	}
	r.addRow(&scenario{name: base.name, group: "baseline"}, fs[0], len(body))
	row := r.addRow(&scenario{name: name, group: GroupWrites}, fs[1], len(body))
	row.Baseline = fmt.Sprintf("no streams %s/s; streams%s: %s open at the end, %s events received, %s reconnects",
		thousands(fs[0].rps), r.cfg.StreamsQuery, thousands(float64(open)), thousands(float64(st.Events.Load()-opened)),
		thousands(float64(st.Reconnects.Load())))
	row.Ratio, row.RoundRatios = ratio(fs[1].rps, fs[0].rps), roundRatios(fs[1], fs[0])
	row.Goal = fmt.Sprintf("≥ %.1f× no streams, 0 errors", StreamsWriteGoal)
	row.Met = met(row.Ratio >= StreamsWriteGoal && fs[1].errors == 0)
	stop()
	<-held
	if err := with.stop(); err != nil {
		return err
	}
	return without.stop()
}

// settle waits until the streams have received nothing for 200 ms, or
// for streamsSettleWait at the most.
func settle(ctx context.Context, st *StreamStats) {
	const quiet = 200 * time.Millisecond
	deadline := time.Now().Add(streamsSettleWait)
	last := st.Events.Load()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(quiet)
		n := st.Events.Load()
		if n == last {
			return
		}
		last = n
	}
}
