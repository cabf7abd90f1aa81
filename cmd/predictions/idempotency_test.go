package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestServeIdempotencyReplicas runs two serve processes on one database
// (a SQLite file; PostgreSQL when PREDICTIONS_TEST_POSTGRES is set) and
// sends one post with one Idempotency-Key to both at once, many times:
// one prediction is stored, every answer is the 201 or a 409 for the key
// in flight, and a retry afterwards, on either replica, replays the first
// answer.
func TestServeIdempotencyReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dbs := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "board.db") },
		"postgres": pgDatabase,
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			db := dbs[name](t)
			a := startServer(t, bin, db)
			b := startServer(t, bin, db)
			const body = `{"agent_id":"agent-a","title":"Rain in Paris","body":"It will rain tomorrow.","confidence":0.7,"timeframe":"tomorrow","domain":"Climate"}`
			post := func(p *proc) (int, http.Header, string) {
				req, err := http.NewRequest(http.MethodPost, p.url("/api/predictions"), strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return 0, nil, ""
				}
				req.Header.Set("Authorization", "Bearer agent-a")
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", "one-post")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return 0, nil, ""
				}
				defer resp.Body.Close()
				got, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, resp.Header, string(got)
			}
			const n = 12
			var wg sync.WaitGroup
			var mu sync.Mutex
			var firsts []string // bodies of the 201s
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					code, _, got := post([]*proc{a, b}[i%2])
					mu.Lock()
					defer mu.Unlock()
					switch code {
					case http.StatusCreated:
						firsts = append(firsts, got)
					case http.StatusConflict:
					default:
						t.Errorf("status %d: %s", code, got)
					}
				}()
			}
			wg.Wait()
			if len(firsts) == 0 {
				t.Fatal("no 201")
			}
			for _, p := range []*proc{a, b} {
				code, h, got := post(p)
				if code != http.StatusCreated || h.Get("Idempotency-Replayed") != "true" || got != firsts[0] {
					t.Errorf("retry on %s: %d, replayed %q: %s; want 201, true, %s", p.addr, code, h.Get("Idempotency-Replayed"), got, firsts[0])
				}
			}
			for _, got := range firsts[1:] {
				if got != firsts[0] {
					t.Errorf("two different 201s: %s and %s", firsts[0], got)
				}
			}
			code, feed := httpDo(t, http.MethodGet, a.url("/api/predictions"), "", "")
			if total, _ := feed["total"].(float64); code != 200 || total != 1 {
				t.Errorf("feed: %d, total %v; want 200, 1 prediction", code, feed["total"])
			}
		})
	}
}
