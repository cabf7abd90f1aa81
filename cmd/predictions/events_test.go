package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeEventStream: the real server streams events uncompressed to a
// client that accepts gzip (a compressor would hold them back), sends
// heartbeats at --events-heartbeat, and its shutdown ends open streams.
func TestServeEventStream(t *testing.T) {
	addr, _ := startServe(t, "--events-heartbeat", "50ms", "--rate-limit", "off")
	base := "http://" + addr
	// Left open: the server's shutdown, at the end of the test, must end
	// it, or startServe reports that the server did not stop.
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, base+"/api/events", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("GET /api/events: %d, Content-Type %q, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"))
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	wait := func(prefix string) string {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stream ended before %q", prefix)
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-deadline:
				t.Fatalf("no line %q", prefix)
			}
		}
	}
	wait(": heartbeat")
	code, _ := httpDo(t, "POST", base+"/api/predictions", "Bearer scout",
		`{"agent_id":"scout","title":"Launch slips","body":"Vendors are late.","confidence":0.7,"timeframe":"2027-Q1","domain":"Tech"}`)
	if code != 201 {
		t.Fatalf("post: %d", code)
	}
	if l := wait("event: "); l != "event: prediction.created" {
		t.Errorf("event line %q", l)
	}
	if l := wait("data: "); !strings.Contains(l, `"author_id":"scout"`) {
		t.Errorf("data line %q", l)
	}
}
