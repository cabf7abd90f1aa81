package eventstream

import (
	"net"
	"sync"
	"syscall"
	"time"
)

// A parked stream is one whose connection the hub writes itself. A
// stream that has sent its backlog over HTTP/1.x takes its connection
// from net/http (ResponseController.Hijack) and hands it to the hub; the
// handler's goroutine then ends, and with it the request's buffers and
// stack, which with thousands of idle streams were most of the server's
// memory (45 KB a stream; a parked one keeps its socket and this
// struct). The body was sent without chunks (Transfer-Encoding:
// identity, running to the end of the connection), so what follows is
// the event stream's own lines, written as they are.
//
// The hub queues what a stream is to get (under its lock, for every
// stream at once), then flushes each stream it queued to (without its
// lock): a flush first writes without waiting (writeNow: one system call
// that takes what the socket has room for, where the connection allows
// it), which is what nearly every flush to a client that reads needs, so
// that thousands of streams cost no goroutine each; what the socket
// cannot take at once is written by a goroutine of the stream's own,
// with a deadline, until the queue is empty. The hub never waits for a
// socket: a stream whose queue holds its limit of events unwritten, or
// whose write fails or passes its deadline, is closed, and its client
// resumes with Last-Event-ID, as a stream served by its own goroutine is
// when its buffer is full.
type parkedConn struct {
	conn  net.Conn
	raw   syscall.RawConn // for writeNow; nil where the connection has none (TLS)
	limit int             // events that may wait unwritten
	wait  time.Duration   // bounds each write of the goroutine

	mu      sync.Mutex
	queue   [][]byte // bytes to write, in order
	events  int      // events in queue
	after   int64    // the id of the last event queued
	dirty   bool     // queued to since the hub's last flush of it
	writing bool     // a flush or a goroutine writes the queue
	closed  bool
	// gone tells the hub that a write failed and the stream ended; it is
	// called without mu, and not when the hub closes the stream.
	gone func()
}

func newParkedConn(conn net.Conn, limit int, after int64, wait time.Duration) *parkedConn {
	p := &parkedConn{conn: conn, limit: limit, after: after, wait: wait}
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			p.raw = raw
		}
	}
	return p
}

// queueBytes adds b, which holds events events up to the id last (0
// events for a heartbeat), to what the stream is to write. It reports
// false when the stream is closed, or when events are waiting unwritten
// and b would take them past the limit; the caller then closes it. A
// stream with nothing waiting takes a page of any length, and a
// heartbeat is always taken (the write deadline ends a stream that
// takes nothing). dirty reports whether the stream was not yet queued to
// since its last flush: the caller flushes it once.
func (p *parkedConn) queueBytes(b []byte, events int, last int64) (ok, dirty bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.add(b, events, last)
}

// add is queueBytes with p.mu held.
func (p *parkedConn) add(b []byte, events int, last int64) (ok, dirty bool) {
	if p.closed || (events > 0 && p.events > 0 && p.events+events > p.limit) {
		return false, false
	}
	if events > 0 {
		p.after = last
	}
	p.queue = append(p.queue, b)
	p.events += events
	dirty, p.dirty = !p.dirty, true
	return true, dirty
}

// queueEvents queues the frames fs (in id order) that come after the last
// event queued; the others went with the stream's backlog. When every
// frame is new it queues *joined, fs's bytes in one piece, made on first
// use and shared by the streams of a group; ok and dirty are
// queueBytes's.
func (p *parkedConn) queueEvents(fs []*frame, joined *[]byte) (ok, dirty bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := 0
	for i < len(fs) && fs[i].id <= p.after {
		i++
	}
	switch {
	case i == len(fs):
		return !p.closed, false
	case i == 0 && joined != nil:
		if *joined == nil {
			*joined = joinFrames(fs)
		}
		return p.add(*joined, len(fs), fs[len(fs)-1].id)
	}
	for _, f := range fs[i:] {
		o, d := p.add(f.b, 1, f.id)
		if !o {
			return false, false
		}
		dirty = dirty || d
	}
	return true, dirty
}

// flush writes what is queued: at once as far as the socket takes it,
// the rest from a goroutine.
func (p *parkedConn) flush() {
	p.mu.Lock()
	p.dirty = false
	if p.writing || p.closed || len(p.queue) == 0 {
		p.mu.Unlock()
		return
	}
	bufs := p.take()
	p.writing = true
	p.mu.Unlock()
	rest, err := p.writeNow(bufs)
	if err != nil {
		p.fail()
		return
	}
	p.mu.Lock()
	if len(rest) == 0 && len(p.queue) == 0 {
		p.writing = false
		p.mu.Unlock()
		return
	}
	p.queue = append(rest, p.queue...)
	p.mu.Unlock()
	go p.write()
}

// take empties the queue and returns what it held; p.mu is held.
func (p *parkedConn) take() [][]byte {
	bufs := p.queue
	p.queue, p.events = nil, 0
	return bufs
}

// writeNow writes as much of bufs as the socket takes without waiting,
// in one system call (writev), and returns what is left. Without a raw
// connection it writes nothing.
func (p *parkedConn) writeNow(bufs [][]byte) (rest [][]byte, err error) {
	if p.raw == nil {
		return bufs, nil
	}
	var n int
	var werr error
	err = p.raw.Write(func(fd uintptr) bool {
		for {
			n, werr = writev(fd, bufs)
			if werr != syscall.EINTR {
				return true // done or not: never wait here
			}
		}
	})
	if err == nil && werr != nil && werr != syscall.EAGAIN {
		err = werr
	}
	if err != nil {
		return nil, err
	}
	if werr != nil {
		return bufs, nil
	}
	return advance(bufs, n), nil
}

// advance drops the first n bytes of bufs.
func advance(bufs [][]byte, n int) [][]byte {
	for len(bufs) > 0 && n >= len(bufs[0]) {
		n -= len(bufs[0])
		bufs = bufs[1:]
	}
	if n > 0 {
		bufs[0] = bufs[0][n:]
	}
	return bufs
}

// write writes the queue, waiting for the socket, each batch within
// p.wait, until the queue is empty; it closes the stream when a
// write fails.
func (p *parkedConn) write() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 || p.closed {
			p.writing = false
			p.mu.Unlock()
			// Back to writing without waiting: no deadline is left
			// behind to refuse the next flush.
			_ = p.conn.SetWriteDeadline(time.Time{})
			return
		}
		bufs := net.Buffers(p.take())
		p.mu.Unlock()
		err := p.conn.SetWriteDeadline(time.Now().Add(p.wait))
		if err == nil {
			_, err = bufs.WriteTo(p.conn)
		}
		if err != nil {
			p.fail()
			return
		}
	}
}

// peerGone reports whether the client closed the connection, looking
// without waiting (peerClosed). The server never reads a parked
// connection, so a close is otherwise seen only at the next write.
func (p *parkedConn) peerGone() bool {
	if p.raw == nil {
		return false
	}
	gone := false
	if err := p.raw.Read(func(fd uintptr) bool { gone = peerClosed(fd); return true }); err != nil {
		return true
	}
	return gone
}

// fail closes a stream whose write failed and tells the hub.
func (p *parkedConn) fail() {
	if p.close() && p.gone != nil {
		p.gone()
	}
}

// close closes the connection, and reports whether this call did.
func (p *parkedConn) close() bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	p.closed = true
	p.queue, p.events = nil, 0
	p.mu.Unlock()
	p.conn.Close()
	return true
}
