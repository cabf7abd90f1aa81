package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/loadbench"
)

// backlogStreams turns TestBacklogStreams on: how many streams ask for
// the whole backlog and read nothing (docs/RELIABILITY.md: 1000).
var backlogStreams = flag.Int("backlog-streams", 0, "TestBacklogStreams: open this many event streams that ask for the whole backlog and never read (0: skip)")

// The goals of TestBacklogStreams.
const (
	backlogEvents    = 10_000
	backlogPostP99   = 200 * time.Millisecond
	backlogRSSGoalMB = 150
)

// TestBacklogStreams: -backlog-streams N streams (GET /api/events with
// last_event_id=0) on a board of 10,000 events, each asking for the whole
// backlog and reading nothing, cannot starve the board: while they are
// open, one post every 100 ms for 20 s keeps its p99 under 200 ms, every
// /healthz probe (one a second) answers 200, and the server's peak RSS
// (VmHWM) stays under 150 MB. Run it with
//
//	go test -run 'TestBacklogStreams$' -v ./cmd/predictions/ -args -backlog-streams 1000
func TestBacklogStreams(t *testing.T) {
	if *backlogStreams <= 0 {
		t.Skip("set -backlog-streams N (such as 1000) to run it")
	}
	db := filepath.Join(t.TempDir(), "board.db")
	seedEventsDB(t, db, backlogEvents)
	p := startServer(t, buildBinary(t), db)
	client := &http.Client{Timeout: 30 * time.Second}
	if _, err := fetch(client, http.MethodGet, p.url("/healthz"), nil); err != nil {
		t.Fatal(err)
	}
	// The same probes without streams first, for the machine's own
	// latency (it may be shared).
	base, _, _ := probeBoard(t, p, 10*time.Second)
	slices.Sort(base)
	idle := loadbench.SampleRSS(p.cmd.Process.Pid).Finish("idle").AfterMB
	mem := loadbench.SampleRSS(p.cmd.Process.Pid)

	// The streams, opened 50 at a time; none is ever read.
	conns := make([]net.Conn, *backlogStreams)
	var open sync.WaitGroup
	sem := make(chan struct{}, 50)
	start := time.Now()
	for i := range conns {
		sem <- struct{}{}
		open.Go(func() {
			defer func() { <-sem }()
			c, err := net.DialTimeout("tcp", p.addr, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			conns[i] = c
			_, _ = io.WriteString(c, "GET /api/events?last_event_id=0 HTTP/1.1\r\nHost: x\r\n\r\n")
		})
	}
	open.Wait()
	t.Logf("%d streams asking for the backlog of %d events opened in %s", len(conns), backlogEvents, time.Since(start).Round(time.Millisecond))
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()

	// The probes, while the streams are open: a post every 100 ms, a
	// health check every second, for 20 s.
	posts, failed, healthz := probeBoard(t, p, 20*time.Second)
	m := mem.Finish("predictions serve")
	if b, err := fetch(client, http.MethodGet, p.url("/metrics"), nil); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "predictions_http_requests_in_flight") || strings.HasPrefix(line, "go_gc_duration_seconds_count") ||
				strings.HasPrefix(line, "process_cpu_seconds_total") || strings.Contains(line, `route="/api/events"`) {
				t.Log(line)
			}
		}
	}

	// How far the streams got: the events each read from its socket now.
	received := 0
	for _, c := range conns[:min(len(conns), 10)] {
		if c != nil {
			received += countEvents(c)
		}
	}
	slices.Sort(posts)
	pct := func(q float64) time.Duration { return percentile(posts, q) }
	notOK := 0
	for _, c := range healthz {
		if c != http.StatusOK {
			notOK++
		}
	}
	t.Logf("without streams: %d posts, p50 %s, p99 %s, max %s", len(base), percentile(base, 0.5).Round(time.Millisecond),
		percentile(base, 0.99).Round(time.Millisecond), percentile(base, 1).Round(time.Millisecond))
	t.Logf("%d backlog streams that never read, board of %d events: %d posts, p50 %s, p99 %s, max %s (goal p99 < %s), %d failed %v; "+
		"/healthz %d probes, %d not 200 %v; server RSS idle %.1f MB, peak sampled %.1f MB, VmHWM %.1f MB (goal < %d MB); "+
		"the first 10 streams had %d events waiting in their sockets",
		len(conns), backlogEvents, len(posts), pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond), backlogPostP99,
		len(failed), firstFew(failed), len(healthz), notOK, healthz, idle, m.PeakRSSMB, m.HWMMB, backlogRSSGoalMB, received)
	if len(failed) > 0 {
		t.Errorf("%d of %d posts failed: %v", len(failed), len(posts), firstFew(failed))
	}
	if pct(0.99) >= backlogPostP99 {
		t.Errorf("posts' p99 %s, want under %s", pct(0.99), backlogPostP99)
	}
	if notOK > 0 {
		t.Errorf("/healthz: %d of %d probes not 200: %v", notOK, len(healthz), healthz)
	}
	if m.HWMMB >= backlogRSSGoalMB {
		t.Errorf("VmHWM %.1f MB, want under %d MB", m.HWMMB, backlogRSSGoalMB)
	}
}

// probeBoard posts a prediction every 100 ms and asks /healthz every
// second for d, and returns the posts' latencies, the failures and the
// health checks' statuses (0: no answer).
func probeBoard(t *testing.T, p *proc, d time.Duration) (posts []time.Duration, failed []string, healthz []int) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		mu     sync.Mutex
		probes sync.WaitGroup
	)
	body, err := json.Marshal(apitest.Pred())
	if err != nil {
		t.Fatal(err)
	}
	probes.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			req, _ := http.NewRequest(http.MethodPost, p.url("/api/predictions"), bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer agent-a")
			t0 := time.Now()
			resp, err := client.Do(req)
			d := time.Since(t0)
			mu.Lock()
			switch {
			case err != nil:
				failed = append(failed, err.Error())
			case resp.StatusCode != http.StatusCreated:
				failed = append(failed, resp.Status)
			}
			posts = append(posts, d)
			mu.Unlock()
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	})
	probes.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			code := 0
			if resp, err := client.Get(p.url("/healthz")); err == nil {
				code = resp.StatusCode
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			mu.Lock()
			healthz = append(healthz, code)
			mu.Unlock()
		}
	})
	probes.Wait()
	return posts, failed, healthz
}

// percentile is the q-quantile of sorted ds.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// firstFew is the first 5 of ss.
func firstFew(ss []string) []string { return ss[:min(len(ss), 5)] }

// countEvents reads what c's socket holds now, without waiting, and
// counts the events in it.
func countEvents(c net.Conn) int {
	_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	n := 0
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "id: ") {
			n++
		}
	}
	return n
}

// seedEventsDB migrates the board at db and appends n forecast events to
// its log in one statement, each with about 300 bytes of data.
func seedEventsDB(t *testing.T, db string, n int) {
	t.Helper()
	s, err := board.Open(context.Background(), db, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	q := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ` + strconv.Itoa(n) + `)
INSERT INTO board_events (type, at, prediction_id, domain, author_id, agent_id, data)
SELECT 'forecast.created', strftime('%Y-%m-%d %H:%M:%S', 'now') || '+00:00', printf('pred-%05d', i % 500), 'Climate', 'agent-a',
	printf('agent-%04d', i % 100), '{"forecast_id":"' || printf('%036d', i) || '","p":0.42,"note":"' || hex(randomblob(100)) || '"}'
FROM n`
	cmd := exec.Command(buildSQLExec(t), db)
	cmd.Stdin = strings.NewReader(q)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seeding %d events: %v\n%s", n, err, out)
	}
	t.Logf("seeded %s", fmt.Sprintf("%d events", n))
}
