package loadbench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

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
// own with a body of size bytes, under the same requests; with Ceilings,
// the tool's ceilings too, each in a process of its own.
func (r *runner) toolVersusBare(ctx context.Context, s *scenario, srv *server, size int) error {
	p, err := r.startBare(ctx, size)
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
	sides := []*side{r.httpSide(bs, p)}
	var ceilings []*scenario
	if tool, ok := toolOf(s); ok && r.cfg.Ceilings {
		for _, stage := range Stages {
			cp, err := r.startBare(ctx, size, "-tool", tool, "-stage", stage)
			if err != nil {
				return err
			}
			defer cp.stop()
			cs := &scenario{name: "ceiling: " + stageNames[stage] + ", for " + s.name, group: "ceiling",
				method: s.method, path: s.path, header: s.header, body: s.body, check: s.check}
			if stage != StageAnswer {
				cs.check = wantStatus(http.StatusOK, `{"pad":"`)
			}
			got, err := preflight(ctx, cs, cp)
			if err != nil {
				return err
			}
			if stage != StageAnswer && len(got) != size {
				return fmt.Errorf("%s answered %d bytes, want %d", cs.name, len(got), size)
			}
			ceilings = append(ceilings, cs)
			sides = append(sides, r.httpSide(cs, cp))
		}
	}
	api := r.httpSide(s, srv.proc)
	api.profile = srv
	fs, err := r.compare(ctx, append(sides, api)...)
	if err != nil {
		return err
	}
	bare, f := fs[0], fs[len(fs)-1]
	r.addRow(bs, bare, size)
	for i, cs := range ceilings {
		c := fs[1+i]
		row := r.addRow(cs, c, size)
		row.Baseline = fmt.Sprintf("bare %s/s", thousands(bare.rps))
		row.Ratio, row.RoundRatios = ratio(c.rps, bare.rps), roundRatios(c, bare)
	}
	row := r.addRow(s, f, size)
	row.Baseline = fmt.Sprintf("bare %s/s", thousands(bare.rps))
	row.Ratio, row.RoundRatios = ratio(f.rps, bare.rps), roundRatios(f, bare)
	row.Goal = fmt.Sprintf("≥ %.1f× bare, p99 < %d ms", ToolGoal, ToolP99)
	row.Met = met(row.Ratio >= ToolGoal && row.P99MS < ToolP99 && f.errors == 0)
	return p.stop()
}

// startBare starts the bare handler with a body of size bytes and the
// extra arguments.
func (r *runner) startBare(ctx context.Context, size int, extra ...string) (*proc, error) {
	name := "bare handler"
	if len(extra) > 0 {
		name = "ceiling " + strings.Join(extra, " ")
	}
	return start(ctx, name, r.bare[0], func(addr string) []string {
		args := append(slices.Clone(r.bare[1:]), "-addr", addr, "-body-size", strconv.Itoa(size))
		return append(args, extra...)
	}, "/")
}

// toolOf returns the calculation tool a POST scenario calls.
func toolOf(s *scenario) (string, bool) {
	name, ok := strings.CutPrefix(s.path, "/api/v1/")
	return name, ok && s.method == http.MethodPost && !strings.ContainsAny(name, "/?")
}

// runFeeds seeds a board with SmallSeed predictions and, with Large, a copy
// of it grown to LargeSeed; serves both; and runs each feed scenario over
// both in the same rounds, sampling the large server's memory throughout.
func (r *runner) runFeeds(ctx context.Context, small, large []*scenario) error {
	var pairs [][2]*scenario // small and large, either nil
	for i, s := range small {
		var l *scenario
		if len(large) > 0 && r.sel[large[i].name] {
			l = large[i]
		}
		if r.sel[s.name] || l != nil {
			pairs = append(pairs, [2]*scenario{s, l})
		}
	}
	for _, l := range large[min(len(small), len(large)):] { // after a cursor: the large board only
		if r.sel[l.name] {
			pairs = append(pairs, [2]*scenario{nil, l})
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
	memSmall := SampleRSS(sSmall.pid())
	var sLarge *server
	var memLarge *Sampler
	if slices.ContainsFunc(pairs, func(p [2]*scenario) bool { return p[1] != nil }) {
		largeDB, err := r.seed(ctx, smallDB, r.cfg.SmallSeed, r.cfg.LargeSeed)
		if err != nil {
			memSmall.Finish("")
			return err
		}
		if sLarge, err = r.serve(ctx, fmt.Sprintf("predictions serve, %s predictions", thousands(float64(r.cfg.LargeSeed))), largeDB); err != nil {
			memSmall.Finish("")
			return err
		}
		defer sLarge.stop()
		memLarge = SampleRSS(sLarge.pid())
	}
	for _, pair := range pairs {
		if err := r.runFeedPair(ctx, pair[0], pair[1], sSmall, sLarge); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	r.rep.Memory = append(r.rep.Memory, memSmall.Finish(sSmall.name))
	if memLarge != nil {
		m := memLarge.Finish(sLarge.name)
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

// runFeedPair runs a feed scenario over the small board and its
// counterpart over the large one (either may be nil), in the same rounds.
// A cursor scenario runs beside the first page of its board, its
// baseline.
func (r *runner) runFeedPair(ctx context.Context, sm, lg *scenario, sSmall, sLarge *server) error {
	type run struct {
		s, first *scenario
		srv      *server
		body     []byte
	}
	var runs []*run
	if sm != nil {
		runs = append(runs, &run{s: sm, srv: sSmall})
	}
	if lg != nil {
		runs = append(runs, &run{s: lg, srv: sLarge})
	}
	var sides []*side
	for _, rn := range runs {
		if err := resolveCursor(ctx, rn.s, rn.srv.proc); err != nil {
			return err
		}
		body, err := preflight(ctx, rn.s, rn.srv.proc)
		if err != nil {
			return err
		}
		rn.body = body
		sd := r.httpSide(rn.s, rn.srv.proc)
		sd.profile = rn.srv
		sides = append(sides, sd)
		if rn.s.cursorAt > 0 {
			rn.first = rn.s.firstPage()
			if _, err := preflight(ctx, rn.first, rn.srv.proc); err != nil {
				return err
			}
			sides = append(sides, r.httpSide(rn.first, rn.srv.proc))
		}
	}
	fs, err := r.compare(ctx, sides...)
	if err != nil {
		return err
	}
	var i int
	for _, rn := range runs {
		f := fs[i]
		row := r.addRow(rn.s, f, len(rn.body))
		i++
		switch {
		case rn.first != nil:
			first := fs[i]
			i++
			row.Baseline = fmt.Sprintf("first page, same board and rounds: p50 %s ms", ms(first.p50))
			row.Ratio = ratio(float64(f.p50), float64(first.p50))
			row.Goal = fmt.Sprintf("p50 ≤ %.1f× first page", CursorGoal)
			row.Met = met(row.Ratio <= CursorGoal && f.errors == 0)
		case rn.s == lg && sm != nil: // against the same page over the small board
			row.Baseline = fmt.Sprintf("n=%s: p50 %s ms", count(r.cfg.SmallSeed), ms(fs[0].p50))
			row.Ratio = ratio(float64(f.p50), float64(fs[0].p50))
			row.Goal = "reported (deep offset may grow)"
			if lg.offset == 0 {
				row.Goal = fmt.Sprintf("p50 ≤ %.1f× n=%s", FeedGoal, count(r.cfg.SmallSeed))
				row.Met = met(row.Ratio <= FeedGoal && f.errors == 0)
			}
		}
	}
	return nil
}

func (r *runner) addRow(s *scenario, f figures, bodyBytes int) *Row {
	r.rep.Rows = append(r.rep.Rows, Row{
		Scenario: s.name, Group: s.group, Conns: r.cfg.Conns, Requests: f.requests, RPS: f.rps,
		P50MS: msf(f.p50), P99MS: msf(f.p99), Errors: f.errors, ErrorText: f.errText, BodyBytes: bodyBytes,
		Load1: load1(), CPUPerRequestUS: float64(f.cpuPerRequest) / float64(time.Microsecond),
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
