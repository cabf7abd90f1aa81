package loadbench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
)

// bareArg, as the first argument, makes the test binary the bare
// handler: Config.Bare of the tests' runs.
const bareArg = "loadbench-bare-handler"

var (
	buildOnce sync.Once
	built     string // the binary, once built
	buildErr  error
	buildDir  string
)

// TestMain serves the bare handler when started as one, and removes the
// binary the tests built.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == bareArg {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		code := BareMain(ctx, os.Args[2:], os.Stderr)
		stop()
		os.Exit(code)
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// needLoad skips t under -short or without wrk: the tests that start
// servers and drive them.
func needLoad(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts servers and wrk; skipped with -short")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not installed (apt-get install wrk)")
	}
}

// buildPredictions builds the predictions binary into a temporary
// directory, once for all tests.
func buildPredictions(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "loadbench-test-"); buildErr != nil {
			return
		}
		built, buildErr = Build(context.Background(), buildDir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// testConfig is a smoke run's configuration: the built server, the test
// binary as the bare handler, wrk from the PATH.
func testConfig(t *testing.T, conns int) Config {
	return Quick(Config{Exe: buildPredictions(t), Bare: []string{os.Args[0], bareArg}, Conns: conns})
}

// mustRun runs the benchmark, failing t with the progress lines when it
// fails.
func mustRun(t *testing.T, cfg Config) *Report {
	t.Helper()
	var progress bytes.Buffer
	cfg.Progress = &progress
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\nprogress:\n%s", err, progress.String())
	}
	return rep
}

// TestSmoke runs one scenario, POST convert_odds against the bare
// handler, with its ceilings, for a second each with a CPU profile, and
// checks that it ran without errors, that each ceiling has its row with a
// ratio to the bare handler, and that the table and the JSON carry them.
// It checks that the benchmark works, not how fast anything is; the
// writes' script is checked by TestWriteLua, the seed by
// TestSeedReadsBack, and every scenario by TestRunAll.
func TestSmoke(t *testing.T) {
	needLoad(t)
	cfg := testConfig(t, 4)
	cfg.ProfileDir = t.TempDir()
	cfg.Ceilings = true
	cfg.Filter = regexp.MustCompile(`^POST convert_odds$`)
	rep := mustRun(t, cfg)
	checkRows(t, rep, []string{
		"bare handler, *, for POST convert_odds",
		"ceiling: decode, for POST convert_odds",
		"ceiling: decode and check, for POST convert_odds",
		"ceiling: decode, check and run, for POST convert_odds",
		"ceiling: decode, check, run and answer, for POST convert_odds",
		"POST convert_odds",
	})
	for _, row := range rep.Rows {
		if row.Group == "ceiling" && (row.Ratio <= 0 || !strings.HasPrefix(row.Baseline, "bare ")) {
			t.Errorf("%s: ratio %v to %q, want a ratio to the bare handler", row.Scenario, row.Ratio, row.Baseline)
		}
	}
	if fi, err := os.Stat(filepath.Join(cfg.ProfileDir, "POST-convert-odds.pprof")); err != nil || fi.Size() == 0 {
		t.Errorf("profile: %v", err)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if want := "| POST convert_odds | 4 |"; !strings.Contains(table.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, table.String())
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Rows) != len(rep.Rows) {
		t.Errorf("JSON round trip: %d rows, %v", len(back.Rows), err)
	}
}

// checkRows checks that rep has the rows named want, in order (a bare
// handler's size written *), each with requests and no errors, and a goal
// evaluated where one applies.
func checkRows(t *testing.T, rep *Report, want []string) {
	t.Helper()
	var got []string
	for _, row := range rep.Rows {
		name := row.Scenario
		if strings.HasPrefix(name, "bare handler, ") {
			_, rest, _ := strings.Cut(name, " B, for ")
			name = "bare handler, *, for " + rest
		}
		got = append(got, name)
		if row.Errors != 0 || row.Requests == 0 {
			t.Errorf("%s: %d requests, %d errors %q", row.Scenario, row.Requests, row.Errors, row.ErrorText)
		}
		if row.Group != GroupFeed && row.Group != "baseline" && row.Group != "ceiling" && row.Met == nil && !strings.HasPrefix(row.Scenario, rawInsertPfx) {
			t.Errorf("%s: no goal evaluated (baseline %q)", row.Scenario, row.Baseline)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
}

// TestRunAll runs every scenario in quick mode, the 1,000,000-prediction
// ones on a board of 3,000: about a minute, so only when
// PREDICTIONS_BENCH_ALL is set.
func TestRunAll(t *testing.T) {
	needLoad(t)
	if os.Getenv("PREDICTIONS_BENCH_ALL") == "" {
		t.Skip("set PREDICTIONS_BENCH_ALL=1 to run every scenario (about a minute)")
	}
	cfg := testConfig(t, 8)
	cfg.Large = true
	rep := mustRun(t, cfg)
	var want []string
	for _, s := range toolScenarios() {
		if s.group == GroupTools {
			want = append(want, "bare handler, *, for "+s.name)
		}
		want = append(want, s.name)
	}
	want = append(want, rawInsertName, "POST /api/predictions", forecastName, "POST /api/predictions, no streams open", streamsName(100))
	large := feedScenarios(3000, 1000, 40, true)
	small := feedScenarios(1000, 1000, 40, false)
	for i, s := range small {
		want = append(want, s.name, large[i].name)
	}
	for _, s := range large[len(small):] {
		want = append(want, s.name)
	}
	checkRows(t, rep, want)
	for _, s := range large {
		r := rep.Row(s.name)
		switch {
		case r == nil || r.Ratio == 0 || r.Goal == "":
			t.Errorf("%s: no ratio: %+v", s.name, r)
		case s.cursorAt > 0 && (!strings.HasPrefix(r.Baseline, "first page") || r.Met == nil):
			t.Errorf("%s: no ratio to the first page: %+v", s.name, r)
		}
	}
	if len(rep.Memory) != 2 || rep.Memory[1].Met == nil || rep.Memory[1].HWMMB <= 0 || rep.Memory[1].Samples == 0 {
		t.Errorf("memory = %+v, want two servers sampled, the large one with a goal", rep.Memory)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"| MCP tools/call convert_odds |", "| POST /api/predictions |",
		"feed popular+domain, n=3k, offset 40", "| predictions serve, 3,000 predictions |"} {
		if !strings.Contains(table.String(), name) {
			t.Errorf("table lacks %q:\n%s", name, table.String())
		}
	}
}

// TestStreamsScenario runs the streams scenario with 50 streams: the
// writes with and without them, the streams open throughout and every
// one receiving the events, both servers' memory sampled, the one with
// the streams against its goal.
func TestStreamsScenario(t *testing.T) {
	needLoad(t)
	cfg := testConfig(t, 4)
	cfg.Streams = 50
	cfg.StreamsMemoryLimit = "256MiB"
	cfg.Filter = regexp.MustCompile(`streams open$`)
	rep := mustRun(t, cfg)
	checkRows(t, rep, []string{"POST /api/predictions, no streams open", "POST /api/predictions, 50 streams open"})
	row := rep.Row("POST /api/predictions, 50 streams open")
	if row.Ratio <= 0 || row.Met == nil || !strings.Contains(row.Baseline, "50 open at the end") {
		t.Errorf("row = %+v", row)
	}
	// Every write's prediction.created reached every stream (none was
	// dropped, the streams read as fast as they are written).
	_, rest, _ := strings.Cut(row.Baseline, "open at the end, ")
	count, _, _ := strings.Cut(rest, " events")
	events, err := strconv.Atoi(strings.ReplaceAll(count, ",", ""))
	if err != nil {
		t.Fatalf("no event count in %q: %v", row.Baseline, err)
	}
	if requests := int(row.Requests); events < 50*requests {
		t.Errorf("%d events received, want at least 50 a write (%d writes)", events, requests)
	}
	if len(rep.Memory) != 2 || rep.Memory[1].Met == nil || rep.Memory[1].LimitMB != StreamsMemoryGoalMB || rep.Memory[1].HWMMB <= 0 {
		t.Errorf("memory = %+v, want both servers, the one with the streams against its goal", rep.Memory)
	}
}

func TestSelectScenarios(t *testing.T) {
	all := append(append(toolScenarios(), writeScenario(), forecastScenario(nil)), append(feedScenarios(10_000, 10_000, 10_000, false),
		feedScenarios(1_000_000, 10_000, 10_000, true)...)...)
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{`^MCP`, []string{"MCP tools/call convert_odds", "POST convert_odds"}},
		{`predictions$`, []string{"POST /api/predictions", rawInsertName}},
		{`popular\+domain, n=1M, offset 0`, []string{"feed popular+domain, n=10k, offset 0", "feed popular+domain, n=1M, offset 0"}},
		{`recent, n=1M, cursor`, []string{"feed recent, n=1M, cursor at 10k"}},
		{`^raw`, []string{rawInsertName}},
		{`forecasts$`, []string{forecastName, rawInsertName}},
		{`nothing`, nil},
	} {
		sel := selectScenarios(all, regexp.MustCompile(tc.filter))
		var got []string
		for name := range sel {
			got = append(got, name)
		}
		slices.Sort(got)
		slices.Sort(tc.want)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("selectScenarios(%q) (-want +got):\n%s", tc.filter, diff)
		}
	}
	if n := len(selectScenarios(all, nil)); n != len(all)+1 {
		t.Errorf("no filter selects %d, want every scenario and the raw insert (%d)", n, len(all)+1)
	}
}

// TestPayloads checks the request bodies: the forecast file is clean and
// the check body fits the API's limit.
func TestPayloads(t *testing.T) {
	text := ForecastFile(MaxForecastChars)
	f, err := forecastfile.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Questions) < 100 {
		t.Errorf("forecast file has %d questions, want a realistic hundred or more", len(f.Questions))
	}
	if n := len(checkBody()); n > httpapi.MaxBodyBytes {
		t.Errorf("check body is %d bytes, over the limit of %d", n, httpapi.MaxBodyBytes)
	}
	for _, b := range [][]byte{combineBody(), scoreBody(), mcpBody, convertBody} {
		if !json.Valid(b) {
			t.Errorf("invalid JSON: %s", b)
		}
	}
	if _, b := writeBody(7, writeAgents); !json.Valid(b) {
		t.Errorf("invalid JSON: %s", b)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{10_000, "10k"}, {1_000_000, "1M"}, {500, "500"}, {1500, "1500"}, {3000, "3k"}} {
		if got := count(tc.n); got != tc.want {
			t.Errorf("count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		x    float64
		want string
	}{{0, "0"}, {999.6, "1,000"}, {1234567, "1,234,567"}, {12, "12"}} {
		if got := thousands(tc.x); got != tc.want {
			t.Errorf("thousands(%g) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// TestSeedDir: a board seeded into SeedDir is reused by the next run.
func TestSeedDir(t *testing.T) {
	cfg := Quick(Config{SeedDir: t.TempDir()}).withDefaults()
	var seeding []string
	for range 2 {
		r := &runner{cfg: cfg, dir: t.TempDir(), rep: &Report{}}
		path, err := r.seed(context.Background(), "", 0, 200)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(path) != cfg.SeedDir {
			t.Errorf("seeded %s, want it in %s", path, cfg.SeedDir)
		}
		seeding = append(seeding, r.rep.Seeding...)
	}
	if len(seeding) != 2 || strings.Contains(seeding[0], "reused") || !strings.Contains(seeding[1], "reused") {
		t.Errorf("seeding = %q, want seeded then reused", seeding)
	}
}
