package eventstream

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection: the
// server's, which a parked stream writes, and the client's.
func tcpPair(t testing.TB) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// writing reports whether a write of p's is still going on.
func (p *parkedConn) isWriting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.writing
}

// TestParkedConnWrites: over TCP a flush that the socket takes is written
// before flush returns, with no goroutine left writing; a flush larger
// than the socket takes returns at once and a goroutine writes the rest,
// every byte in order; then writing without waiting works again (no
// deadline left behind). Over a connection without a file descriptor
// (net.Pipe) the goroutine writes everything.
func TestParkedConnWrites(t *testing.T) {
	t.Run("tcp", func(t *testing.T) {
		server, client := tcpPair(t)
		p := newParkedConn(server, 4, 0, DefaultWriteWait)
		if p.raw == nil {
			t.Fatal("a TCP connection gave no raw connection")
		}
		p.queueBytes([]byte("id: 1\n\n"), 1, 1)
		p.flush()
		if p.isWriting() {
			t.Error("a small flush left a write going on; want it written at once")
		}
		got := make([]byte, 7)
		client.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(client, got); err != nil || string(got) != "id: 1\n\n" {
			t.Fatalf("read %q, %v", got, err)
		}

		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB, more than a socket holds
		for i := 0; i < len(big); i += 64 << 10 {
			p.queueBytes(big[i:i+64<<10], 0, 0)
		}
		done := make(chan struct{})
		go func() { p.flush(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("flush waited for a client that does not read")
		}
		read := make([]byte, len(big))
		if _, err := io.ReadFull(client, read); err != nil {
			t.Fatalf("reading 4 MiB: %v", err)
		}
		if !bytes.Equal(read, big) {
			t.Fatal("the 4 MiB came out changed or out of order")
		}
		deadline := time.Now().Add(5 * time.Second)
		for p.isWriting() {
			if time.Now().After(deadline) {
				t.Fatal("the writing goroutine did not end with the queue empty")
			}
			time.Sleep(time.Millisecond)
		}
		p.queueBytes([]byte(": heartbeat\n\n"), 0, 0)
		p.flush()
		if p.isWriting() {
			t.Error("after the goroutine ended, a small flush was not written at once")
		}
		line := make([]byte, 13)
		if _, err := io.ReadFull(client, line); err != nil || string(line) != ": heartbeat\n\n" {
			t.Fatalf("read %q, %v", line, err)
		}
	})
	t.Run("pipe", func(t *testing.T) {
		server, client := net.Pipe()
		defer client.Close()
		p := newParkedConn(server, 4, 0, DefaultWriteWait)
		if p.raw != nil {
			t.Fatal("net.Pipe gave a raw connection")
		}
		p.queueBytes([]byte("id: 1\n\n"), 1, 1)
		p.flush() // returns: the goroutine waits for the read
		got := make([]byte, 7)
		client.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(client, got); err != nil || string(got) != "id: 1\n\n" {
			t.Fatalf("read %q, %v", got, err)
		}
	})
}

// TestParkedConnLimit: a stream with events waiting unwritten refuses
// what would take it past its limit, and takes a page of any length when
// nothing waits; a closed stream takes nothing.
func TestParkedConnLimit(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	p := newParkedConn(server, 3, 0, DefaultWriteWait)
	if ok, dirty := p.queueBytes([]byte("page"), 5, 5); !ok || !dirty {
		t.Errorf("a page of 5 to an empty stream: ok %v, dirty %v; want true, true", ok, dirty)
	}
	if ok, dirty := p.queueBytes([]byte("hb"), 0, 0); !ok || dirty {
		t.Errorf("a heartbeat after: ok %v, dirty %v; want true, false (already to flush)", ok, dirty)
	}
	if ok, _ := p.queueBytes([]byte("more"), 1, 6); ok {
		t.Error("an event past the limit with 5 waiting was taken")
	}
	if ok, _ := p.queueEvents([]*frame{{id: 4, b: []byte("old")}}, nil); !ok {
		t.Error("an event the stream already has (id 4 ≤ 5) refused; want it skipped")
	}
	p.close()
	if ok, _ := p.queueBytes([]byte("x"), 0, 0); ok {
		t.Error("a closed stream took a heartbeat")
	}
}
