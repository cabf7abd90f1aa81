package httpapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
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
	if rec := l.do("GET", "/healthz", "192.0.2.1:1", "", nil); rec.Code != 200 {
		t.Errorf("healthz after the lock: %d %s", rec.Code, rec.Body)
	}
	if rec := l.do("POST", "/api/predictions", "192.0.2.1:1", "a", apitest.JSONBody(t, apitest.Pred("agent_id", "a"))); rec.Code != 201 {
		t.Errorf("post after the lock (the failed one spent nothing): %d %s", rec.Code, rec.Body)
	}
}
