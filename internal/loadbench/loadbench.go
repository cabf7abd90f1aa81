package loadbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Config configures [Run]. The zero value runs every scenario except the
// 1,000,000-prediction ones, 5 s each at 64 connections.
type Config struct {
	// Exe is the predictions binary to start as servers and baselines;
	// "" means the running executable (os.Executable).
	Exe string
	// Duration is how long each scenario is measured; 0 means 5 s.
	Duration time.Duration
	// Warmup runs before each measurement on the same connections and is
	// not counted; 0 means Duration/5, at most 1 s.
	Warmup time.Duration
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
	// TempDir holds the databases; "" means a new temporary directory,
	// removed at the end.
	TempDir string
	// Progress receives a line per step; nil means none.
	Progress io.Writer
}

// Quick returns c with the durations and seeds of a smoke run (tests, CI):
// figures from it show that every scenario works, not how fast.
func Quick(c Config) Config {
	c.Duration, c.Warmup = 200*time.Millisecond, 50*time.Millisecond
	c.SmallSeed, c.LargeSeed, c.DeepOffset = 1000, 3000, 500
	return c
}

func (c Config) withDefaults() Config {
	if c.Duration <= 0 {
		c.Duration = 5 * time.Second
	}
	if c.Warmup <= 0 {
		c.Warmup = min(c.Duration/5, time.Second)
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
	Conns      int     `json:"conns"`
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
	r := &runner{cfg: cfg, exe: cfg.Exe, figs: map[string]figures{}}
	if r.exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the predictions binary: %w", err)
		}
		r.exe = exe
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
	if cfg.ProfileDir != "" {
		if err := os.MkdirAll(cfg.ProfileDir, 0o755); err != nil {
			return nil, err
		}
	}
	r.rep = &Report{Started: time.Now().UTC(), Machine: Machine{
		CPUs: runtime.NumCPU(), CPUModel: cpuModel(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		LoadStart: load1(), DurationS: cfg.Duration.Seconds(), Conns: cfg.Conns, SmallSeed: cfg.SmallSeed, DeepOffset: cfg.DeepOffset,
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
	all := append(append(append(append([]*scenario{}, tools...), write), small...), large...)
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

// serve starts `predictions serve` on the database at db.
func (r *runner) serve(ctx context.Context, name, db string) (*proc, string, error) {
	pprofAddr := ""
	if r.cfg.ProfileDir != "" {
		a, err := freeAddr()
		if err != nil {
			return nil, "", err
		}
		pprofAddr = a
	}
	p, err := start(ctx, name, r.exe, func(addr string) []string {
		args := []string{"serve", "--addr", addr, "--db", db}
		if pprofAddr != "" {
			args = append(args, "--pprof", pprofAddr)
		}
		return args
	}, "/healthz")
	return p, pprofAddr, err
}

// runTools runs the tool, MCP and write scenarios against one server on
// an empty board.
func (r *runner) runTools(ctx context.Context, tools []*scenario, write *scenario) error {
	needed := r.sel[write.name] || r.sel[rawInsertName]
	for _, s := range tools {
		needed = needed || r.sel[s.name]
	}
	if !needed {
		return nil
	}
	srv, pprofAddr, err := r.serve(ctx, "predictions serve", filepath.Join(r.dir, "tools.db"))
	if err != nil {
		return err
	}
	defer srv.stop()
	for _, s := range tools {
		if !r.sel[s.name] {
			continue
		}
		body, err := preflight(ctx, s, srv)
		if err != nil {
			return err
		}
		var row *Row
		if s.group == GroupTools {
			bare, err := r.bare(ctx, s, len(body))
			if err != nil {
				return err
			}
			f := r.measure(ctx, s, srv, pprofAddr)
			row = r.addRow(s, f, len(body))
			row.Baseline = fmt.Sprintf("bare %s/s", thousands(bare.rps))
			row.Ratio = ratio(f.rps, bare.rps)
			row.Goal = fmt.Sprintf("≥ %.1f× bare, p99 < %d ms", ToolGoal, ToolP99)
			row.Met = met(row.Ratio >= ToolGoal && row.P99MS < ToolP99 && f.errors == 0)
		} else {
			f := r.measure(ctx, s, srv, pprofAddr)
			row = r.addRow(s, f, len(body))
			if rest, ok := r.figs["POST convert_odds"]; ok {
				row.Baseline = fmt.Sprintf("REST POST %s/s", thousands(rest.rps))
				row.Ratio = ratio(f.rps, rest.rps)
				row.Goal = fmt.Sprintf("≥ %.1f× REST", MCPGoal)
				row.Met = met(row.Ratio >= MCPGoal && f.errors == 0)
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}

	if r.sel[rawInsertName] {
		r.logf("%s", rawInsertName)
		raw, err := rawInsert(ctx, r.dir, r.cfg.Conns, writeAgents, r.cfg.Warmup, r.cfg.Duration)
		if err != nil {
			return fmt.Errorf("raw insert baseline: %w", err)
		}
		r.figs[rawInsertName] = raw
		r.addRow(&scenario{name: rawInsertName, group: GroupWrites}, raw, 0)
	}
	if r.sel[write.name] {
		body, err := preflight(ctx, write, srv)
		if err != nil {
			return err
		}
		f := r.measure(ctx, write, srv, pprofAddr)
		row := r.addRow(write, f, len(body))
		if raw, ok := r.figs[rawInsertName]; ok {
			row.Baseline = fmt.Sprintf("raw insert %s rows/s", thousands(raw.rps))
			row.Ratio = ratio(f.rps, raw.rps)
			row.Goal = fmt.Sprintf("≥ %.1f× raw insert, 0 errors", WriteGoal)
			row.Met = met(row.Ratio >= WriteGoal && f.errors == 0)
		}
	}
	return srv.stop()
}

// bare measures the bare handler, in a process of its own, with a body of
// size bytes, under the requests of s.
func (r *runner) bare(ctx context.Context, s *scenario, size int) (figures, error) {
	p, err := start(ctx, "predictions bench-bare", r.exe, func(addr string) []string {
		return []string{"bench-bare", "-addr", addr, "-body-size", strconv.Itoa(size)}
	}, "/")
	if err != nil {
		return figures{}, err
	}
	defer p.stop()
	bs := &scenario{name: "bare handler, " + thousands(float64(size)) + " B, for " + s.name, group: "baseline",
		method: s.method, path: s.path, header: s.header, body: s.body, check: wantStatus(http.StatusOK, "")}
	got, err := preflight(ctx, bs, p)
	if err != nil {
		return figures{}, err
	}
	if len(got) != size {
		return figures{}, fmt.Errorf("bare handler answered %d bytes, want %d", len(got), size)
	}
	f := r.measure(ctx, bs, p, "")
	r.addRow(bs, f, size)
	return f, p.stop()
}

// runFeeds seeds the board, serves it and runs the feed scenarios, first
// over SmallSeed predictions, then (adding to the same file) over
// LargeSeed, sampling the server's memory throughout.
func (r *runner) runFeeds(ctx context.Context, small, large []*scenario) error {
	db := filepath.Join(r.dir, "feed.db")
	seeded := 0
	for _, set := range [][]*scenario{small, large} {
		var run []*scenario
		for _, s := range set {
			if r.sel[s.name] {
				run = append(run, s)
			}
		}
		if len(run) == 0 {
			continue
		}
		n := run[0].n
		r.logf("seeding %s predictions (%s stored)", thousands(float64(n)), thousands(float64(seeded)))
		t := time.Now()
		if err := seed(ctx, db, seeded, n); err != nil {
			return err
		}
		r.rep.Seeding = append(r.rep.Seeding, fmt.Sprintf("%s to %s predictions: %s", thousands(float64(seeded)),
			thousands(float64(n)), time.Since(t).Round(100*time.Millisecond)))
		seeded = n
		name := fmt.Sprintf("predictions serve, %s predictions", thousands(float64(n)))
		srv, pprofAddr, err := r.serve(ctx, name, db)
		if err != nil {
			return err
		}
		mem := sampleRSS(srv.pid())
		for _, s := range run {
			body, err := preflight(ctx, s, srv)
			if err != nil {
				mem.finish(name)
				srv.stop()
				return err
			}
			f := r.measure(ctx, s, srv, pprofAddr)
			row := r.addRow(s, f, len(body))
			if len(s.deps) > 0 {
				if base, ok := r.figs[s.deps[0]]; ok {
					row.Baseline = fmt.Sprintf("n=%s: p50 %s ms", count(r.cfg.SmallSeed), ms(base.p50))
					row.Ratio = ratio(float64(f.p50), float64(base.p50))
					if s.offset == 0 {
						row.Goal = fmt.Sprintf("p50 ≤ %.1f× n=%s", FeedGoal, count(r.cfg.SmallSeed))
						row.Met = met(row.Ratio <= FeedGoal && f.errors == 0)
					} else {
						row.Goal = "reported (deep offset may grow)"
					}
				}
			}
			if err := ctx.Err(); err != nil {
				mem.finish(name)
				srv.stop()
				return err
			}
		}
		m := mem.finish(name)
		if len(large) > 0 && set[0] == large[0] {
			m.LimitMB = MemoryGoalMB
			m.Met = met(m.HWMMB < MemoryGoalMB && m.PeakRSSMB < MemoryGoalMB)
		}
		r.rep.Memory = append(r.rep.Memory, m)
		if err := srv.stop(); err != nil {
			return err
		}
	}
	return nil
}

// preflight makes one request of s and checks the answer; it returns the
// response body.
func preflight(ctx context.Context, s *scenario, p *proc) ([]byte, error) {
	var t struct {
		method, url string
		body        []byte
		header      http.Header
	}
	if s.targeter != nil {
		var tg vegeta.Target
		if err := s.newTargeter(p.url(""))(&tg); err != nil {
			return nil, err
		}
		t.method, t.url, t.body, t.header = tg.Method, tg.URL, tg.Body, tg.Header
	} else {
		t.method, t.url, t.body, t.header = s.method, p.url(s.path), s.body, s.header
	}
	req, err := http.NewRequestWithContext(ctx, t.method, t.url, bytes.NewReader(t.body))
	if err != nil {
		return nil, err
	}
	for k, v := range t.header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	if err := s.check(resp.StatusCode, body); err != nil {
		return nil, fmt.Errorf("%s: wrong answer: %w", s.name, err)
	}
	return body, nil
}

// measure warms up, then drives s against p for the configured duration,
// taking a CPU profile meanwhile when asked to.
func (r *runner) measure(ctx context.Context, s *scenario, p *proc, pprofAddr string) figures {
	r.logf("%s", s.name)
	c := newClient(r.cfg.Conns)
	defer c.CloseIdleConnections()
	attack(ctx, c, s.newTargeter(p.url("")), r.cfg.Conns, r.cfg.Warmup)
	var wg sync.WaitGroup
	if r.cfg.ProfileDir != "" && pprofAddr != "" {
		secs := max(1, int(r.cfg.Duration.Seconds()))
		path := filepath.Join(r.cfg.ProfileDir, slug(s.name)+".pprof")
		wg.Go(func() {
			if err := fetchProfile(ctx, pprofAddr, secs, path); err != nil && !errors.Is(err, context.Canceled) {
				r.logf("profile of %s: %v", s.name, err)
			}
		})
	}
	f := attack(ctx, c, s.newTargeter(p.url("")), r.cfg.Conns, r.cfg.Duration)
	wg.Wait()
	r.figs[s.name] = f
	return f
}

func (r *runner) addRow(s *scenario, f figures, bodyBytes int) *Row {
	r.rep.Rows = append(r.rep.Rows, Row{
		Scenario: s.name, Group: s.group, Conns: r.cfg.Conns, Requests: f.requests, RPS: f.rps,
		P50MS: msf(f.p50), P99MS: msf(f.p99), Errors: f.errors, ErrorText: f.errText, BodyBytes: bodyBytes,
		Load1: load1(),
	})
	return &r.rep.Rows[len(r.rep.Rows)-1]
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
