package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/pool"
)

// TestCrashForecastsSQLite and TestCrashForecastsPostgres start the real
// binary, forecast one prediction from 32 agents at once, kill the process
// with SIGKILL in mid-load, restart it on the same database and check that
// every acknowledged forecast is in the history with its p, and that the
// community forecast equals package pool's recomputation from the
// standing forecasts.
func TestCrashForecastsSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	crashForecasts(t, filepath.Join(t.TempDir(), "board.db"))
}

func TestCrashForecastsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	crashForecasts(t, pgDatabase(t))
}

func crashForecasts(t *testing.T, db string) {
	bin := buildBinary(t)
	p := startServer(t, bin, db)
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: crashWriters, DisableCompression: true}}
	conf := 0.6
	pr, err := postPrediction(client, p.url("/api/predictions"), board.NewPrediction{AgentID: "author", Title: "Forecast me",
		Body: "Under load", Confidence: &conf, Timeframe: "2027", Domain: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/predictions/" + pr.ID + "/forecasts"

	var (
		mu          sync.Mutex
		stopped     bool
		acks        = map[string]float64{} // forecast id → p
		reachedAcks = make(chan struct{})
		once        sync.Once
		wg          sync.WaitGroup
	)
	for g := range crashWriters {
		wg.Go(func() {
			for i := 0; ; i++ {
				if stoppedNow(&mu, &stopped) {
					return
				}
				pv := float64((g*37+i*11)%101) / 100
				id, err := postForecast(client, p.url(path), fmt.Sprintf("crash-%02d", g), pv)
				mu.Lock()
				if err != nil {
					mu.Unlock()
					if !stoppedNow(&mu, &stopped) {
						t.Errorf("writer %d before the kill: %v", g, err)
					}
					return
				}
				acks[id] = pv
				if len(acks) >= crashAcks {
					once.Do(func() { close(reachedAcks) })
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-reachedAcks:
	case <-time.After(2 * time.Minute):
		t.Fatalf("fewer than %d forecasts acknowledged in 2 minutes:\n%s", crashAcks, p.logs.String())
	}
	mu.Lock()
	stopped = true
	mu.Unlock()
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no flush
		t.Fatal(err)
	}
	wg.Wait()
	p.wait(t, 30*time.Second)

	p2 := startServer(t, bin, db)
	stored := map[string]float64{}
	var list struct {
		Community board.Community  `json:"community"`
		Standing  []board.Forecast `json:"standing"`
		Forecasts []board.Forecast `json:"forecasts"`
		HasMore   bool             `json:"has_more"`
	}
	for off := 0; ; off += board.MaxForecastPage {
		list.Forecasts = nil
		u := p2.url(path + "?limit=" + strconv.Itoa(board.MaxForecastPage) + "&offset=" + strconv.Itoa(off))
		if status := getJSON(t, client, u, &list); status != http.StatusOK {
			t.Fatalf("GET %s after the restart: %d", u, status)
		}
		for _, f := range list.Forecasts {
			stored[f.ID] = f.P
		}
		if !list.HasMore {
			break
		}
	}
	lost := 0
	for id, pv := range acks {
		if got, ok := stored[id]; !ok || got != pv {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged forecast %s (p %v) after the crash: stored %v, %v", id, pv, got, ok)
			}
		}
	}
	fs := make([]pool.Forecast, len(list.Standing))
	for i, f := range list.Standing {
		fs[i] = pool.Forecast{Who: f.AgentID, P: f.P, At: f.CreatedAt} // no agent has a score: every skill is 0
	}
	want, err := pool.Combine(fs, pool.Options{Method: list.Community.Method})
	if err != nil {
		t.Fatal(err)
	}
	if list.Community.P != want.P || list.Community.Forecasters != len(list.Standing) {
		t.Errorf("community (%s) after the crash = %v from %d; recomputed from the %d standing forecasts: %v",
			list.Community.Method, list.Community.P, list.Community.Forecasters, len(list.Standing), want.P)
	}
	t.Logf("crash (%s): %d forecasts acknowledged before SIGKILL, %d stored after the restart, %d lost",
		dbKind(db), len(acks), len(stored), lost)
}

// postForecast forecasts p as agent and returns the forecast's id.
func postForecast(client *http.Client, url, agent string, p float64) (string, error) {
	body, _ := json.Marshal(map[string]any{"agent_id": agent, "p": p}) // a string and a float always marshal
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+agent)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		ForecastID string `json:"forecast_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", fmt.Errorf("status %d, body not read: %w", resp.StatusCode, err)
	}
	if (resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK) || out.ForecastID == "" {
		return "", fmt.Errorf("status %d, forecast_id %q", resp.StatusCode, out.ForecastID)
	}
	return out.ForecastID, nil
}
