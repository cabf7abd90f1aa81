package loadbench

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config configures [Run]. With Exe set, the zero value of the rest runs
// every scenario except the 1,000,000-prediction ones: 3 rounds of 5 s
// each against its baseline, at 64 connections from 2 wrk threads.
type Config struct {
	// Exe is the predictions binary to start as servers ([Build] makes
	// one); required.
	Exe string
	// Bare is the command that serves the bare handler, to which
	// "-addr host:port -body-size n" are added ([BareMain] runs it); nil
	// means the running executable's `bare` command (predictions-bench).
	Bare []string
	// Wrk is the wrk binary; "" means "wrk" on the PATH.
	Wrk string
	// Threads is the number of wrk threads; 0 means 2.
	Threads int
	// Duration is how long each side of a comparison is measured in each
	// round, in whole seconds (wrk's resolution); 0 means 5 s.
	Duration time.Duration
	// Warmup runs before the rounds and is not counted; 0 means 1 s,
	// below 0 none.
	Warmup time.Duration
	// Rounds is how many turns the sides of a comparison (a scenario and
	// its baseline) take; 0 means 3.
	Rounds int
	// Conns is the number of connections, each with one request in flight
	// (closed loop); 0 means 64.
	Conns int
	// Filter, when set, runs the scenarios whose names match it, and those
	// their ratios need.
	Filter *regexp.Regexp
	// Large adds the feed over LargeSeed predictions (seeding takes
	// minutes).
	Large bool
	// SmallSeed and LargeSeed are the feed's seed sizes; 0 means 10,000
	// and 1,000,000.
	SmallSeed, LargeSeed int
	// DeepOffset is the second feed offset; 0 means 10,000.
	DeepOffset int
	// ProfileDir, when set, receives a CPU profile of the server for each
	// scenario (<scenario>.pprof), taken with serve's --pprof endpoint.
	ProfileDir string
	// SeedDir, when set, keeps the seeded feed boards (feed-<n>-<version>.db)
	// for later runs, which reuse them instead of seeding again.
	SeedDir string
	// TempDir holds the databases; "" means a new temporary directory,
	// removed at the end.
	TempDir string
	// Progress receives a line per step; nil means none.
	Progress io.Writer
}

// Quick returns c with the durations and seeds of a smoke run (tests, CI):
// figures from it show that every scenario works, not how fast.
func Quick(c Config) Config {
	c.Duration, c.Warmup, c.Rounds = time.Second, -1, 1
	c.SmallSeed, c.LargeSeed, c.DeepOffset = 1000, 3000, 500
	return c
}

func (c Config) withDefaults() Config {
	if c.Duration <= 0 {
		c.Duration = 5 * time.Second
	}
	if c.Warmup == 0 {
		c.Warmup = time.Second
	}
	if c.Threads <= 0 {
		c.Threads = 2
	}
	if c.Rounds <= 0 {
		c.Rounds = 3
	}
	if c.Conns <= 0 {
		c.Conns = 64
	}
	if c.SmallSeed <= 0 {
		c.SmallSeed = 10_000
	}
	if c.LargeSeed <= 0 {
		c.LargeSeed = 1_000_000
	}
	if c.DeepOffset <= 0 {
		c.DeepOffset = 10_000
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return c
}

// Goals of issue 10, as ratios measured in the same run.
const (
	ToolGoal     = 0.7 // tool endpoint req/s ≥ ToolGoal × the bare handler's
	ToolP99      = 5   // tool endpoint p99 < ToolP99 ms
	MCPGoal      = 0.5 // MCP tools/call req/s ≥ MCPGoal × the same tool over REST
	WriteGoal    = 0.4 // board writes ≥ WriteGoal × the raw insert rate, zero errors
	FeedGoal     = 1.5 // feed p50 over LargeSeed ≤ FeedGoal × over SmallSeed (offset 0)
	MemoryGoalMB = 100 // server RSS under MemoryGoalMB through the large feed
	rawInsertPfx = "raw insert"
)

var rawInsertName = rawInsertPfx + " (bun/SQLite, WAL, synchronous=FULL, 1 writer)"

// Row is one line of the table.
type Row struct {
	Scenario string  `json:"scenario"`
	Group    string  `json:"group"`
	Conns    int     `json:"conns"`
	Requests uint64  `json:"requests"`
	RPS      float64 `json:"rps"` // successful requests (rows for the raw insert) per second
	P50MS    float64 `json:"p50_ms"`
	P99MS    float64 `json:"p99_ms"`
	Errors   uint64  `json:"errors"`
	// ErrorText lists some distinct errors.
	ErrorText []string `json:"error_text,omitempty"`
	// BodyBytes is the size of the response body.
	BodyBytes int `json:"body_bytes,omitempty"`
	// Baseline names what Ratio compares with, with its figure.
	Baseline string  `json:"baseline,omitempty"`
	Ratio    float64 `json:"ratio,omitempty"`
	// RoundRatios are the ratios of the rates round by round, when there
	// are several: their spread shows how much the machine's load moved.
	RoundRatios []float64 `json:"round_ratios,omitempty"`
	// Goal states the goal; Met says whether it is met (nil: no goal).
	Goal string `json:"goal,omitempty"`
	Met  *bool  `json:"met,omitempty"`
	// Load1 is the 1-minute load average when the row was measured.
	Load1 float64 `json:"load1"`
}

// Machine describes where the benchmark ran.
type Machine struct {
	CPUs       int     `json:"cpus"`
	CPUModel   string  `json:"cpu_model"`
	GoVersion  string  `json:"go_version"`
	OS         string  `json:"os"`
	LoadStart  float64 `json:"load1_start"`
	LoadEnd    float64 `json:"load1_end"`
	DurationS  float64 `json:"duration_s"`
	Rounds     int     `json:"rounds"`
	Conns      int     `json:"conns"`
	Threads    int     `json:"threads"`
	SmallSeed  int     `json:"small_seed"`
	LargeSeed  int     `json:"large_seed,omitempty"`
	DeepOffset int     `json:"deep_offset"`
}

// Report is the outcome of [Run].
type Report struct {
	Started time.Time `json:"started"`
	Machine Machine   `json:"machine"`
	Rows    []Row     `json:"rows"`
	Memory  []Memory  `json:"memory"`
	Seeding []string  `json:"seeding,omitempty"` // how long each seed took
}

// Row returns the row named scenario, or nil.
func (r *Report) Row(scenario string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Scenario == scenario {
			return &r.Rows[i]
		}
	}
	return nil
}

// runner carries one run.
type runner struct {
	cfg  Config
	exe  string
	bare []string
	wrk  *wrk
	dir  string
	rep  *Report
	sel  map[string]bool
	figs map[string]figures
}

// Run starts `predictions serve` processes and baselines, drives each
// scenario and returns the table. It stops at the first scenario whose
// answer is wrong (checked on one request before the load), and when ctx
// is done.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	r := &runner{cfg: cfg, exe: cfg.Exe, bare: cfg.Bare, figs: map[string]figures{}}
	if r.exe == "" {
		return nil, errors.New("Config.Exe is empty: name the predictions binary (loadbench.Build makes one)")
	}
	if len(r.bare) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the bare handler's binary: %w", err)
		}
		r.bare = []string{exe, "bare"}
	}
	wrkPath := cmp.Or(cfg.Wrk, "wrk")
	wrkPath, err := exec.LookPath(wrkPath)
	if err != nil {
		return nil, fmt.Errorf("the load generator: %w (install it: apt-get install wrk)", err)
	}
	r.dir = cfg.TempDir
	if r.dir == "" {
		dir, err := os.MkdirTemp("", "predictions-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		r.dir = dir
	}
	r.wrk = &wrk{path: wrkPath, dir: r.dir, conns: cfg.Conns, threads: cfg.Threads}
	if cfg.ProfileDir != "" {
		if err := os.MkdirAll(cfg.ProfileDir, 0o755); err != nil {
			return nil, err
		}
	}
	r.rep = &Report{Started: time.Now().UTC(), Machine: Machine{
		CPUs: runtime.NumCPU(), CPUModel: cpuModel(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		LoadStart: load1(), DurationS: cfg.Duration.Seconds(), Rounds: cfg.Rounds, Conns: cfg.Conns, Threads: cfg.Threads,
		SmallSeed: cfg.SmallSeed, DeepOffset: cfg.DeepOffset,
	}}
	if cfg.Large {
		r.rep.Machine.LargeSeed = cfg.LargeSeed
	}

	tools := toolScenarios()
	write := writeScenario()
	small := feedScenarios(cfg.SmallSeed, cfg.SmallSeed, cfg.DeepOffset, false)
	var large []*scenario
	if cfg.Large {
		large = feedScenarios(cfg.LargeSeed, cfg.SmallSeed, cfg.DeepOffset, true)
	}
	all := append(append(append(append([]*scenario{}, tools...), write, forecastScenario(nil)), small...), large...)
	r.sel = selectScenarios(all, cfg.Filter)
	if len(r.sel) == 0 {
		return nil, fmt.Errorf("no scenario matches %q", cfg.Filter)
	}

	if err := r.runTools(ctx, tools, write); err != nil {
		return r.rep, err
	}
	if err := r.runFeeds(ctx, small, large); err != nil {
		return r.rep, err
	}
	r.rep.Machine.LoadEnd = load1()
	return r.rep, nil
}

// selectScenarios returns the names to run: those matching filter (all
// when nil) and, recursively, the scenarios they depend on.
func selectScenarios(all []*scenario, filter *regexp.Regexp) map[string]bool {
	byName := map[string]*scenario{}
	for _, s := range all {
		byName[s.name] = s
	}
	sel := map[string]bool{}
	var add func(name string)
	add = func(name string) {
		if sel[name] {
			return
		}
		sel[name] = true
		if s := byName[name]; s != nil {
			for _, d := range s.deps {
				add(d)
			}
		}
	}
	for _, s := range all {
		if filter == nil || filter.MatchString(s.name) {
			add(s.name)
		}
	}
	if filter != nil && filter.MatchString(rawInsertName) {
		add(rawInsertName)
	}
	return sel
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Progress, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// server is a started `predictions serve`, with its profiler address when
// profiles are asked for.
type server struct {
	*proc
	pprofAddr string
}

// serve starts `predictions serve` on the database at db.
func (r *runner) serve(ctx context.Context, name, db string) (*server, error) {
	pprofAddr := ""
	if r.cfg.ProfileDir != "" {
		a, err := freeAddr()
		if err != nil {
			return nil, err
		}
		pprofAddr = a
	}
	p, err := start(ctx, name, r.exe, func(addr string) []string {
		// The rate limits stay on, so their cost is measured, at rates a
		// benchmark from one address never reaches.
		args := []string{"serve", "--addr", addr, "--db", db,
			"--rate-agent", "1000000/s:1000000", "--rate-address", "1000000/s:1000000"}
		if pprofAddr != "" {
			args = append(args, "--pprof", pprofAddr)
		}
		return args
	}, "/healthz")
	if err != nil {
		return nil, err
	}
	return &server{p, pprofAddr}, nil
}

// side is one of the loads a comparison alternates between.
type side struct {
	name string
	// run drives the load for d, adding to t (nil during the warm-up).
	run func(ctx context.Context, d time.Duration, t *tally) error
	// profile, when set, is the server to take a CPU profile of.
	profile *server
	t       tally
}

// httpSide drives scenario s against p with wrk.
func (r *runner) httpSide(s *scenario, p *proc) *side {
	return &side{name: s.name, run: func(ctx context.Context, d time.Duration, t *tally) error {
		res, err := r.wrk.run(ctx, s, p.url(""), d)
		if err != nil || t == nil {
			return err
		}
		t.add(res)
		return nil
	}}
}

// compare warms each side up, then runs them in turn, Duration at a time
// for Rounds rounds, so that a change in the load of the machine falls on
// all of them alike. It returns their figures.
func (r *runner) compare(ctx context.Context, sides ...*side) ([]figures, error) {
	var names []string
	for _, sd := range sides {
		names = append(names, sd.name)
	}
	r.logf("%s", strings.Join(names, " | "))
	if r.cfg.Warmup > 0 {
		for _, sd := range sides {
			if err := sd.run(ctx, r.cfg.Warmup, nil); err != nil {
				return nil, err
			}
		}
	}
	var wg sync.WaitGroup
	if r.cfg.ProfileDir != "" {
		secs := max(1, int((r.cfg.Duration * time.Duration(r.cfg.Rounds*len(sides))).Seconds()))
		for _, sd := range sides {
			if sd.profile == nil || sd.profile.pprofAddr == "" {
				continue
			}
			path := filepath.Join(r.cfg.ProfileDir, slug(sd.name)+".pprof")
			wg.Go(func() {
				if err := fetchProfile(ctx, sd.profile.pprofAddr, secs, path); err != nil && !errors.Is(err, context.Canceled) {
					r.logf("profile of %s: %v", sd.name, err)
				}
			})
		}
	}
	var err error
	for range r.cfg.Rounds {
		for _, sd := range sides {
			if err == nil && ctx.Err() == nil {
				err = sd.run(ctx, r.cfg.Duration, &sd.t)
			}
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	out := make([]figures, len(sides))
	for i, sd := range sides {
		out[i] = sd.t.figures()
		r.figs[sd.name] = out[i]
	}
	return out, nil
}

// runTools runs the tool, MCP and write scenarios against one server on
// an empty board.
func (r *runner) runTools(ctx context.Context, tools []*scenario, write *scenario) error {
	needed := r.sel[write.name] || r.sel[rawInsertName] || r.sel[forecastName]
	for _, s := range tools {
		needed = needed || r.sel[s.name]
	}
	if !needed {
		return nil
	}
	srv, err := r.serve(ctx, "predictions serve", filepath.Join(r.dir, "tools.db"))
	if err != nil {
		return err
	}
	defer srv.stop()
	byName := map[string]*scenario{}
	for _, s := range tools {
		byName[s.name] = s
	}
	for _, s := range tools {
		if !r.sel[s.name] {
			continue
		}
		body, err := preflight(ctx, s, srv.proc)
		if err != nil {
			return err
		}
		if s.group == GroupTools {
			if err := r.toolVersusBare(ctx, s, srv, len(body)); err != nil {
				return err
			}
		} else {
			// MCP against the same tool over REST, in the same rounds.
			rest := byName[s.deps[0]]
			restSide := r.httpSide(rest, srv.proc)
			restSide.name = rest.name + ", alongside MCP"
			mcpSide := r.httpSide(s, srv.proc)
			mcpSide.profile = srv
			fs, err := r.compare(ctx, restSide, mcpSide)
			if err != nil {
				return err
			}
			row := r.addRow(s, fs[1], len(body))
			row.Baseline = fmt.Sprintf("REST POST %s/s", thousands(fs[0].rps))
			row.Ratio, row.RoundRatios = ratio(fs[1].rps, fs[0].rps), roundRatios(fs[1], fs[0])
			row.Goal = fmt.Sprintf("≥ %.1f× REST", MCPGoal)
			row.Met = met(row.Ratio >= MCPGoal && fs[1].errors == 0)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}

	if r.sel[write.name] || r.sel[rawInsertName] || r.sel[forecastName] {
		ri, err := openRawInserter(ctx, r.dir, writeAgents)
		if err != nil {
			return fmt.Errorf("raw insert baseline: %w", err)
		}
		defer ri.close()
		sides := []*side{{name: rawInsertName, run: func(ctx context.Context, d time.Duration, t *tally) error {
			ri.run(ctx, r.cfg.Conns, d, t)
			return nil
		}}}
		var body []byte
		if r.sel[write.name] {
			if body, err = preflight(ctx, write, srv.proc); err != nil {
				return err
			}
			w := r.httpSide(write, srv.proc)
			w.profile = srv
			sides = append(sides, w)
		}
		var forecast *scenario
		var forecastBytes []byte
		if r.sel[forecastName] {
			ids, err := postTargets(ctx, srv.proc)
			if err != nil {
				return err
			}
			forecast = forecastScenario(ids)
			if forecastBytes, err = preflight(ctx, forecast, srv.proc); err != nil {
				return err
			}
			f := r.httpSide(forecast, srv.proc)
			f.profile = srv
			sides = append(sides, f)
		}
		fs, err := r.compare(ctx, sides...)
		if err != nil {
			return err
		}
		r.addRow(&scenario{name: rawInsertName, group: GroupWrites}, fs[0], 0)
		if r.sel[write.name] {
			row := r.addRow(write, fs[1], len(body))
			row.Baseline = fmt.Sprintf("raw insert %s rows/s", thousands(fs[0].rps))
			row.Ratio, row.RoundRatios = ratio(fs[1].rps, fs[0].rps), roundRatios(fs[1], fs[0])
			row.Goal = fmt.Sprintf("≥ %.1f× raw insert, 0 errors", WriteGoal)
			row.Met = met(row.Ratio >= WriteGoal && fs[1].errors == 0)
		}
		if forecast != nil {
			last := fs[len(fs)-1]
			row := r.addRow(forecast, last, len(forecastBytes))
			row.Baseline = fmt.Sprintf("raw insert %s rows/s", thousands(fs[0].rps))
			row.Ratio, row.RoundRatios = ratio(last.rps, fs[0].rps), roundRatios(last, fs[0])
			row.Goal = fmt.Sprintf("≥ %.1f× raw insert, 0 errors", WriteGoal)
			row.Met = met(row.Ratio >= WriteGoal && last.errors == 0)
		}
	}
	return srv.stop()
}

// postTargets posts the predictions the forecast scenario forecasts on
// and returns their ids.
func postTargets(ctx context.Context, p *proc) ([]string, error) {
	ids := make([]string, 0, forecastTargets)
	for i := range forecastTargets {
		agent, body := writeBody(uint64(1_000_000+i), writeAgents)
		s := &scenario{name: "a prediction to forecast on", method: http.MethodPost, path: "/api/predictions",
			header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + agent}},
			body:   body, check: wantStatus(http.StatusCreated, `"prediction_id"`)}
		got, err := preflight(ctx, s, p)
		if err != nil {
			return nil, err
		}
		var created struct {
			ID string `json:"prediction_id"`
		}
		if err := json.Unmarshal(got, &created); err != nil || created.ID == "" {
			return nil, fmt.Errorf("posting a prediction to forecast on: no id in %.200s", got)
		}
		ids = append(ids, created.ID)
	}
	return ids, nil
}

// toolVersusBare measures s against the bare handler, in a process of its
// own with a body of size bytes, under the same requests.
func (r *runner) toolVersusBare(ctx context.Context, s *scenario, srv *server, size int) error {
	p, err := start(ctx, "bare handler", r.bare[0], func(addr string) []string {
		return append(slices.Clone(r.bare[1:]), "-addr", addr, "-body-size", strconv.Itoa(size))
	}, "/")
	if err != nil {
		return err
	}
	defer p.stop()
	bs := &scenario{name: "bare handler, " + thousands(float64(size)) + " B, for " + s.name, group: "baseline",
		method: s.method, path: s.path, header: s.header, body: s.body, check: wantStatus(http.StatusOK, "")}
	got, err := preflight(ctx, bs, p)
	if err != nil {
		return err
	}
	if len(got) != size {
		return fmt.Errorf("bare handler answered %d bytes, want %d", len(got), size)
	}
	api := r.httpSide(s, srv.proc)
	api.profile = srv
	fs, err := r.compare(ctx, r.httpSide(bs, p), api)
	if err != nil {
		return err
	}
	bare, f := fs[0], fs[1]
	r.addRow(bs, bare, size)
	row := r.addRow(s, f, size)
	row.Baseline = fmt.Sprintf("bare %s/s", thousands(bare.rps))
	row.Ratio, row.RoundRatios = ratio(f.rps, bare.rps), roundRatios(f, bare)
	row.Goal = fmt.Sprintf("≥ %.1f× bare, p99 < %d ms", ToolGoal, ToolP99)
	row.Met = met(row.Ratio >= ToolGoal && row.P99MS < ToolP99 && f.errors == 0)
	return p.stop()
}

// runFeeds seeds a board with SmallSeed predictions and, with Large, a copy
// of it grown to LargeSeed; serves both; and runs each feed scenario over
// both in the same rounds, sampling the large server's memory throughout.
func (r *runner) runFeeds(ctx context.Context, small, large []*scenario) error {
	var pairs [][2]*scenario // small, and large or nil
	for i, s := range small {
		var l *scenario
		if len(large) > 0 && r.sel[large[i].name] {
			l = large[i]
		}
		if r.sel[s.name] || l != nil {
			pairs = append(pairs, [2]*scenario{s, l})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	smallDB, err := r.seed(ctx, "", 0, r.cfg.SmallSeed)
	if err != nil {
		return err
	}
	sSmall, err := r.serve(ctx, fmt.Sprintf("predictions serve, %s predictions", thousands(float64(r.cfg.SmallSeed))), smallDB)
	if err != nil {
		return err
	}
	defer sSmall.stop()
	memSmall := sampleRSS(sSmall.pid())
	var sLarge *server
	var memLarge *sampler
	if slices.ContainsFunc(pairs, func(p [2]*scenario) bool { return p[1] != nil }) {
		largeDB, err := r.seed(ctx, smallDB, r.cfg.SmallSeed, r.cfg.LargeSeed)
		if err != nil {
			memSmall.finish("")
			return err
		}
		if sLarge, err = r.serve(ctx, fmt.Sprintf("predictions serve, %s predictions", thousands(float64(r.cfg.LargeSeed))), largeDB); err != nil {
			memSmall.finish("")
			return err
		}
		defer sLarge.stop()
		memLarge = sampleRSS(sLarge.pid())
	}
	for _, pair := range pairs {
		sm, lg := pair[0], pair[1]
		body, err := preflight(ctx, sm, sSmall.proc)
		if err != nil {
			return err
		}
		a := r.httpSide(sm, sSmall.proc)
		a.profile = sSmall
		sides := []*side{a}
		var largeBody []byte
		if lg != nil {
			if largeBody, err = preflight(ctx, lg, sLarge.proc); err != nil {
				return err
			}
			b := r.httpSide(lg, sLarge.proc)
			b.profile = sLarge
			sides = append(sides, b)
		}
		fs, err := r.compare(ctx, sides...)
		if err != nil {
			return err
		}
		r.addRow(sm, fs[0], len(body))
		if lg != nil {
			row := r.addRow(lg, fs[1], len(largeBody))
			row.Baseline = fmt.Sprintf("n=%s: p50 %s ms", count(r.cfg.SmallSeed), ms(fs[0].p50))
			row.Ratio = ratio(float64(fs[1].p50), float64(fs[0].p50))
			if lg.offset == 0 {
				row.Goal = fmt.Sprintf("p50 ≤ %.1f× n=%s", FeedGoal, count(r.cfg.SmallSeed))
				row.Met = met(row.Ratio <= FeedGoal && fs[1].errors == 0)
			} else {
				row.Goal = "reported (deep offset may grow)"
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	r.rep.Memory = append(r.rep.Memory, memSmall.finish(sSmall.name))
	if memLarge != nil {
		m := memLarge.finish(sLarge.name)
		m.LimitMB = MemoryGoalMB
		m.Met = met(m.HWMMB < MemoryGoalMB && m.PeakRSSMB < MemoryGoalMB)
		r.rep.Memory = append(r.rep.Memory, m)
	}
	if sLarge != nil {
		if err := sLarge.stop(); err != nil {
			return err
		}
	}
	return sSmall.stop()
}

func (r *runner) addRow(s *scenario, f figures, bodyBytes int) *Row {
	r.rep.Rows = append(r.rep.Rows, Row{
		Scenario: s.name, Group: s.group, Conns: r.cfg.Conns, Requests: f.requests, RPS: f.rps,
		P50MS: msf(f.p50), P99MS: msf(f.p99), Errors: f.errors, ErrorText: f.errText, BodyBytes: bodyBytes,
		Load1: load1(),
	})
	return &r.rep.Rows[len(r.rep.Rows)-1]
}

// roundRatios returns the ratio of a's rate to b's in each round, nil
// for a single round.
func roundRatios(a, b figures) []float64 {
	if len(a.roundRPS) < 2 || len(a.roundRPS) != len(b.roundRPS) {
		return nil
	}
	out := make([]float64, len(a.roundRPS))
	for i := range out {
		out[i] = ratio(a.roundRPS[i], b.roundRPS[i])
	}
	return out
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func met(b bool) *bool { return &b }

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

func slug(s string) string { return strings.Trim(nonWord.ReplaceAllString(s, "-"), "-") }

// load1 is the 1-minute load average, or 0 where /proc/loadavg is missing.
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
