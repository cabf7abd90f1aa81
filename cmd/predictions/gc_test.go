package main

import (
	"math"
	"testing"

	"github.com/predictions-md/predictions/internal/loadbench"
)

// TestStreamsLimit: each open event stream adds streamMemory to the limit
// given for the server, or parkedStreamMemory when it is parked; off stays
// off and a sum past the largest limit is off.
func TestStreamsLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name   string
		base   int64
		open   int
		parked int
		want   int64
	}{
		{"no stream", 48 * mib, 0, 0, 48 * mib},
		{"one stream", 48 * mib, 1, 0, 48*mib + 64<<10},
		{"one parked stream", 48 * mib, 1, 1, 48*mib + 4<<10},
		{"10,000 streams", 48 * mib, 10_000, 0, 48*mib + 10_000*64<<10},
		{"10,000 streams, 9,990 parked", 48 * mib, 10_000, 9_990, 48*mib + 10*64<<10 + 9_990*4<<10},
		{"more parked than open (counts read apart)", 48 * mib, 2, 3, 48*mib + 2*4<<10},
		{"off", math.MaxInt64, 10_000, 0, math.MaxInt64},
		{"past the largest", math.MaxInt64 - 1, 1, 0, math.MaxInt64},
		{"exactly the largest", math.MaxInt64 - 64<<10, 1, 0, math.MaxInt64},
	} {
		if got := streamsLimit(c.base, c.open, c.parked); got != c.want {
			t.Errorf("%s: streamsLimit(%d, %d, %d) = %d, want %d", c.name, c.base, c.open, c.parked, got, c.want)
		}
	}
}

// TestLoadBenchCeilingsCollectAsServe checks that the load benchmark's
// ceilings (loadbench.StageHandler) set the collector as serve does when
// neither GOGC nor GOMEMLIMIT is set: a ceiling that collected less often
// would not be a ceiling of the server.
func TestLoadBenchCeilingsCollectAsServe(t *testing.T) {
	percent, _, err := parseGCPercent(defaultGCPercent)
	if err != nil {
		t.Fatal(err)
	}
	limit, _, err := parseMemoryLimit(defaultMemoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	if percent != loadbench.ServeGCPercent || limit != loadbench.ServeMemoryLimit {
		t.Errorf("serve collects at %d%% under %d bytes, the ceilings at %d%% under %d bytes",
			percent, limit, loadbench.ServeGCPercent, loadbench.ServeMemoryLimit)
	}
}
