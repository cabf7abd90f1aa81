package loadbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
)

var (
	buildOnce sync.Once
	built     string // the binary, once built
	buildErr  error
	buildDir  string
)

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildPredictions builds the predictions binary into a temporary
// directory, once for all tests.
func buildPredictions(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		if buildDir, buildErr = os.MkdirTemp("", "loadbench-test-"); buildErr != nil {
			return
		}
		built = filepath.Join(buildDir, "predictions")
		out, err := exec.Command(gobin, "build", "-o", built, "github.com/predictions-md/predictions/cmd/predictions").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// TestRunQuick runs the whole benchmark in quick mode against a freshly
// built binary and checks that every scenario ran without errors and that
// the table and the JSON carry them. It checks correctness, not speed.
func TestRunQuick(t *testing.T) {
	exe := buildPredictions(t)
	var progress bytes.Buffer
	rep, err := Run(context.Background(), Quick(Config{Exe: exe, Conns: 8, Large: true, Progress: &progress}))
	if err != nil {
		t.Fatalf("Run: %v\nprogress:\n%s", err, progress.String())
	}

	var want []string
	for _, s := range toolScenarios() {
		if s.group == GroupTools {
			want = append(want, "bare handler, "+"*"+", for "+s.name)
		}
		want = append(want, s.name)
	}
	want = append(want, rawInsertName, "POST /api/predictions")
	large := feedScenarios(3000, 1000, 500, true)
	for i, s := range feedScenarios(1000, 1000, 500, false) {
		want = append(want, s.name, large[i].name)
	}
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
		if row.Group != GroupFeed && row.Group != "baseline" && row.Met == nil && !strings.HasPrefix(row.Scenario, rawInsertPfx) {
			t.Errorf("%s: no goal evaluated (baseline %q)", row.Scenario, row.Baseline)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	for _, s := range feedScenarios(3000, 1000, 500, true) {
		if r := rep.Row(s.name); r == nil || r.Ratio == 0 || r.Goal == "" {
			t.Errorf("%s: no ratio to the small seed: %+v", s.name, r)
		}
	}
	if len(rep.Memory) != 2 || rep.Memory[1].Met == nil || rep.Memory[1].HWMMB <= 0 || rep.Memory[1].Samples == 0 {
		t.Errorf("memory = %+v, want two servers sampled, the large one with a goal", rep.Memory)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"| GET convert_odds | 8 |", "| MCP tools/call convert_odds |", "| POST /api/predictions |",
		"feed popular+domain, n=3k, offset 500", "| predictions serve, 3,000 predictions |"} {
		if !strings.Contains(table.String(), name) {
			t.Errorf("table lacks %q:\n%s", name, table.String())
		}
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

// TestProfiles takes a CPU profile of one scenario through serve --pprof.
func TestProfiles(t *testing.T) {
	exe := buildPredictions(t)
	dir := t.TempDir()
	cfg := Quick(Config{Exe: exe, Conns: 4, ProfileDir: dir, Filter: regexp.MustCompile(`^GET convert_odds$`)})
	cfg.Duration = time.Second // the shortest profile
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Errorf("rows = %d, want the bare handler and GET convert_odds", len(rep.Rows))
	}
	if fi, err := os.Stat(filepath.Join(dir, "GET-convert-odds.pprof")); err != nil || fi.Size() == 0 {
		t.Errorf("profile: %v", err)
	}
}

func TestSelectScenarios(t *testing.T) {
	all := append(append(toolScenarios(), writeScenario()), append(feedScenarios(10_000, 10_000, 10_000, false),
		feedScenarios(1_000_000, 10_000, 10_000, true)...)...)
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{`^MCP`, []string{"MCP tools/call convert_odds", "POST convert_odds"}},
		{`predictions$`, []string{"POST /api/predictions", rawInsertName}},
		{`popular\+domain, n=1M, offset 0`, []string{"feed popular+domain, n=10k, offset 0", "feed popular+domain, n=1M, offset 0"}},
		{`^raw`, []string{rawInsertName}},
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
	exe := buildPredictions(t)
	cfg := Quick(Config{Exe: exe, Conns: 2, SeedDir: t.TempDir(), Filter: regexp.MustCompile(`^feed recent, n=1k, offset 0$`)})
	var seeding [][]string
	for range 2 {
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rows) != 1 || rep.Rows[0].Errors != 0 {
			t.Fatalf("rows = %+v, want one without errors", rep.Rows)
		}
		seeding = append(seeding, rep.Seeding)
	}
	if len(seeding[0]) != 1 || strings.Contains(seeding[0][0], "reused") || len(seeding[1]) != 1 || !strings.Contains(seeding[1][0], "reused") {
		t.Errorf("seeding = %q, want seeded then reused", seeding)
	}
}
