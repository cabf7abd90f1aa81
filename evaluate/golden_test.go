package evaluate_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/evaluate"
	"github.com/predictions-md/predictions/forecastfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden pins the text of the fixture's report. Regenerate with go
// test -update.
func TestGolden(t *testing.T) {
	rep, err := evaluate.Run([]*forecastfile.File{mustRead(t, "testdata/fixture.md")}, evaluate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	const path = "testdata/fixture.txt"
	if *update {
		if err := os.WriteFile(path, text.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(path); err != nil || string(want) != text.String() {
		t.Errorf("%s is not the report (err %v; go test -update rewrites it): (-want +got)\n%s", path, err, cmp.Diff(string(want), text.String()))
	}
}

// TestReportJSON: the report reads back from its JSON as it was, under the
// names the documentation gives, and a gain without a reference is null.
func TestReportJSON(t *testing.T) {
	rep, err := evaluate.Run([]*forecastfile.File{mustRead(t, "testdata/fixture.md")}, evaluate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep.Pools[0].OverMedian.BrierClose = nil
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back evaluate.Report
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep, &back); diff != "" {
		t.Errorf("report after a JSON round trip (-want +got):\n%s", diff)
	}
	var names struct {
		Top   map[string]any   `json:"-"`
		Pools []map[string]any `json:"pools"`
	}
	if err := json.Unmarshal(js, &names.Top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &names); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
	want := []string{"evaluated", "forecasts", "from", "pools", "questions", "resamples", "seed", "skipped", "to", "warmup", "warmup_questions"}
	if diff := cmp.Diff(want, keys(names.Top)); diff != "" {
		t.Errorf("report keys (-want +got):\n%s", diff)
	}
	scores := []string{"brier_close", "brier_time_averaged", "log_close", "log_time_averaged"}
	for _, k := range []string{"scores", "over_median", "over_recency"} {
		if diff := cmp.Diff(scores, keys(names.Pools[0][k].(map[string]any))); diff != "" {
			t.Errorf("pools[0].%s keys (-want +got):\n%s", k, diff)
		}
	}
	if g := names.Pools[0]["over_median"].(map[string]any)["brier_close"]; g != nil {
		t.Errorf("a nil gain marshals as %v, want null", g)
	}
}

// TestRunReproducible: the same seed gives the same report; another seed
// moves the intervals but not the scores or the gains.
func TestRunReproducible(t *testing.T) {
	_, text := generate(5, 60)
	f := mustParse(t, text)
	run := func(seed uint64) *evaluate.Report {
		rep, err := evaluate.Run([]*forecastfile.File{f}, evaluate.Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	a, b, c := run(1), run(1), run(2)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("Run twice with seed 1 (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(scoresOf(a), scoresOf(c)); diff != "" {
		t.Errorf("seeds 1 and 2 give other scores (-1 +2):\n%s", diff)
	}
	if diff := cmp.Diff(percents(a), percents(c)); diff != "" {
		t.Errorf("seeds 1 and 2 give other gains (-1 +2):\n%s", diff)
	}
	if cmp.Equal(a.Pools, c.Pools) {
		t.Errorf("seeds 1 and 2 give the same intervals")
	}
}
