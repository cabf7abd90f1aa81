package loadbench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// round is the outcome of one side in one round (one wrk run, or one run
// of the raw inserter).
type round struct {
	ok, errors uint64        // answered 2xx or 3xx; failed (socket errors, timeouts, status ≥ 400)
	elapsed    time.Duration // how long the round ran
	p50, p99   time.Duration // latency percentiles of the round
}

// tally accumulates the rounds of one side of a comparison.
type tally struct {
	rounds []round
	texts  map[string]bool
	// cpu is the CPU time (user and system) its server spent in the
	// rounds; cpuKnown is false where /proc cannot tell it.
	cpu      time.Duration
	cpuKnown bool
}

func (t *tally) fail(text string) {
	if t.texts == nil {
		t.texts = map[string]bool{}
	}
	if len(t.texts) < 5 {
		t.texts[text] = true
	}
}

// figures are the measurements of one scenario.
type figures struct {
	requests uint64
	rps      float64 // successful requests (or rows) per second, over all rounds
	p50, p99 time.Duration
	errors   uint64
	errText  []string  // distinct error texts, at most a few
	roundRPS []float64 // successful requests per second of each round
	// cpuPerRequest is the server's CPU time over the rounds divided by
	// their requests; 0 where unknown.
	cpuPerRequest time.Duration
}

// figures sums the rounds: the rate over their whole time, and the median
// of the rounds' percentiles (wrk reports percentiles per run, which
// cannot be merged exactly; the median of the rounds is robust to one
// round disturbed by the machine's other work).
func (t *tally) figures() figures {
	var f figures
	var elapsed time.Duration
	var p50s, p99s []time.Duration
	for _, r := range t.rounds {
		f.requests += r.ok + r.errors
		f.errors += r.errors
		elapsed += r.elapsed
		p50s, p99s = append(p50s, r.p50), append(p99s, r.p99)
		rps := 0.0
		if r.elapsed > 0 {
			rps = float64(r.ok) / r.elapsed.Seconds()
		}
		f.roundRPS = append(f.roundRPS, rps)
	}
	if elapsed > 0 {
		f.rps = float64(f.requests-f.errors) / elapsed.Seconds()
	}
	f.p50, f.p99 = median(p50s), median(p99s)
	if t.cpuKnown && f.requests > 0 {
		f.cpuPerRequest = t.cpu / time.Duration(f.requests)
	}
	for text := range t.texts {
		f.errText = append(f.errText, text)
	}
	slices.Sort(f.errText)
	return f
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[(len(ds)-1)/2]
}

// roundOf summarises latencies measured in process (the raw inserter).
func roundOf(lat []time.Duration, errors uint64, elapsed time.Duration) round {
	r := round{ok: uint64(len(lat)), errors: errors, elapsed: elapsed}
	if n := len(lat); n > 0 {
		lat = slices.Clone(lat)
		slices.Sort(lat)
		r.p50, r.p99 = lat[(n-1)*50/100], lat[(n-1)*99/100]
	}
	return r
}

// wrkDone is the Lua done() of every script: it prints the run's figures
// on one line that parseWrk reads. Latencies are in microseconds.
const wrkDone = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("wrk-result requests=%d duration_us=%d p50_us=%d p99_us=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
`

// wrkScript is the Lua script of s: its method, headers and body, then
// its own request() function when it varies requests, then wrkDone.
func wrkScript(s *scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %s\n", luaString([]byte(s.method)))
	keys := make([]string, 0, len(s.header))
	for k := range s.header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "wrk.headers[%s] = %s\n", luaString([]byte(k)), luaString([]byte(s.header.Get(k))))
	}
	if len(s.body) > 0 {
		fmt.Fprintf(&b, "wrk.body = %s\n", luaString(s.body))
	}
	b.WriteString(s.lua)
	b.WriteString(wrkDone)
	return b.String()
}

// luaString quotes b as a Lua string literal: printable ASCII as is, every
// other byte as a decimal escape (LuaJIT, which wrk embeds, knows no \u).
func luaString(b []byte) string {
	var s strings.Builder
	s.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			s.WriteByte('\\')
			s.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			s.WriteByte(c)
		default:
			fmt.Fprintf(&s, "\\%03d", c)
		}
	}
	s.WriteByte('"')
	return s.String()
}

// wrk runs the wrk binary.
type wrk struct {
	path    string // the wrk binary
	dir     string // where scripts are written
	conns   int
	threads int
}

// run drives s against base (http://host:port) closed-loop for d (whole
// seconds, at least 1: wrk's resolution) and returns the round. A
// response with a status of 400 or more, a socket error or a timeout
// counts as an error (wrk's own rule: a 3xx is a success).
func (w *wrk) run(ctx context.Context, s *scenario, base string, d time.Duration) (wrkResult, error) {
	script := filepath.Join(w.dir, "wrk-"+slug(s.name)+".lua")
	if err := os.WriteFile(script, []byte(wrkScript(s)), 0o644); err != nil {
		return wrkResult{}, err
	}
	secs := max(1, int((d+time.Second/2)/time.Second))
	threads := max(1, min(w.threads, w.conns))
	cmd := exec.CommandContext(ctx, w.path, "-t", strconv.Itoa(threads), "-c", strconv.Itoa(w.conns),
		"-d", strconv.Itoa(secs)+"s", "--timeout", "30s", "-s", script, base+s.path)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return wrkResult{}, fmt.Errorf("%s: wrk: %v: %s%s", s.name, err, errOut.Bytes(), out.Bytes())
	}
	r, err := parseWrk(&out)
	if err != nil {
		return wrkResult{}, fmt.Errorf("%s: %w", s.name, err)
	}
	return r, nil
}

// wrkResult is the line wrkDone prints, with wrk's error counts.
type wrkResult struct {
	round
	connect, read, write, status, timeout uint64
}

// parseWrk reads wrk's output for the line wrkDone printed.
func parseWrk(out io.Reader) (wrkResult, error) {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "wrk-result ")
		if !ok {
			continue
		}
		v := map[string]uint64{}
		for field := range strings.FieldsSeq(line) {
			k, num, ok := strings.Cut(field, "=")
			n, err := strconv.ParseUint(num, 10, 64)
			if !ok || err != nil {
				return wrkResult{}, fmt.Errorf("wrk printed %q: %q is not name=count", line, field)
			}
			v[k] = n
		}
		for _, k := range []string{"requests", "duration_us", "p50_us", "p99_us", "connect", "read", "write", "status", "timeout"} {
			if _, ok := v[k]; !ok {
				return wrkResult{}, fmt.Errorf("wrk printed %q without %s", line, k)
			}
		}
		r := wrkResult{connect: v["connect"], read: v["read"], write: v["write"], status: v["status"], timeout: v["timeout"]}
		r.errors = r.connect + r.read + r.write + r.status + r.timeout
		// requests counts answers, the status errors among them; socket
		// errors and timeouts are not answers.
		r.ok = v["requests"] - min(v["requests"], r.status)
		r.elapsed = time.Duration(v["duration_us"]) * time.Microsecond
		r.p50, r.p99 = time.Duration(v["p50_us"])*time.Microsecond, time.Duration(v["p99_us"])*time.Microsecond
		return r, nil
	}
	if err := sc.Err(); err != nil {
		return wrkResult{}, err
	}
	return wrkResult{}, fmt.Errorf("wrk printed no wrk-result line (is the script's done() replaced?)")
}

// add records r in t, naming its errors.
func (t *tally) add(r wrkResult) {
	t.rounds = append(t.rounds, r.round)
	for _, e := range []struct {
		name string
		n    uint64
	}{{"connect", r.connect}, {"read", r.read}, {"write", r.write}, {"status ≥ 400", r.status}, {"timeout", r.timeout}} {
		if e.n > 0 {
			t.fail(e.name)
		}
	}
}

// preflight makes one request of s and checks the answer; it returns the
// response body.
func preflight(ctx context.Context, s *scenario, p *proc) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, s.method, p.url(s.path), bytes.NewReader(s.body))
	if err != nil {
		return nil, err
	}
	for k, v := range s.header {
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
