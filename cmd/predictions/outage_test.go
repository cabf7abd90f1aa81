package main

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/uptrace/bun/driver/pgdriver"
)

// TestServeOutagePostgres runs serve on PostgreSQL and makes the database
// fail under it as an operator or an outage would, checking what the
// feed, a prediction's forecasts, the home page and a post answer:
//
//   - another connection holds the agent's row past lock_timeout (1 s
//     with the URL's read_timeout=2s) and past read_timeout: the post is
//     503 with Retry-After, and once the lock is released nothing of it is
//     stored;
//   - every connection of the server is terminated (pg_terminate_backend):
//     the pooled connections are dead and the next requests succeed on new
//     ones;
//   - the database refuses connections (ALLOW_CONNECTIONS false, SQLSTATE
//     55000), then no longer exists (DROP DATABASE, 3D000): every request
//     is 503 with Retry-After, never 500.
func TestServeOutagePostgres(t *testing.T) {
	dsn := pgDatabase(t) // skips without PREDICTIONS_TEST_POSTGRES
	u, _ := url.Parse(dsn)
	name := strings.TrimPrefix(u.Path, "/")
	q := u.Query()
	q.Set("read_timeout", "2s")
	u.RawQuery = q.Encode()
	addr, logs := startServe(t, "--db", u.String(), "--rate-limit", "off")
	base := "http://" + addr
	ctx := context.Background()
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(os.Getenv(pgEnv))))
	defer admin.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	terminate := func() {
		exec("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = '" + name + "' AND pid <> pg_backend_pid()")
	}

	post := `{"agent_id":"agent-a","title":"T","body":"B","confidence":0.4,"timeframe":"Q3 2026","domain":"ai"}`
	code, m := httpDo(t, "POST", base+"/api/predictions", "Bearer agent-a", post)
	if code != 201 {
		t.Fatalf("first post: %d %v", code, m)
	}
	p, _ := m["prediction"].(map[string]any)
	id, _ := p["id"].(string)
	if id == "" {
		t.Fatalf("first post: no prediction id in %v", m)
	}
	requests := []struct{ method, path, body string }{
		{"GET", "/api/predictions", ""},
		{"GET", "/api/predictions/" + id + "/forecasts", ""},
		{"GET", "/", ""},
		{"POST", "/api/predictions", post},
	}
	expect := func(when string, want int) {
		t.Helper()
		for _, r := range requests {
			code, h, body := request(t, r.method, base+r.path, "Bearer agent-a", r.body)
			if code != want || (want == 503 && h.Get("Retry-After") != "5") {
				t.Errorf("%s: %s %s = %d, Retry-After %q, want %d: %.300s", when, r.method, r.path, code, h.Get("Retry-After"), want, body)
			}
		}
	}
	total := func() float64 {
		t.Helper()
		code, m := httpDo(t, "GET", base+"/api/predictions", "", "")
		if code != 200 {
			t.Fatalf("feed: %d %v", code, m)
		}
		n, _ := m["total"].(float64)
		return n
	}

	// A held row lock: the post is 503 and stores nothing.
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM agents WHERE id = 'agent-a' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, h, body := request(t, "POST", base+"/api/predictions", "Bearer agent-a", post)
	took := time.Since(start)
	if code != 503 || h.Get("Retry-After") != "5" {
		t.Errorf("post with the agent's row locked: %d, Retry-After %q: %s", code, h.Get("Retry-After"), body)
	}
	t.Logf("post with the agent's row locked: %d after %v", code, took.Round(time.Millisecond))
	time.Sleep(time.Until(start.Add(3 * time.Second))) // past read_timeout
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // what still ran would commit now
	if n := total(); n != 1 {
		t.Errorf("after the 503 and the lock's release, the feed's total is %v, want 1", n)
	}
	db.Close()

	terminate()
	for _, r := range requests {
		if code, _, body := request(t, r.method, base+r.path, "Bearer agent-a", r.body); code >= 300 {
			t.Errorf("every connection terminated: %s %s = %d: %.300s", r.method, r.path, code, body)
		}
	}

	exec("ALTER DATABASE " + name + " ALLOW_CONNECTIONS false")
	terminate()
	expect("the database refuses connections (55000)", 503)
	exec("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true")

	exec("DROP DATABASE " + name + " WITH (FORCE)")
	expect("the database does not exist (3D000)", 503)
	time.Sleep(board.RecentWrite) // a write committed this recently answers for the database
	if code, _, body := request(t, "GET", base+"/healthz", "", ""); code != 503 {
		t.Errorf("healthz with no database: %d %s", code, body)
	}
	if strings.Contains(logs.String(), "status=500") {
		t.Errorf("a request answered 500:\n%s", logs.String())
	}
}
