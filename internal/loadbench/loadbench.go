package loadbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
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
	// Real adds the real-size group: a generated board of RealQuestions
	// resolved questions of PredictionBook's shape, imported through the
	// board's own import (minutes at 50,000; keep it with SeedDir),
	// against one of RealSmall. 0 means 50,000 and 1,000 (or half of
	// RealQuestions, when less).
	Real                     bool
	RealQuestions, RealSmall int
	// DeepOffset is the second feed offset; 0 means 10,000.
	DeepOffset int
	// Streams is how many event streams the streams scenario holds open;
	// 0 means DefaultStreams (10,000). StreamsQuery is their query, such
	// as ?type=prediction.resolved; "" follows every event.
	Streams      int
	StreamsQuery string
	// StreamsMemoryLimit, when set, is serve's --memory-limit for both
	// servers of the streams scenario (serve's default soft limit is sized
	// for a server without streams; far below the memory of thousands of
	// streams, the collector runs without pause).
	StreamsMemoryLimit string
	// Ceilings adds, to each POST of a calculation tool, the least servers
	// that run its stages ([Stages], [StageHandler]), in the same rounds as
	// the tool and its bare handler: how far the tool's own work lets the
	// whole server go.
	Ceilings bool
	// ProfileDir, when set, receives a CPU profile of the server for each
	// scenario (<scenario>.pprof), taken with serve's --pprof endpoint.
	ProfileDir string
	// SeedDir, when set, keeps the seeded feed boards (feed-<n>-<version>.db)
	// and the real-size boards (real-<n>-<version>.db) for later runs,
	// which reuse them instead of seeding again.
	SeedDir string
	// TempDir holds the databases; "" means a new temporary directory,
	// removed at the end.
	TempDir string
	// Progress receives a line per step; nil means none.
	Progress io.Writer
}

// Quick returns c with the durations and seeds of a smoke run (tests, CI):
// figures from it show that every scenario works, not how fast. The deep
// offset and cursor depth, 40, leave a page of the domain filter's
// Science (about one prediction in 13, so 77 of 1,000) after them.
func Quick(c Config) Config {
	c.Duration, c.Warmup, c.Rounds = time.Second, -1, 1
	c.SmallSeed, c.LargeSeed, c.DeepOffset = 1000, 3000, 40
	c.RealSmall = 100
	if c.RealQuestions == 0 {
		c.RealQuestions = 300
	}
	if c.Streams == 0 {
		c.Streams = 100
	}
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
	if c.Streams <= 0 {
		c.Streams = DefaultStreams
	}
	if c.RealQuestions <= 0 {
		c.RealQuestions = 50_000
	}
	if c.RealSmall <= 0 {
		c.RealSmall = min(1000, max(1, c.RealQuestions/2))
	}
	if c.DeepOffset <= 0 {
		c.DeepOffset = 10_000
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return c
}

// The tools' goals (docs/BENCHMARKS.md, "Goals"), as ratios measured in
// the same run.
const (
	ToolGoal     = 0.7 // tool endpoint req/s ≥ ToolGoal × the bare handler's
	ToolP99      = 5   // tool endpoint p99 < ToolP99 ms
	MCPGoal      = 0.5 // MCP tools/call req/s ≥ MCPGoal × the same tool over REST
	WriteGoal    = 0.4 // board writes ≥ WriteGoal × the raw insert rate, zero errors
	FeedGoal     = 1.5 // feed p50 over LargeSeed ≤ FeedGoal × over SmallSeed (offset 0)
	CursorGoal   = 1.5 // feed p50 after the cursor at DeepOffset ≤ CursorGoal × the first page, same board
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
	// CPUPerRequestUS is the server process's CPU time (user and system,
	// from /proc) over the measured rounds divided by their requests, in
	// microseconds; 0 where unknown (not Linux, or no server process).
	CPUPerRequestUS float64 `json:"cpu_us_per_request,omitempty"`
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
	var realSmall, realLarge []*scenario
	if cfg.Real {
		if cfg.RealSmall >= cfg.RealQuestions {
			return nil, fmt.Errorf("the real-size boards: RealSmall (%d questions) must be below RealQuestions (%d)", cfg.RealSmall, cfg.RealQuestions)
		}
		depth := realDepth(cfg.RealSmall)
		realSmall = realScenarios(cfg.RealSmall, 0, depth)
		realLarge = realScenarios(cfg.RealQuestions, cfg.RealSmall, depth)
	}
	all := append(append(append(append(append(append([]*scenario{}, tools...), write, forecastScenario(nil), streamsScenario(cfg.Streams)), small...), large...), realSmall...), realLarge...)
	r.sel = selectScenarios(all, cfg.Filter)
	if len(r.sel) == 0 {
		return nil, fmt.Errorf("no scenario matches %q", cfg.Filter)
	}

	if err := r.runTools(ctx, tools, write); err != nil {
		return r.rep, err
	}
	if err := r.runStreams(ctx); err != nil {
		return r.rep, err
	}
	if err := r.runFeeds(ctx, small, large); err != nil {
		return r.rep, err
	}
	if err := r.runReal(ctx, realSmall, realLarge); err != nil {
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

// serve starts `predictions serve` on the database at db, with extra
// flags.
func (r *runner) serve(ctx context.Context, name, db string, extra ...string) (*server, error) {
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
		return append(args, extra...)
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
	// pid, when not 0, is the server process whose CPU time each
	// measured round is charged.
	pid int
	t   tally
}

// httpSide drives scenario s against p with wrk.
func (r *runner) httpSide(s *scenario, p *proc) *side {
	return &side{name: s.name, pid: p.pid(), run: func(ctx context.Context, d time.Duration, t *tally) error {
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
	for _, sd := range sides {
		sd.t.cpuKnown = true // until a round cannot read it
	}
	for range r.cfg.Rounds {
		for _, sd := range sides {
			if err == nil && ctx.Err() == nil {
				before, ok := processCPU(sd.pid)
				err = sd.run(ctx, r.cfg.Duration, &sd.t)
				after, ok2 := processCPU(sd.pid)
				sd.t.cpu += after - before
				sd.t.cpuKnown = sd.t.cpuKnown && ok && ok2
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
