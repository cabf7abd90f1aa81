package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// The garbage collector's settings for serve.
//
// The server's live heap is small (about 6 MB under load) and every request
// allocates afresh, so at Go's default (GOGC=100) the collector runs about
// fifteen times a second under load and takes a fifth of the CPU
// (docs/BENCHMARKS.md). serve lets the heap grow to five times the live
// data instead (gc-percent 400), and caps that growth with a soft memory
// limit, so that a burst of large requests makes the collector work harder
// rather than the heap grow five-fold. The limit is set so that the whole
// process stays under 100 MB: about 35 MB of it is not the Go runtime's
// (the program's own pages and SQLite's page caches), and at a limit of
// 64MiB the 1,000,000-prediction feed load peaked at 101 MB, at 48MiB at
// 85 MB, with the same throughput (docs/BENCHMARKS.md). GOGC and
// GOMEMLIMIT, when set in the environment, keep their meaning: they
// replace these defaults.
const (
	defaultGCPercent   = "400"
	defaultMemoryLimit = "48MiB"
)

// gcFlags defines --gc-percent and --memory-limit on fs. An empty value
// leaves the runtime's setting (from GOGC or GOMEMLIMIT) as it is.
func gcFlags(fs *flag.FlagSet, percent, limit *string, env func(name, def string) string, getenv func(string) string) {
	def := defaultGCPercent
	if getenv("GOGC") != "" {
		def = ""
	}
	fs.StringVar(percent, "gc-percent", env("PREDICTIONS_GC_PERCENT", def),
		"garbage collection target: let the heap grow by this `percent` of the live data before collecting,\n"+
			"or off (as GOGC); empty keeps GOGC. The default, when GOGC is not set, is "+defaultGCPercent+" [PREDICTIONS_GC_PERCENT]")
	def = defaultMemoryLimit
	if getenv("GOMEMLIMIT") != "" {
		def = ""
	}
	fs.StringVar(limit, "memory-limit", env("PREDICTIONS_MEMORY_LIMIT", def),
		"soft limit on the Go runtime's memory, such as 128MiB or 1GiB (as GOMEMLIMIT: B, KiB, MiB, GiB, TiB),\n"+
			"or off; near it the collector runs more often. Each open event stream adds 4KiB to it (64KiB until\n"+
			"it is parked). Empty keeps GOMEMLIMIT. The default, when GOMEMLIMIT is not set, is "+defaultMemoryLimit+" [PREDICTIONS_MEMORY_LIMIT]")
}

// parseGCPercent reads a --gc-percent value: a whole number from 1, or off
// (-1, no collection). ok is false for "", which leaves the setting alone.
func parseGCPercent(s string) (percent int, ok bool, err error) {
	switch s {
	case "":
		return 0, false, nil
	case "off":
		return -1, true, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false, fmt.Errorf("--gc-percent %q: use a whole number of at least 1, such as 400, or off", s)
	}
	return n, true, nil
}

// memoryUnits are GOMEMLIMIT's suffixes, longest first.
var memoryUnits = []struct {
	suffix string
	bytes  int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// parseMemoryLimit reads a --memory-limit value as GOMEMLIMIT does: a whole
// number of bytes with an optional unit, or off (no limit). ok is false
// for "", which leaves the setting alone. Limits below 1 MiB are refused:
// the runtime would collect without pause.
func parseMemoryLimit(s string) (limit int64, ok bool, err error) {
	switch s {
	case "":
		return 0, false, nil
	case "off":
		return math.MaxInt64, true, nil
	}
	bad := fmt.Errorf("--memory-limit %q: use a size of at least 1MiB such as 128MiB or 2GiB, or off", s)
	num, scale := s, int64(1)
	for _, u := range memoryUnits {
		if rest, found := strings.CutSuffix(s, u.suffix); found {
			num, scale = rest, u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/scale || n*scale < 1<<20 {
		return 0, false, bad
	}
	return n * scale, true, nil
}

// applyGC sets the collector's target and memory limit, where given.
// Both values were checked by parseServe.
func applyGC(percent, limit string) {
	if p, ok, _ := parseGCPercent(percent); ok {
		debug.SetGCPercent(p)
	}
	if l, ok, _ := parseMemoryLimit(limit); ok {
		debug.SetMemoryLimit(l)
	}
}

// streamMemory is what one open event stream served by its own goroutine
// adds to the memory limit: its connection's buffers, two goroutine
// stacks, the request and its queue of events take about 44 KB (a heap
// profile of 10,000 streams, docs/BENCHMARKS.md), so that under a limit
// set for the server alone thousands of streams would keep the collector
// running without pause. A parked stream (boardapi's hub writes its
// connection) keeps its socket and a small struct, and adds
// parkedStreamMemory.
const (
	streamMemory       = 64 << 10
	parkedStreamMemory = 4 << 10
)

// streamsLimit is the memory limit with open streams, parked of them
// parked: the limit given for the server, plus streamMemory for each
// stream not parked and parkedStreamMemory for each parked one. A limit
// of off (math.MaxInt64) stays off.
func streamsLimit(base int64, open, parked int) int64 {
	parked = max(0, min(parked, open))
	if open <= 0 {
		return base
	}
	add := int64(open-parked)*streamMemory + int64(parked)*parkedStreamMemory
	if base <= math.MaxInt64-add {
		return base + add
	}
	return math.MaxInt64
}

// followStreams raises and lowers the memory limit set by --memory-limit
// with the number of open event streams, checked every second, until ctx
// is done. It does nothing when serve set no limit (GOMEMLIMIT's, if
// any, is the operator's).
func followStreams(ctx context.Context, limit string, streams func() (open, parked int)) {
	base, ok, _ := parseMemoryLimit(limit)
	if !ok {
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		open, parked := streams()
		if l := streamsLimit(base, open, parked); l != last {
			debug.SetMemoryLimit(l)
			last = l
		}
	}
}
