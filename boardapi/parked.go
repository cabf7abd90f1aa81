package boardapi

import (
	"net"
	"sync"
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
// A goroutine runs only while the stream has something to write: the hub
// queues frames, and the first frame queued starts one that writes the
// queue (a batch a write, with its own deadline) and ends when it is
// empty. The hub never waits for a socket: a stream whose queue reaches
// its limit, or whose write fails or passes its deadline, is closed, and
// its client resumes with Last-Event-ID, as a stream served by its own
// goroutine is when its buffer is full.
type parkedConn struct {
	conn  net.Conn
	limit int // frames that may wait unwritten

	mu      sync.Mutex
	queue   []*sseFrame
	after   int64 // the id of the last event queued
	writing bool  // a goroutine writes the queue
	closed  bool
	// gone tells the hub that a write failed and the stream ended; it is
	// called without mu, and not when the hub closes the stream.
	gone func()
}

// heartbeatFrame is the comment a quiet stream sends; it is not an event
// (its id is below every event's) and goes to every parked stream.
var heartbeatFrame = &sseFrame{id: -1, b: []byte(": heartbeat\n\n")}

// send queues f. It reports false when the stream is closed or its queue
// is full; the caller then closes it. Events at or before the last one
// queued are skipped: the backlog sent them.
func (p *parkedConn) send(f *sseFrame) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.queue) >= p.limit {
		return false
	}
	if f.id >= 0 {
		if f.id <= p.after {
			return true
		}
		p.after = f.id
	}
	p.queue = append(p.queue, f)
	if !p.writing {
		p.writing = true
		go p.write()
	}
	return true
}

// write writes the queue until it is empty, or closes the stream when a
// write fails.
func (p *parkedConn) write() {
	var batch [][]byte
	for {
		p.mu.Lock()
		if len(p.queue) == 0 || p.closed {
			p.writing = false
			p.queue = nil // a long queue's array is not kept by an idle stream
			p.mu.Unlock()
			return
		}
		batch = batch[:0]
		for _, f := range p.queue {
			batch = append(batch, f.b)
		}
		clear(p.queue)
		p.queue = p.queue[:0]
		p.mu.Unlock()
		err := p.conn.SetWriteDeadline(time.Now().Add(streamWriteWait))
		if err == nil {
			bufs := net.Buffers(batch) // one writev for the batch where the connection allows
			_, err = bufs.WriteTo(p.conn)
		}
		clear(batch)
		if err != nil {
			if p.close() && p.gone != nil {
				p.gone()
			}
			return
		}
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
	p.queue = nil
	p.mu.Unlock()
	p.conn.Close()
	return true
}
