package httpapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/disktest"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// A database that is down answers 503 with Retry-After and a Problem
// naming the condition, never 500; /healthz says so too.
func TestDatabaseDown(t *testing.T) {
	store := apitest.OpenStore(t)
	l := &limited{h: httpapi.New(httpapi.Options{Logger: apitest.Discard, Board: boardapi.New(boardapi.Options{Store: store})}), clk: newTestClock()}
	if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 200 {
		t.Fatalf("healthz with the database up: %d %s", rec.Code, rec.Body)
	}
	store.Close()
	for _, tc := range []struct{ method, path, agent, body string }{
		{"POST", "/api/predictions", "a", string(apitest.JSONBody(t, apitest.Pred("agent_id", "a")))},
		{"POST", "/api/predictions/01900000-0000-7000-8000-000000000000/reactions", "a", `{"agent_id":"a","reaction":"agree"}`},
		{"GET", "/api/predictions", "", ""},
		{"GET", "/api/agents", "", ""},
		{"GET", "/healthz", "", ""},
	} {
		var body []byte
		if tc.body != "" {
			body = []byte(tc.body)
		}
		rec := l.do(tc.method, tc.path, "192.0.2.1:1", tc.agent, body)
		if rec.Code != 503 || rec.Header().Get("Retry-After") != "5" {
			t.Errorf("%s %s with the database closed: %d, Retry-After %q: %s", tc.method, tc.path, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if tc.path == "/healthz" {
			if m["status"] != "unavailable" || m["database"] != "unavailable" {
				t.Errorf("healthz = %v", m)
			}
			continue
		}
		if e, _ := m["error"].(string); !strings.HasPrefix(e, "database: is unavailable") || !strings.Contains(m["hint"].(string), "Retry-After") {
			t.Errorf("%s %s: Problem %v", tc.method, tc.path, m)
		}
	}
}

// SQLite locked by another process beyond the busy timeout: /healthz is
// 503 although reads (a ping) still work, and a write is 503.
func TestDatabaseLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "board.db")
	store, err := board.Open(context.Background(), path, board.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	l := &limited{h: httpapi.New(httpapi.Options{Logger: apitest.Discard, Board: boardapi.New(boardapi.Options{Store: store})}), clk: newTestClock()}
	other, err := sql.Open(sqliteshim.ShimName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 503 || rec.Header().Get("Retry-After") != "5" {
		t.Errorf("healthz with the file locked: %d %s", rec.Code, rec.Body)
	}
	if rec := l.do("POST", "/api/predictions", "192.0.2.1:1", "a", apitest.JSONBody(t, apitest.Pred("agent_id", "a"))); rec.Code != 503 {
		t.Errorf("post with the file locked: %d %s", rec.Code, rec.Body)
	}
	if rec := l.do("GET", "/api/predictions", "192.0.2.1:1", "", nil); rec.Code != 200 {
		t.Errorf("read with the file locked for writing: %d %s", rec.Code, rec.Body)
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	// A 503 means nothing was written.
	if rec := l.do("GET", "/api/predictions", "192.0.2.1:1", "", nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"total":0`) {
		t.Errorf("feed after the lock, the post answered 503: %d %s", rec.Code, rec.Body)
	}
	time.Sleep(board.CheckInterval) // the failed probe is the answer for this long
	if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 200 {
		t.Errorf("healthz after the lock: %d %s", rec.Code, rec.Body)
	}
	if rec := l.do("POST", "/api/predictions", "192.0.2.1:1", "a", apitest.JSONBody(t, apitest.Pred("agent_id", "a"))); rec.Code != 201 {
		t.Errorf("post after the lock (the failed one spent nothing): %d %s", rec.Code, rec.Body)
	}
}

// SQLite's disk is full (a tmpfs of the test's own, filled up): a post
// and /healthz both answer 503 with Retry-After, while reads stay 200;
// once space is freed, both recover. /healthz writes a row to know it: a
// transaction that writes nothing succeeds on a full disk.
func TestDatabaseFull(t *testing.T) {
	dir := disktest.Mount(t, 8<<20)
	store, err := board.Open(context.Background(), filepath.Join(dir, "board.db"), board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l := &limited{h: httpapi.New(httpapi.Options{Logger: apitest.Discard, Board: boardapi.New(boardapi.Options{Store: store})}), clk: newTestClock()}
	post := func() *httptest.ResponseRecorder {
		return l.do("POST", "/api/predictions", "192.0.2.1:1", "a", apitest.JSONBody(t, apitest.Pred("agent_id", "a")))
	}
	if rec := post(); rec.Code != 201 {
		t.Fatalf("post before the disk is full: %d %s", rec.Code, rec.Body)
	}
	free := disktest.Fill(t, dir)
	// The last write answers for the database for a second.
	time.Sleep(board.RecentWrite)
	for i := range 3 {
		if rec := post(); rec.Code != 503 || rec.Header().Get("Retry-After") != "5" {
			t.Errorf("post %d on a full disk: %d, Retry-After %q: %s", i, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
		if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 503 || rec.Header().Get("Retry-After") != "5" {
			t.Errorf("healthz %d on a full disk: %d, Retry-After %q: %s", i, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	if rec := l.do("GET", "/api/predictions", "192.0.2.1:1", "", nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"total":1`) {
		t.Errorf("feed on a full disk: %d %s", rec.Code, rec.Body)
	}
	free()
	time.Sleep(board.CheckInterval)
	if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 200 {
		t.Errorf("healthz once space is freed: %d %s", rec.Code, rec.Body)
	}
	if rec := post(); rec.Code != 201 {
		t.Errorf("post once space is freed: %d %s", rec.Code, rec.Body)
	}
}
