package demo

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPlanSeeds: the same seed plans the same events, at the same times
// and in the same order; another seed plans others. (That the same events
// give the same board is TestFillDeterministic's.)
func TestPlanSeeds(t *testing.T) {
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	events := func(seed uint64) []string {
		var out []string
		for _, e := range plan(seed, end) {
			out = append(out, fmt.Sprintf("%s #%d %s", e.at.Format(time.RFC3339), e.seq, e.what))
		}
		return out
	}
	if diff := cmp.Diff(events(3), events(3)); diff != "" {
		t.Errorf("two plans of seed 3 differ (-first +second):\n%s", diff)
	}
	if cmp.Equal(events(3), events(4)) {
		t.Error("seeds 3 and 4 plan the same events")
	}
	if len(events(3)) == 0 {
		t.Error("seed 3 plans no events")
	}
}
