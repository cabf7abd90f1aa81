package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/loadbench"
)

// The agent list's memory goal: a server over 100,000 agents stays under
// 100 MB while 20 clients list agents at once, over HTTP, the /agents page
// and MCP (docs/BENCHMARKS.md, "Bounded agent lists").
const (
	memoryAgents  = 100_000
	memoryClients = 20
	memoryRounds  = 2 // list calls per client: limit 200, then 100,000 (clamped) after the cursor
	memoryGoalMB  = 100
)

// TestAgentListMemorySQLite and TestAgentListMemoryPostgres seed 100,000
// agents, start the real binary with its defaults and have 20 clients
// list agents in parallel, each twice, the largest page (limit 200, and
// limit 100000 clamped to it) by every sort, following next_cursor: a
// third over GET /api/agents, a third the /agents page, a third the MCP
// tool list_agents. The server's resident memory is sampled every 50 ms
// (loadbench.SampleRSS) and its peak (VmHWM) must stay under 100 MB.
func TestAgentListMemorySQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100,000 agents and runs the binary; skipped with -short")
	}
	db := filepath.Join(t.TempDir(), "board.db")
	seedAgentsDB(t, db)
	agentListMemory(t, db)
}

func TestAgentListMemoryPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100,000 agents and runs the binary; skipped with -short")
	}
	db := pgDatabase(t)
	seedAgentsDB(t, db)
	agentListMemory(t, db)
}

// seedAgentsDB migrates the board at db and inserts memoryAgents agents
// in one statement: a quarter never scored, the others with peer and
// Brier sums that spread them over every sort, one second apart.
func seedAgentsDB(t *testing.T, db string) {
	t.Helper()
	ctx := context.Background()
	s, err := board.Open(ctx, db, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if strings.HasPrefix(db, "postgres") {
		conn := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(db)))
		defer conn.Close()
		q := `INSERT INTO agents (id, name, first_seen, last_seen, predictions, forecasts, scored, peer_sum, fbrier_sum)
SELECT 'agent-' || lpad(i::text, 6, '0'), 'Agent ' || i,
	timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second', timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second',
	1, s + i % 3, s, s * ((i * 37) % 200 - 100) / 10.0, s * ((i * 13) % 100) / 100.0
FROM (SELECT i, CASE WHEN i % 4 = 0 THEN 0 ELSE 1 + i % 9 END AS s FROM generate_series(0, ` + strconv.Itoa(memoryAgents-1) + `) AS i) AS g`
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("seeding %d agents: %v", memoryAgents, err)
		}
	} else {
		// Times as the board stores them on SQLite: UTC, "+00:00". The
		// statement runs in sqlexec, built without the race detector.
		q := `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ` + strconv.Itoa(memoryAgents-1) + `),
g(i, s) AS (SELECT i, CASE WHEN i % 4 = 0 THEN 0 ELSE 1 + i % 9 END FROM n)
INSERT INTO agents (id, name, first_seen, last_seen, predictions, forecasts, scored, peer_sum, fbrier_sum)
SELECT printf('agent-%06d', i), 'Agent ' || i,
	strftime('%Y-%m-%d %H:%M:%S', 1767225600 + i, 'unixepoch') || '+00:00', strftime('%Y-%m-%d %H:%M:%S', 1767225600 + i, 'unixepoch') || '+00:00',
	1, s + i % 3, s, s * ((i * 37) % 200 - 100) / 10.0, s * ((i * 13) % 100) / 100.0
FROM g`
		cmd := exec.Command(buildSQLExec(t), db)
		cmd.Stdin = strings.NewReader(q)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("seeding %d agents: %v\n%s", memoryAgents, err, out)
		}
	}
	t.Logf("seeded %d agents in %s", memoryAgents, time.Since(start).Round(time.Millisecond))
}

// agentListMemory runs the load against the binary serving db.
func agentListMemory(t *testing.T, db string) {
	p := startServer(t, buildBinary(t), db)
	pid := p.cmd.Process.Pid
	client := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: memoryClients}}
	// One call of each kind first, so that the idle figure is of a
	// server that has served them.
	for _, call := range []listCall{apiList, pageList, mcpList} {
		if _, err := call(client, p, "recent", 50, ""); err != nil {
			t.Fatal(err)
		}
	}
	idle := loadbench.SampleRSS(pid).Finish("idle").AfterMB
	mem := loadbench.SampleRSS(pid)
	start := time.Now()
	sorts := []string{"recent", "peer_score", "brier", "trust"}
	calls := []listCall{apiList, pageList, mcpList}
	var wg sync.WaitGroup
	errs := make(chan error, memoryClients)
	var agents, requests int64
	var count sync.Mutex
	for c := range memoryClients {
		wg.Go(func() {
			call := calls[c%len(calls)]
			sort := sorts[c%len(sorts)]
			cursor := ""
			for r := range memoryRounds {
				limit := board.MaxAgentLimit
				if r%2 == 1 {
					limit = memoryAgents // clamped to 200 with a note
				}
				got, err := call(client, p, sort, limit, cursor)
				if err != nil {
					errs <- err
					return
				}
				count.Lock()
				agents, requests = agents+int64(got.n), requests+1
				count.Unlock()
				if got.n != board.MaxAgentLimit || got.next == "" {
					errs <- fmt.Errorf("%s sort=%s limit=%d: %d agents, next_cursor %q; want %d and a cursor", got.kind, sort, limit, got.n, got.next, board.MaxAgentLimit)
					return
				}
				cursor = got.next
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	m := mem.Finish("predictions serve")
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d agents, %d clients × %d list calls (API, page and MCP; limit 200): %d requests, %d agents listed in %s; "+
		"server RSS idle %.1f MB, peak sampled %.1f MB (%d samples), VmHWM %.1f MB (goal < %d MB)",
		memoryAgents, memoryClients, memoryRounds, requests, agents, elapsed.Round(10*time.Millisecond), idle, m.PeakRSSMB, m.Samples, m.HWMMB, memoryGoalMB)
	if m.HWMMB == 0 || m.HWMMB >= memoryGoalMB {
		t.Errorf("VmHWM %.1f MB, want under %d MB", m.HWMMB, memoryGoalMB)
	}
}

// listed is what one list call gave: how many agents and the next cursor.
type listed struct {
	kind string
	n    int
	next string
}

// listCall lists one page of agents.
type listCall func(c *http.Client, p *proc, sort string, limit int, cursor string) (listed, error)

func listQuery(sort string, limit int, cursor string) string {
	v := url.Values{"sort": {sort}, "limit": {strconv.Itoa(limit)}}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	return v.Encode()
}

// apiList is GET /api/agents.
func apiList(c *http.Client, p *proc, sort string, limit int, cursor string) (listed, error) {
	var page struct {
		Agents     []json.RawMessage `json:"agents"`
		NextCursor string            `json:"next_cursor"`
	}
	body, err := fetch(c, http.MethodGet, p.url("/api/agents?"+listQuery(sort, limit, cursor)), nil)
	if err == nil {
		err = json.Unmarshal(body, &page)
	}
	return listed{"GET /api/agents", len(page.Agents), page.NextCursor}, err
}

// pageNext finds the Next link of the /agents page.
var pageNext = []byte(`<a rel="next" href="/agents?`)

// pageList is the /agents page.
func pageList(c *http.Client, p *proc, sort string, limit int, cursor string) (listed, error) {
	body, err := fetch(c, http.MethodGet, p.url("/agents?"+listQuery(sort, limit, cursor)), nil)
	l := listed{kind: "/agents", n: bytes.Count(body, []byte(`<th scope="row"><a class="agent"`))}
	if i := bytes.Index(body, pageNext); i >= 0 {
		rest := body[i+len(pageNext):]
		if v, err := url.ParseQuery(strings.ReplaceAll(string(rest[:bytes.IndexByte(rest, '"')]), "&amp;", "&")); err == nil {
			l.next = v.Get("cursor")
		}
	}
	return l, err
}

// mcpList is the MCP tool list_agents, as a plain JSON-RPC POST.
func mcpList(c *http.Client, p *proc, sort string, limit int, cursor string) (listed, error) {
	args := map[string]any{"sort": sort, "limit": limit}
	if cursor != "" {
		args["cursor"] = cursor
	}
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "list_agents", "arguments": args}})
	var res struct {
		Result struct {
			StructuredContent struct {
				Agents     []json.RawMessage `json:"agents"`
				NextCursor string            `json:"next_cursor"`
			} `json:"structuredContent"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	body, err := fetch(c, http.MethodPost, p.url("/mcp"), req)
	if err == nil {
		err = json.Unmarshal(body, &res)
	}
	if err == nil && res.Result.IsError {
		err = fmt.Errorf("list_agents: tool error %.300s", body)
	}
	sc := res.Result.StructuredContent
	return listed{"MCP list_agents", len(sc.Agents), sc.NextCursor}, err
}

// fetch sends a request and returns the body of a 200.
func fetch(c *http.Client, method, u string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s %s: status %d: %.300s", method, u, resp.StatusCode, b)
	}
	return b, err
}
