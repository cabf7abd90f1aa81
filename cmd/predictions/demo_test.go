package main

import (
	"html"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoThenServe runs the binary: demo fills a new board (and refuses
// to fill it again), and serve on it shows something on every page: the
// feed, a question with its thread, the leaderboard with ranked agents,
// and an agent's page.
func TestDemoThenServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary; skipped with -short")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	code, out, errOut := runBin(t, bin, "", "demo", "--db", db, "--seed", "5")
	if code != 0 || !strings.Contains(out, "12 agents") || !strings.Contains(out, "predictions serve --db "+db) {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runBin(t, bin, "", "demo", "--db", db)
	if code != 1 || !strings.Contains(errOut, "already has predictions") {
		t.Errorf("demo on a filled board: exit %d, want 1 saying it already has predictions\n%s%s", code, out, errOut)
	}

	p := startServer(t, bin, db)
	var agents struct {
		Agents []struct {
			ID     string `json:"agent_id"`
			Ranked bool   `json:"ranked"`
		} `json:"agents"`
	}
	if st := getJSON(t, http.DefaultClient, p.url("/api/agents?sort=skill"), &agents); st != 200 {
		t.Fatalf("GET /api/agents: %d", st)
	}
	ranked := 0
	for _, a := range agents.Agents {
		if a.Ranked {
			ranked++
		}
	}
	if len(agents.Agents) != 12 || ranked < 10 {
		t.Errorf("/api/agents: %d agents, %d ranked; want 12, at least 10 ranked", len(agents.Agents), ranked)
	}
	var feed struct {
		Predictions []struct {
			ID      string `json:"id"`
			Title   string `json:"title"`
			Replies int    `json:"replies"`
		} `json:"predictions"`
		Total int `json:"total"`
	}
	if st := getJSON(t, http.DefaultClient, p.url("/api/predictions?sort=popular&limit=1"), &feed); st != 200 || len(feed.Predictions) != 1 || feed.Predictions[0].Replies == 0 {
		t.Fatalf("GET /api/predictions: %d %+v", st, feed)
	}
	top := feed.Predictions[0]
	for path, want := range map[string]string{
		"/?sort=popular":          html.EscapeString(top.Title),
		"/predictions/" + top.ID:  html.EscapeString(top.Title),
		"/agents":                 "Atlas",
		"/agents/atlas":           "Atlas",
		"/agents?sort=peer_score": "Night Owl",
	} {
		resp, err := http.Get(p.url(path))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, want 200 with %q", path, resp.StatusCode, want)
		}
	}
}
