package eventstream

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// ContentType is the media type of an event stream.
const ContentType = "text/event-stream"

// LastEventIDHeader is the header with which an EventSource resumes.
const LastEventIDHeader = "Last-Event-ID"

// Stream is one request's stream, open from [Hub.Open] until [Stream.Serve]
// returns or [Stream.Close].
//
// The stream is written with net/http's ResponseController, not an SSE
// library: the format is four kinds of lines (id, event, data, comments),
// the server needs one writer per stream with its own write deadline
// (SetWriteDeadline, past the server's WriteTimeout) and flushes, which
// ResponseController gives through every middleware that unwraps, and the
// libraries (r3labs/sse, tmaxmax/go-sse) bring their own fan-out and
// replay, which the log and the hub already are. ResponseController also
// hands over the connection (Hijack) once a stream has sent its backlog,
// for the hub to write (parked.go): what lets one server hold 10,000
// streams in about 110 MB.
type Stream[E any] struct {
	hub *Hub[E]
	sub *eventSub
	w   http.ResponseWriter
	r   *http.Request
	rc  *http.ResponseController
}

// Open subscribes the request r to the events that match accepts; key
// names the filters (streams with the same key must match the same
// events, and are matched once for all). From then on the stream keeps
// its own write deadline ([Config.WriteWait]) and no read deadline: the
// server's WriteTimeout and ReadTimeout bound requests, not streams. The
// caller then reads the backlog, if the client asked for one, and
// [Stream.Serve]s the stream, or [Stream.Close]s it to refuse it.
func (h *Hub[E]) Open(w http.ResponseWriter, r *http.Request, key string, match func(E) bool) (*Stream[E], error) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(h.cfg.WriteWait))
	_ = rc.SetReadDeadline(time.Time{})
	sub, err := h.subscribe(r.Context(), key, match)
	if err != nil {
		return nil, err
	}
	return &Stream[E]{hub: h, sub: sub, w: w, r: r, rc: rc}, nil
}

// From is the id after which the hub offers the stream every event: a
// stream without a backlog starts there, one with a backlog reads the
// log up to it at least.
func (s *Stream[E]) From() int64 { return s.sub.from }

// Close ends a stream that is not served.
func (s *Stream[E]) Close() { s.hub.unsubscribe(s.sub) }

// Serve writes the stream: its header, its retry time, the backlog
// (the page given, then the pages next reads after it while the log
// holds more, each read in its turn: [Hub.ReadBacklog]; each write
// within [Config.BacklogWait]), then the events the hub offers, with a heartbeat while
// it is quiet. It returns when the client goes, when the stream is
// dropped for falling behind, when a write fails or when the hub stops;
// over HTTP/1.x it returns once the backlog is sent, and the hub writes
// the connection from then on (parked.go). A HEAD request gets the header
// alone.
func (s *Stream[E]) Serve(backlog Page[E], next func(ctx context.Context, after int64) (Page[E], error)) {
	parked := false
	defer func() {
		if !parked {
			s.hub.unsubscribe(s.sub)
		}
	}()
	s.writeHeader()
	if s.r.Method == http.MethodHead {
		return
	}
	sw := &sseWriter{w: s.w, rc: s.rc, wait: s.hub.cfg.BacklogWait}
	after, err := s.sendBacklog(sw, backlog, next)
	if err != nil {
		return
	}
	sw.wait = s.hub.cfg.WriteWait
	// Caught up: over HTTP/1.x the hub takes the connection and this
	// goroutine ends. HTTP/2 streams share their connection and stay
	// here.
	if s.r.ProtoMajor == 1 {
		if conn, _, err := s.rc.Hijack(); err == nil {
			parked = true
			s.hub.park(s.sub, conn, after)
			return
		}
	}
	s.follow(sw, after)
}

// writeHeader writes the response's header.
func (s *Stream[E]) writeHeader() {
	h := s.w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	// Not chunked: the body runs to the end of the connection, as the
	// HTML standard's event streams may, and net/http then sends each
	// flush as it is, without a chunk header formatted (and allocated)
	// per flush per stream, which with thousands of streams was most of
	// their cost. net/http removes this header from the response.
	if s.r.ProtoMajor == 1 && s.r.ProtoMinor >= 1 { // HTTP/1.0 is never chunked; HTTP/2 frames its own
		h.Set("Transfer-Encoding", "identity")
	}
	s.w.WriteHeader(http.StatusOK)
}

// sendBacklog writes the retry time, then page and the pages next reads
// after it while the log holds more, each page read (after the first)
// and written in a turn of the hub's ([Hub.ReadBacklog]), and flushed.
// A write that waits for the client past turnWrite gives the turn back
// as it waits: it costs the processor nothing more, and a client that
// reads nothing holds no turn. It returns the id of the last event read,
// or the error that ends the stream (a write, or a read: the client
// resumes).
func (s *Stream[E]) sendBacklog(sw *sseWriter, page Page[E], next func(ctx context.Context, after int64) (Page[E], error)) (after int64, err error) {
	ctx := s.r.Context()
	sw.begin()
	sw.printf("retry: %d\n\n", s.hub.cfg.Retry.Milliseconds())
	for first := true; ; first = false {
		release, err := s.hub.turn(ctx)
		if err != nil {
			return after, err
		}
		if !first {
			last := after
			page, err = s.hub.readShared(ctx, s.sub.key, last, func(ctx context.Context) (Page[E], error) { return next(ctx, last) })
			if err != nil {
				release()
				return after, err
			}
		}
		waiting := time.AfterFunc(turnWrite, release)
		sw.begin() // a deadline a page
		sw.writeBytes(s.hub.cfg.bytes(page))
		after = page.Last
		_ = sw.flush()
		if waiting.Stop() {
			release()
		}
		if !page.More || sw.err != nil {
			return after, sw.err
		}
	}
}

// turnWrite is how long a backlog page's write may hold its turn.
const turnWrite = 20 * time.Millisecond

// follow writes the events the hub offers the stream on its channel, and
// a heartbeat while it is quiet, from the request's goroutine, until the
// client goes, the stream is dropped, a write fails or the hub stops.
func (s *Stream[E]) follow(sw *sseWriter, after int64) {
	beat := time.NewTicker(s.hub.cfg.Heartbeat)
	defer beat.Stop()
	ch := s.sub.ch
	for {
		select {
		case <-s.r.Context().Done():
			return
		case <-s.hub.done:
			return
		case f, ok := <-ch:
			if !ok {
				return // dropped for falling behind: the client resumes with Last-Event-ID
			}
			if f.id <= after { // sent from the log already
				continue
			}
			after = f.id
			sw.begin()
			sw.write(f)
			after = drain(sw, ch, after)
		case <-beat.C:
			sw.begin()
			sw.writeBytes(heartbeatComment)
		}
		if sw.flush() != nil {
			return
		}
	}
}

// drain writes what came on ch meanwhile, without waiting, so that it
// goes in one flush, and returns the id of the last event written.
func drain(sw *sseWriter, ch <-chan *frame, after int64) int64 {
	for range len(ch) {
		select {
		case f, ok := <-ch:
			if !ok {
				return after
			}
			if f.id > after {
				after = f.id
				sw.write(f)
			}
		default:
			return after
		}
	}
	return after
}

// sseWriter writes a stream's lines, remembering the first error. Each
// batch of writes (what one wake of the stream sends, then its flush)
// has its own write deadline, set by begin.
type sseWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	wait time.Duration
	err  error
}

// begin starts a batch: its writes and its flush must end within
// sw.wait.
func (sw *sseWriter) begin() {
	if sw.err == nil {
		sw.err = sw.rc.SetWriteDeadline(time.Now().Add(sw.wait))
	}
}

func (sw *sseWriter) printf(format string, args ...any) {
	if sw.err == nil {
		_, sw.err = fmt.Fprintf(sw.w, format, args...)
	}
}

func (sw *sseWriter) write(f *frame) { sw.writeBytes(f.b) }

func (sw *sseWriter) writeBytes(b []byte) {
	if sw.err == nil {
		_, sw.err = sw.w.Write(b)
	}
}

func (sw *sseWriter) flush() error {
	if sw.err == nil {
		sw.err = sw.rc.Flush()
	}
	return sw.err
}
