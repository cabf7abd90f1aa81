package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardfile"
)

// TestCrashResolveImportSQLite and TestCrashResolveImportPostgres start
// the real binary, resolve predictions one after another while a large
// forecast file is imported, kill the process with SIGKILL in mid-load and
// open the database: every acknowledged resolution is there, every
// prediction is wholly resolved (its actual close, its resolution row, a
// score for each forecaster) or wholly open (none of them), the import
// stored whole questions from the top of the file (it goes to the board
// in batches of whole questions) and all of them when acknowledged, every
// counter equals a recount, and the same file sent again stores the rest.
func TestCrashResolveImportSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	crashResolveImport(t, filepath.Join(t.TempDir(), "board.db"))
}

func TestCrashResolveImportPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	crashResolveImport(t, pgDatabase(t))
}

func crashResolveImport(t *testing.T, db string) {
	const (
		mod         = "crash-moderator"
		predictions = 60
		questions   = 800 // in the imported file, five forecasts each: two batches of import
		resolveAcks = 25  // killed once this many resolutions are acknowledged
	)
	bin := buildBinary(t)
	p := startServer(t, bin, db, "--moderator-token", mod)
	client := &http.Client{Timeout: 30 * time.Second}
	conf := 0.6
	var ids []string
	for i := range predictions {
		pr, err := postPrediction(client, p.url("/api/predictions"), board.NewPrediction{AgentID: "author", Title: fmt.Sprintf("Resolve me %d", i),
			Body: "Under load", Confidence: &conf, Timeframe: "2027", Domain: "Other"})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{"bob", "carol"} {
			if _, err := postForecast(client, p.url("/api/predictions/"+pr.ID+"/forecasts"), a, 0.3); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, pr.ID)
	}
	var file strings.Builder
	for q := range questions {
		// In a domain and by agents of their own: the resolutions wait for no
		// lock the import holds.
		fmt.Fprintf(&file, "# Imported question %d\n\n- id: imported-%d\n- resolves: yes if it happens\n- resolve_by: 2026-06-30\n- status: resolved\n- outcome: yes\n- tags: Science\n\n## Forecasts\n\n", q, q)
		for f := range 5 {
			fmt.Fprintf(&file, "- 2026-01-%02d 10:00 · agent:importer-%d · %d%%\n", f+1, f, 20+10*f)
		}
		file.WriteString("\n")
	}
	post := func(path, contentType, body string) (int, error) {
		req, err := http.NewRequest(http.MethodPost, p.url(path), strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+mod)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}

	var (
		mu       sync.Mutex
		resolved []string
		imported bool
		enough   = make(chan struct{})
		wg       sync.WaitGroup
	)
	wg.Go(func() {
		if code, err := post("/api/import", "text/markdown", file.String()); err == nil && code == http.StatusOK {
			mu.Lock()
			imported = true
			mu.Unlock()
		}
	})
	wg.Go(func() {
		for i, id := range ids {
			code, err := post("/api/predictions/"+id+"/resolve", "application/json", []string{`{"outcome":"yes"}`, `{"outcome":"no"}`}[i%2])
			for tries := 0; err == nil && code == http.StatusServiceUnavailable && tries < 5; tries++ {
				// An outage answer stores nothing: the same resolution again.
				time.Sleep(100 * time.Millisecond)
				code, err = post("/api/predictions/"+id+"/resolve", "application/json", []string{`{"outcome":"yes"}`, `{"outcome":"no"}`}[i%2])
			}
			if err != nil || code != http.StatusOK {
				return // the kill
			}
			mu.Lock()
			resolved = append(resolved, id)
			if len(resolved) == resolveAcks {
				close(enough)
			}
			mu.Unlock()
		}
	})
	select {
	case <-enough:
	case <-time.After(2 * time.Minute):
		t.Fatalf("fewer than %d resolutions acknowledged in 2 minutes:\n%s", resolveAcks, p.logs.String())
	}
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no flush
		t.Fatal(err)
	}
	wg.Wait()
	p.wait(t, 30*time.Second)

	ctx := context.Background()
	s, err := board.Open(ctx, db, board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mu.Lock()
	acked := map[string]bool{}
	for _, id := range resolved {
		acked[id] = true
	}
	mu.Unlock()
	done := 0
	for _, id := range ids {
		pr, err := s.Prediction(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := s.Scores(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		switch pr.Status {
		case board.StatusResolved:
			done++
			if pr.ClosedAt == nil || len(pr.Resolutions) != 1 || len(tab.Scores) != 3 {
				t.Errorf("%s resolved half way: closed_at %v, %d resolutions, %d scores", id, pr.ClosedAt, len(pr.Resolutions), len(tab.Scores))
			}
		case board.StatusOpen:
			if acked[id] {
				t.Errorf("acknowledged resolution of %s lost: it is open", id)
			}
			if pr.ClosedAt != nil || len(pr.Resolutions) != 0 || len(tab.Scores) != 0 {
				t.Errorf("%s open but with closed_at %v, %d resolutions, %d scores", id, pr.ClosedAt, len(pr.Resolutions), len(tab.Scores))
			}
		default:
			t.Errorf("%s is %s", id, pr.Status)
		}
	}
	f, err := s.Feed(ctx, board.FeedQuery{Q: "Imported question", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	stored := 0 // imported-0, imported-1, ... as far as they go
	for ; stored < questions; stored++ {
		pr, err := s.Prediction(ctx, fmt.Sprintf("imported-%d", stored))
		if err != nil {
			break
		}
		if pr.Status != board.StatusResolved || pr.Community.Forecasters != 5 {
			t.Errorf("imported-%d stored half way: %s, %d forecasters", stored, pr.Status, pr.Community.Forecasters)
		}
	}
	if f.Total != stored {
		t.Errorf("%d imported questions are on the board, but the first %d of the file: the batches go in file order", f.Total, stored)
	}
	mu.Lock()
	if imported && f.Total != questions {
		t.Errorf("acknowledged import lost: %d of %d questions", f.Total, questions)
	}
	mu.Unlock()
	if bad, err := s.CounterMismatches(ctx); err != nil || len(bad) > 0 {
		t.Errorf("counters after the crash: %v, %v", bad, err)
	}
	res, err := boardfile.Import(ctx, s, strings.NewReader(file.String()))
	if err != nil {
		t.Fatalf("importing the file again after the crash: %v", err)
	}
	if len(res.Created) != questions-f.Total || len(res.Existing) != f.Total {
		t.Errorf("importing again after the crash: %d created, %d existing; want %d and %d", len(res.Created), len(res.Existing), questions-f.Total, f.Total)
	}
	if bad, err := s.CounterMismatches(ctx); err != nil || len(bad) > 0 {
		t.Errorf("counters after importing again: %v, %v", bad, err)
	}
	t.Logf("crash (%s): %d resolutions acknowledged, %d stored; import acknowledged %v, %d questions stored",
		dbKind(db), len(acked), done, imported, f.Total)
}
