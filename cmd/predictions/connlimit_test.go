package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/apitest"
	"github.com/predictions-md/predictions/internal/tools"
)

// TestConnLimit: an address holding the maximum of connections gets a 429
// Problem on the next one; once it closes one, it is served again. An
// exempt address is not counted.
func TestConnLimit(t *testing.T) {
	const max = 3
	for _, tc := range []struct {
		name   string
		exempt func(netip.Addr) bool
		limit  bool
	}{
		{"counted", func(netip.Addr) bool { return false }, true},
		{"exempt", netip.Addr.IsLoopback, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
			go srv.Serve(limitConns(ln, max, tc.exempt, "https://p.example/terms"))
			t.Cleanup(func() { srv.Close() })
			addr := ln.Addr().String()

			var held []net.Conn
			for range max {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, c)
				// A request answered proves the server has accepted the connection.
				if got := getOn(t, c); got.StatusCode != 200 {
					t.Fatalf("connection within the limit: %d", got.StatusCode)
				}
			}
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()

			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			resp := getOn(t, c)
			c.Close()
			if !tc.limit {
				if resp.StatusCode != 200 {
					t.Fatalf("exempt address: %d, want 200", resp.StatusCode)
				}
				return
			}
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("connection %d: %d Retry-After %q, want 429 with Retry-After", max+1, resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			var p httpapi.Problem
			if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(p.Error, "connection: ") || p.Hint == "" || p.Disclaimer != tools.Disclaimer || p.Terms != "https://p.example/terms" {
				t.Errorf("Problem = %+v", p)
			}

			// Closing one frees its slot once the server has seen the close.
			held[0].Close()
			held = held[1:]
			deadline := time.Now().Add(10 * time.Second)
			for {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				code := getOn(t, c).StatusCode
				if code == 200 {
					held = append(held, c)
					break
				}
				c.Close()
				if time.Now().After(deadline) {
					t.Fatalf("still %d after a connection was closed", code)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// getOn sends GET / on c and reads the answer.
func getOn(t *testing.T, c net.Conn) *http.Response {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp
}

// TestCountedConnSyscallConn: a counted TCP connection gives its raw
// connection (the board's parked streams write through it), and one over
// a connection without a socket says it has none.
func TestCountedConnSyscallConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	tcp, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	released := 0
	c := &countedConn{Conn: tcp, release: func() { released++ }}
	if raw, err := c.SyscallConn(); err != nil || raw == nil {
		t.Errorf("SyscallConn over TCP = %v, %v; want the socket's", raw, err)
	}
	c.Close()
	c.Close()
	if released != 1 {
		t.Errorf("the slot was given back %d times, want 1", released)
	}
	a, b := net.Pipe()
	defer b.Close()
	if _, err := (&countedConn{Conn: a, release: func() {}}).SyscallConn(); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("SyscallConn over net.Pipe: %v, want errors.ErrUnsupported", err)
	}
}

// TestConnLimitClosedStreams: an address that held its maximum of
// connections as event streams, and closed them, is served on its next
// connection at once: the limiter reaps the parked streams whose clients
// went (a parked connection is never read, so otherwise its close is seen
// only at the next heartbeat, 15 s later).
func TestConnLimitClosedStreams(t *testing.T) {
	const max = 3
	api := boardapi.New(boardapi.Options{Store: apitest.OpenStore(t)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := limitConns(ln, max, func(netip.Addr) bool { return false }, "/terms")
	cl.reapWith(api.ReapStreams)
	srv := &http.Server{Handler: httpapi.New(httpapi.Options{Board: api, Logger: apitest.Discard, RateLimit: apitest.NoLimits})}
	go srv.Serve(cl)
	t.Cleanup(func() { api.StopStreams(); srv.Close() })
	addr := ln.Addr().String()

	var streams []net.Conn
	for range max {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, c)
		if _, err := io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("stream: %v %v", resp, err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, parked := api.OpenStreams(); parked == max {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the streams were not parked within 10 s")
		}
	}
	for _, c := range streams {
		c.Close()
	}
	time.Sleep(50 * time.Millisecond) // the FINs cross loopback
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := getOn(t, c); got.StatusCode == http.StatusTooManyRequests {
		t.Fatalf("the next request after closing %d streams: 429", max)
	}
	if open, _ := api.OpenStreams(); open != 0 {
		t.Errorf("%d streams still open after their clients closed them", open)
	}
	t.Logf("served %s after the streams closed", time.Since(start).Round(time.Millisecond))
}
