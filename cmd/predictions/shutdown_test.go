package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestGracefulShutdown sends SIGTERM to the real binary while clients load
// it and one request is half sent: that request finishes (201, and the
// prediction is stored), new connections are refused once shutdown has
// begun, no request gets a 5xx, and the process exits 0.
func TestGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary under load; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "board.db")
	p := startServer(t, bin, db)

	// Background load: GETs and POSTs from 8 clients until the end.
	var (
		mu                  sync.Mutex
		ok, refused, fiveXX int
		statuses            = map[int]int{}
		stop                = make(chan struct{})
		wg                  sync.WaitGroup
	)
	client := &http.Client{Timeout: 30 * time.Second}
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var resp *http.Response
				var err error
				if i%2 == 0 {
					resp, err = client.Get(p.url("/api/v1/convert_odds?value=%2B150"))
				} else {
					body := fmt.Sprintf(`{"agent_id":"load-%d","title":"Load %d","body":"b","confidence":0.5,"timeframe":"Q1 2027","domain":"AI"}`, g, i)
					req, _ := http.NewRequest(http.MethodPost, p.url("/api/predictions"), strings.NewReader(body))
					req.Header.Set("Authorization", fmt.Sprintf("Bearer load-%d", g))
					req.Header.Set("Content-Type", "application/json")
					resp, err = client.Do(req)
				}
				mu.Lock()
				if err != nil {
					refused++ // the server has stopped accepting, or closed an idle connection
				} else {
					_, rerr := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					statuses[resp.StatusCode]++
					switch {
					case resp.StatusCode >= 500:
						fiveXX++
					case rerr != nil:
						t.Errorf("a %d answer was cut short: %v", resp.StatusCode, rerr)
					default:
						ok++
					}
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(5 * time.Millisecond) // do not spin on a closed port
				}
			}
		}()
	}
	waitFor(t, 30*time.Second, "load under way", func() bool { mu.Lock(); defer mu.Unlock(); return ok >= 200 })

	// The slow request: headers sent, the handler waiting for the body.
	body := `{"agent_id":"slow-agent","title":"Sent across a shutdown","body":"half before SIGTERM, half after","confidence":0.25,"timeframe":"2027","domain":"Science"}`
	slow, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_ = slow.SetDeadline(time.Now().Add(60 * time.Second))
	fmt.Fprintf(slow, "POST /api/predictions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer slow-agent\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", p.addr, len(body))
	br := bufio.NewReader(slow)
	// 100 Continue comes when the handler starts reading the body: from
	// here the request is in flight.
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("want 100 Continue, got %q (%v)", line, err)
	}
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	half := len(body) / 2
	if _, err := io.WriteString(slow, body[:half]); err != nil {
		t.Fatal(err)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sigterm := time.Now()
	waitFor(t, 10*time.Second, "new connections refused after SIGTERM", func() bool {
		c, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err != nil {
			return errors.Is(err, syscall.ECONNREFUSED)
		}
		c.Close()
		return false
	})
	refusedAfter := time.Since(sigterm)
	select {
	case <-p.done:
		t.Fatalf("the server exited with a request in flight:\n%s", p.logs.String())
	default:
	}

	// The rest of the body: the in-flight request completes.
	if _, err := io.WriteString(slow, body[half:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the in-flight request got no answer: %v\n%s", err, p.logs.String())
	}
	var created struct {
		PredictionID string `json:"prediction_id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || err != nil || created.PredictionID == "" {
		t.Fatalf("in-flight request: %d, %v, prediction_id %q", resp.StatusCode, err, created.PredictionID)
	}
	if !resp.Close {
		t.Error("the answer during shutdown does not close the connection")
	}

	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0:\n%s", code, p.logs.String())
	}
	close(stop)
	wg.Wait()
	for _, want := range []string{"shutting down", "stopped"} {
		if !strings.Contains(p.logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, p.logs.String())
		}
	}
	if fiveXX > 0 {
		t.Errorf("%d answers were 5xx during the shutdown (statuses %v)", fiveXX, statuses)
	}

	// The request finished during shutdown was committed.
	p2 := startServer(t, bin, db)
	var detail struct{ Prediction struct{ Title string } }
	if status := getJSON(t, client, p2.url("/api/predictions/"+created.PredictionID), &detail); status != 200 || detail.Prediction.Title != "Sent across a shutdown" {
		t.Errorf("the prediction posted across the shutdown: %d %+v", status, detail)
	}
	t.Logf("graceful shutdown: %d answers under load (statuses %v, %d 5xx), %d requests refused or closed after SIGTERM; "+
		"new connections refused %s after SIGTERM; the half-sent request finished with 201 and is stored; exit code 0",
		ok, statuses, fiveXX, refused, refusedAfter.Round(time.Millisecond))
}

// waitFor polls cond until it holds, failing the test after within.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
