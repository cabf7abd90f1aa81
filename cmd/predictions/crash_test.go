package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

// crashWriters is how many clients post at once; crashAcks is how many
// 201s the test waits for before it kills the server.
const (
	crashWriters = 32
	crashAcks    = 300
)

// TestCrashSQLite and TestCrashPostgres start the real binary, post
// predictions from 32 goroutines, kill the process with SIGKILL in mid-load,
// restart it on the same database and check that every prediction whose
// 201 was received is there, field for field.
func TestCrashSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	crashTest(t, filepath.Join(t.TempDir(), "board.db"))
}

func TestCrashPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	crashTest(t, pgDatabase(t))
}

// ack is a prediction the server acknowledged with 201: what the 201 said.
type ack struct {
	sent board.NewPrediction
	got  board.Prediction
}

func crashTest(t *testing.T, db string) {
	bin := buildBinary(t)
	p := startServer(t, bin, db)
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: crashWriters, DisableCompression: true}}

	var (
		mu          sync.Mutex
		stopped     bool
		acks        []ack
		inFlight    int
		sent, fails int
		reachedAcks = make(chan struct{})
		once        sync.Once
	)
	domains := board.Domains()
	var wg sync.WaitGroup
	for g := range crashWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				conf := float64((g*37+i*11)%101) / 100
				np := board.NewPrediction{
					AgentID: fmt.Sprintf("crash-%02d", g), AgentName: fmt.Sprintf("Crash tester %d", g),
					Title: fmt.Sprintf("Prediction %d of writer %d", i, g), Body: fmt.Sprintf("Données № %d — written before the kill ✓\nline two", i),
					Confidence: &conf, Timeframe: fmt.Sprintf("Q%d 2027", i%4+1), Domain: domains[(g+i)%len(domains)],
				}
				mu.Lock()
				if stopped {
					mu.Unlock()
					return
				}
				inFlight++
				sent++
				mu.Unlock()

				got, err := postPrediction(client, p.url("/api/predictions"), np)

				mu.Lock()
				inFlight--
				if err != nil {
					fails++
					mu.Unlock()
					if stoppedNow(&mu, &stopped) {
						return
					}
					t.Errorf("writer %d before the kill: %v", g, err)
					return
				}
				acks = append(acks, ack{sent: np, got: got})
				if len(acks) >= crashAcks {
					once.Do(func() { close(reachedAcks) })
				}
				mu.Unlock()
			}
		}()
	}

	select {
	case <-reachedAcks:
	case <-time.After(2 * time.Minute):
		t.Fatalf("fewer than %d posts acknowledged in 2 minutes:\n%s", crashAcks, p.logs.String())
	}
	mu.Lock()
	stopped = true
	acksAtKill, inFlightAtKill := len(acks), inFlight
	mu.Unlock()
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no flush
		t.Fatal(err)
	}
	wg.Wait()
	if code := p.wait(t, 30*time.Second); code != -1 {
		t.Errorf("exit code %d after SIGKILL, want -1 (killed by a signal)", code)
	}

	// Restart on the same database; every acknowledged post is there.
	p2 := startServer(t, bin, db)
	found := 0
	for _, a := range acks {
		if a.got.Title != a.sent.Title || a.got.AgentID != a.sent.AgentID || a.got.Body != a.sent.Body {
			t.Errorf("the 201 for %q describes another prediction: %+v", a.sent.Title, a.got)
		}
		var detail struct{ Prediction board.Prediction }
		if status := getJSON(t, client, p2.url("/api/predictions/"+a.got.ID), &detail); status != http.StatusOK {
			t.Errorf("acknowledged prediction %s (%q) lost after the crash: GET answered %d", a.got.ID, a.sent.Title, status)
			continue
		}
		if diff := cmp.Diff(a.got, detail.Prediction); diff != "" {
			t.Errorf("prediction %s differs after the crash (-acknowledged +stored):\n%s", a.got.ID, diff)
			continue
		}
		found++
	}
	var stats struct{ Predictions int }
	if status := getJSON(t, client, p2.url("/api/stats"), &stats); status != http.StatusOK {
		t.Fatalf("GET /api/stats after the restart: %d", status)
	}
	// A post the server committed but could not acknowledge before dying
	// was in flight at the kill: the total lies between the two.
	if stats.Predictions < len(acks) || stats.Predictions > acksAtKill+inFlightAtKill {
		t.Errorf("%d predictions stored; want from %d (acknowledged) to %d (acknowledged at the kill + in flight)",
			stats.Predictions, len(acks), acksAtKill+inFlightAtKill)
	}
	t.Logf("crash (%s): %d posts sent by %d writers, %d acknowledged (%d when SIGKILL was sent), %d in flight at the kill, %d failed after it; "+
		"after the restart %d of %d acknowledged found intact, %d stored in all (%d committed without an acknowledgement)",
		dbKind(db), sent, crashWriters, len(acks), acksAtKill, inFlightAtKill, fails, found, len(acks), stats.Predictions, stats.Predictions-len(acks))
}

func stoppedNow(mu *sync.Mutex, stopped *bool) bool {
	mu.Lock()
	defer mu.Unlock()
	return *stopped
}

func dbKind(db string) string {
	if len(db) > 8 && db[:8] == "postgres" {
		return "PostgreSQL"
	}
	return "SQLite"
}

// postPrediction posts np as its agent and returns the prediction of the
// 201, or an error for anything else.
func postPrediction(client *http.Client, url string, np board.NewPrediction) (board.Prediction, error) {
	body, err := json.Marshal(np)
	if err != nil {
		return board.Prediction{}, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return board.Prediction{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+np.AgentID)
	resp, err := client.Do(req)
	if err != nil {
		return board.Prediction{}, err
	}
	defer resp.Body.Close()
	var out struct {
		PredictionID string           `json:"prediction_id"`
		Prediction   board.Prediction `json:"prediction"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return board.Prediction{}, fmt.Errorf("status %d, body not read: %w", resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusCreated || out.PredictionID == "" || out.PredictionID != out.Prediction.ID {
		return board.Prediction{}, fmt.Errorf("status %d, prediction_id %q", resp.StatusCode, out.PredictionID)
	}
	return out.Prediction, nil
}

// getJSON GETs url into v and returns the status.
func getJSON(t *testing.T, client *http.Client, url string, v any) int {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	return resp.StatusCode
}
