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
	"slices"
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
	// Rounds is how many turns the sides of a comparison (a scenario and
	// its baseline) take, each Duration/Rounds long; 0 means 3.
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
	c.Duration, c.Warmup, c.Rounds = 200*time.Millisecond, 50*time.Millisecond, 1
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
		LoadStart: load1(), DurationS: cfg.Duration.Seconds(), Rounds: cfg.Rounds, Conns: cfg.Conns,
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
	run func(ctx context.Context, d time.Duration, t *tally)
	// profile, when set, is the server to take a CPU profile of.
	profile *server
	t       tally
}

// httpSide drives scenario s against p.
func (r *runner) httpSide(s *scenario, p *proc) *side {
	c := newClient(r.cfg.Conns)
	tr := s.newTargeter(p.url(""))
	return &side{name: s.name, run: func(ctx context.Context, d time.Duration, t *tally) {
		attack(ctx, c, tr, r.cfg.Conns, d, t)
	}}
}

// compare warms each side up, then runs them in turn, Duration/Rounds at a
// time, so that each is measured for Duration and a change in the load of
// the machine falls on all of them alike. It returns their figures.
func (r *runner) compare(ctx context.Context, sides ...*side) []figures {
	var names []string
	for _, sd := range sides {
		names = append(names, sd.name)
	}
	r.logf("%s", strings.Join(names, " | "))
	for _, sd := range sides {
		sd.run(ctx, r.cfg.Warmup, nil)
	}
	var wg sync.WaitGroup
	if r.cfg.ProfileDir != "" {
		secs := max(1, int((r.cfg.Duration * time.Duration(len(sides))).Seconds()))
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
	per := r.cfg.Duration / time.Duration(r.cfg.Rounds)
	for range r.cfg.Rounds {
		for _, sd := range sides {
			if ctx.Err() == nil {
				sd.run(ctx, per, &sd.t)
			}
		}
	}
	wg.Wait()
	out := make([]figures, len(sides))
	for i, sd := range sides {
		out[i] = sd.t.figures()
		r.figs[sd.name] = out[i]
	}
	return out
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
			fs := r.compare(ctx, restSide, mcpSide)
			row := r.addRow(s, fs[1], len(body))
			row.Baseline = fmt.Sprintf("REST POST %s/s", thousands(fs[0].rps))
			row.Ratio = ratio(fs[1].rps, fs[0].rps)
			row.Goal = fmt.Sprintf("≥ %.1f× REST", MCPGoal)
			row.Met = met(row.Ratio >= MCPGoal && fs[1].errors == 0)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}

	if r.sel[write.name] || r.sel[rawInsertName] {
		ri, err := openRawInserter(ctx, r.dir, writeAgents)
		if err != nil {
			return fmt.Errorf("raw insert baseline: %w", err)
		}
		defer ri.close()
		sides := []*side{{name: rawInsertName, run: func(ctx context.Context, d time.Duration, t *tally) {
			ri.run(ctx, r.cfg.Conns, d, t)
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
		fs := r.compare(ctx, sides...)
		r.addRow(&scenario{name: rawInsertName, group: GroupWrites}, fs[0], 0)
		if len(fs) > 1 {
			row := r.addRow(write, fs[1], len(body))
			row.Baseline = fmt.Sprintf("raw insert %s rows/s", thousands(fs[0].rps))
			row.Ratio = ratio(fs[1].rps, fs[0].rps)
			row.Goal = fmt.Sprintf("≥ %.1f× raw insert, 0 errors", WriteGoal)
			row.Met = met(row.Ratio >= WriteGoal && fs[1].errors == 0)
		}
	}
	return srv.stop()
}

// toolVersusBare measures s against the bare handler, in a process of its
// own with a body of size bytes, under the same requests.
func (r *runner) toolVersusBare(ctx context.Context, s *scenario, srv *server, size int) error {
	p, err := start(ctx, "predictions bench-bare", r.exe, func(addr string) []string {
		return []string{"bench-bare", "-addr", addr, "-body-size", strconv.Itoa(size)}
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
	fs := r.compare(ctx, r.httpSide(bs, p), api)
	bare, f := fs[0], fs[1]
	r.addRow(bs, bare, size)
	row := r.addRow(s, f, size)
	row.Baseline = fmt.Sprintf("bare %s/s", thousands(bare.rps))
	row.Ratio = ratio(f.rps, bare.rps)
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
		fs := r.compare(ctx, sides...)
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

// seedVersion names the seed data; change it when seedPrediction changes,
// so that boards kept in SeedDir are made anew.
const seedVersion = "v1"

// seed returns a board holding predictions 0 to to-1: a copy of the board
// at from (holding 0 to have-1) when from is set, then imported. With
// SeedDir, a board seeded there by an earlier run is reused.
func (r *runner) seed(ctx context.Context, from string, have, to int) (string, error) {
	dir := r.dir
	if r.cfg.SeedDir != "" {
		dir = r.cfg.SeedDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("feed-%d-%s.db", to, seedVersion))
	done := path + ".done"
	if _, err := os.Stat(done); err == nil && r.cfg.SeedDir != "" {
		r.logf("reusing %s", path)
		r.rep.Seeding = append(r.rep.Seeding, fmt.Sprintf("%s predictions: reused from %s", thousands(float64(to)), path))
		return path, nil
	}
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	r.logf("seeding %s predictions", thousands(float64(to)))
	t := time.Now()
	if from != "" {
		if err := copyFile(from, path); err != nil {
			return "", err
		}
	} else {
		have = 0
	}
	if err := seed(ctx, path, have, to); err != nil {
		return "", err
	}
	r.rep.Seeding = append(r.rep.Seeding, fmt.Sprintf("%s predictions: %s", thousands(float64(to)), time.Since(t).Round(100*time.Millisecond)))
	if r.cfg.SeedDir != "" {
		if err := os.WriteFile(done, []byte(seedVersion+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}

// copyFile copies a closed SQLite database (its WAL checkpointed) to dst.
func copyFile(src, dst string) error {
	if fi, err := os.Stat(src + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("copying %s: its write-ahead log is not checkpointed", src)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
