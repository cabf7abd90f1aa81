package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/httpapi"
)

// slowClients is how many connections trickle their headers.
const slowClients = 200

// TestSlowloris opens 200 connections to the real binary that send their
// headers one byte per second. Meanwhile a normal client, on new
// connections, keeps getting answers; the server drops every slow
// connection once its header timeout has passed.
func TestSlowloris(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary for several seconds; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	p := startServer(t, buildBinary(t), filepath.Join(t.TempDir(), "board.db"))

	var (
		mu       sync.Mutex
		closedIn []time.Duration // how long each slow connection lasted
		wg       sync.WaitGroup
		stop     = make(chan struct{})
	)
	for range slowClients {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatalf("opening slow connection: %v", err)
		}
		defer c.Close()
		start := time.Now()
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: "+p.addr+"\r\nX-Slow: "); err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		go func() { // one byte a second, never finishing the headers
			defer wg.Done()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := c.Write([]byte("a")); err != nil {
						return
					}
				}
			}
		}()
		go func() { // the server closing the connection ends this read
			defer wg.Done()
			_, _ = io.Copy(io.Discard, c)
			mu.Lock()
			closedIn = append(closedIn, time.Since(start))
			mu.Unlock()
		}()
	}

	// A normal client, on a new connection each time, across the header
	// timeout of the slow ones.
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	normal := 0
	for end := time.Now().Add(readHeaderTimeout + 2*time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		resp, err := client.Get(p.url("/api/v1/convert_odds?value=%2B150"))
		if err != nil {
			t.Fatalf("normal request %d while %d connections trickle: %v", normal+1, slowClients, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("normal request %d: status %d", normal+1, resp.StatusCode)
		}
		normal++
	}

	waitFor(t, 30*time.Second, "the server closes every slow connection", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(closedIn) == slowClients
	})
	close(stop)
	wg.Wait()
	var longest time.Duration
	for _, d := range closedIn {
		longest = max(longest, d)
	}
	t.Logf("slowloris: %d connections trickling headers at 1 byte/s; %d normal requests on new connections all answered 200; "+
		"the server closed all %d slow connections, the last after %s (ReadHeaderTimeout %s)",
		slowClients, normal, len(closedIn), longest.Round(100*time.Millisecond), readHeaderTimeout)
}

// TestHeaderLimits sends the real binary an oversize header block (431
// from net/http) and a long query that fits in the header limit (the
// API's 414 Problem, which tells the client to use POST).
func TestHeaderLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary; skipped with -short")
	}
	t.Parallel() // its own process, port and database
	p := startServer(t, buildBinary(t), filepath.Join(t.TempDir(), "board.db"))
	send := func(target string, header string) (*http.Response, []byte) {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		go io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: "+p.addr+"\r\n"+header+"Connection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, b
	}

	resp, body := send("/healthz", "X-Big: "+strings.Repeat("a", maxHeaderBytes+8192)+"\r\n")
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("header block of %d bytes: status %d, want 431: %s", maxHeaderBytes+8192, resp.StatusCode, body)
	}
	resp, body = send("/healthz", strings.Repeat("X-Many: b\r\n", 20000))
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("20,000 header lines: status %d, want 431: %s", resp.StatusCode, body)
	}

	resp, body = send("/api/v1/convert_odds?value="+strings.Repeat("1", httpapi.MaxQueryBytes+1), "")
	var p414 httpapi.Problem
	if resp.StatusCode != http.StatusRequestURITooLong || json.Unmarshal(body, &p414) != nil || !strings.HasPrefix(p414.Error, "query: ") {
		t.Errorf("query of %d bytes: %d %s, want a 414 Problem naming the query", httpapi.MaxQueryBytes+1, resp.StatusCode, body)
	}

	// The server still answers.
	if resp, body = send("/healthz", ""); resp.StatusCode != 200 {
		t.Errorf("/healthz after: %d %s", resp.StatusCode, body)
	}
}
