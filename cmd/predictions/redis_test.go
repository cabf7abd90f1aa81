package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/redislimit/redistest"
)

// Two serve replicas given one --redis-url share one agent budget.
func TestServeRedisShared(t *testing.T) {
	url := redistest.URL(t)
	prefix := redistest.Prefix(t)
	db := t.TempDir() + "/shared.db"
	var bases []string
	for range 2 {
		addr, logs := startServe(t, "--db", db, "--redis-url", url, "--redis-prefix", prefix, "--rate-agent", "60/hour:5")
		if !strings.Contains(logs.String(), "shared through "+url) {
			t.Errorf("the start-up line does not say the limits are shared:\n%s", logs.String())
		}
		bases = append(bases, "http://"+addr)
	}
	body := `{"agent_id":"twin","title":"T","body":"B","confidence":0.4,"timeframe":"Q3 2026","domain":"space"}`
	got := map[int]int{}
	for i := range 8 {
		code, _ := httpDo(t, "POST", bases[i%2]+"/api/predictions", "Bearer twin", body)
		got[code]++
	}
	if diff := cmp.Diff(map[int]int{201: 5, 429: 3}, got); diff != "" {
		t.Errorf("8 posts of one agent over two replicas with --rate-agent 60/hour:5 (-want +got):\n%s", diff)
	}
}
