package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/tools"
)

// maxConnsPerIP bounds the connections one client address may hold open at
// once. The server's timeouts end each slow connection (5 s to send the
// headers, 30 s for the whole request), but a single client could still
// open connections faster than they time out; the cap keeps it from
// holding more than this many. Loopback clients (a reverse proxy on the same
// machine, a local benchmark) are not counted, and the cap is off with
// --trust-proxy, where every connection comes from the proxy.
const maxConnsPerIP = 256

// connLimiter is a listener that refuses a connection from an address that
// already holds max open ones: it answers 429 with a Problem and closes it.
type connLimiter struct {
	net.Listener
	max    int
	exempt func(netip.Addr) bool // addresses not counted
	refuse []byte                // the whole 429 response

	mu   sync.Mutex
	open map[netip.Addr]int
	// reap, when set, closes the connections whose clients have gone
	// but that nothing reads (parked event streams), giving their slots
	// back; lastReap is when it last ran.
	reap     func() int
	lastReap time.Time
}

// reapInterval bounds how often a full address makes the limiter reap:
// each reap looks at every parked stream (one system call each).
const reapInterval = 100 * time.Millisecond

// reapWith sets what the limiter calls before it refuses a connection.
func (l *connLimiter) reapWith(reap func() int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reap = reap
}

// full reports whether ip holds its max connections, after reaping the
// closed ones first (at most once per reapInterval): a client that closed
// its event streams is not refused for the slots they held. l.mu is
// held, and released while reaping.
func (l *connLimiter) full(ip netip.Addr) bool {
	if l.open[ip] < l.max {
		return false
	}
	if l.reap == nil || time.Since(l.lastReap) < reapInterval {
		return true
	}
	l.lastReap = time.Now()
	reap := l.reap
	l.mu.Unlock()
	reap() // closing a counted connection releases its slot, under l.mu
	l.mu.Lock()
	return l.open[ip] >= l.max
}

// limitConns wraps ln so that no address outside exempt holds more than max
// connections. terms is the address of the terms of service for the
// Problem.
func limitConns(ln net.Listener, max int, exempt func(netip.Addr) bool, terms string) *connLimiter {
	body, _ := json.Marshal(httpapi.Problem{ // strings only: cannot fail
		Error:      fmt.Sprintf("connection: your address already has %d connections open to this server", max),
		Hint:       "reuse connections (HTTP keep-alive) instead of opening new ones, close the ones you do not need, and try again in a few seconds",
		Disclaimer: tools.Disclaimer,
		Terms:      terms,
	})
	head := "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 5\r\nConnection: close\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)+1) + "\r\n\r\n"
	return &connLimiter{Listener: ln, max: max, exempt: exempt, open: map[netip.Addr]int{},
		refuse: append(append([]byte(head), body...), '\n')}
}

// Accept returns the next connection within the limit; the others are
// answered and closed in the background.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err != nil || l.exempt(ap.Addr().Unmap()) {
			return c, nil
		}
		ip := ap.Addr().Unmap()
		l.mu.Lock()
		if l.full(ip) {
			l.mu.Unlock()
			go l.turnAway(c)
			continue
		}
		l.open[ip]++
		l.mu.Unlock()
		return &countedConn{Conn: c, release: func() { l.release(ip) }}, nil
	}
}

func (l *connLimiter) release(ip netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
}

// turnAway writes the 429, reads what the client sent for a moment (so that
// closing does not reset the connection before the answer is read) and
// closes it.
func (l *connLimiter) turnAway(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write(l.refuse); err != nil {
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// countedConn gives its slot back once, when closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// SyscallConn is the counted connection's own, so that what writes to its
// socket without waiting (the board's parked event streams) can; Close
// still gives the slot back.
func (c *countedConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}
