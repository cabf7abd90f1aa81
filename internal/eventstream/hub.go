package eventstream

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// Page is a page of the log: its events after an id, oldest first.
type Page[E any] struct {
	// Events are the events of the page that the reader asked for (a
	// filtered read may skip some).
	Events []E
	// Last is the id of the last event read, matching or not: the next
	// page is the one after it.
	Last int64
	// More says whether the log holds events after Last.
	More bool
	// shared, set on a page that streams share (Hub.ReadBacklog), holds
	// its events as sent, encoded once for all of them.
	shared *encodedPage
}

// encodedPage is a shared page's events as a stream sends them.
type encodedPage struct {
	once sync.Once
	b    []byte
}

// bytes returns what a stream sends of page: its events' frames, joined,
// encoded once when the page is shared.
func (c *Config[E]) bytes(page Page[E]) []byte {
	enc := func() []byte {
		var b []byte
		for _, e := range page.Events {
			b = append(b, c.frame(e).b...)
		}
		return b
	}
	if page.shared == nil {
		return enc()
	}
	page.shared.once.Do(func() { page.shared.b = enc() })
	return page.shared.b
}

// Log is the ordered log a [Hub] follows: every event has an id greater
// than those before it.
type Log[E any] interface {
	// LastID returns the id of the newest event, 0 when there is none.
	LastID(ctx context.Context) (int64, error)
	// Read returns a page of the events after the id after. Its error
	// wraps [ErrTrimmed] when the log no longer holds them.
	Read(ctx context.Context, after int64) (Page[E], error)
	// Changed returns a channel that is closed once events are appended
	// after the call (a commit in this process, or a notice from
	// another).
	Changed() <-chan struct{}
}

// ErrTrimmed is the error, wrapped, of a [Log] that no longer holds the
// events asked for (they are older than it keeps). The hub then drops
// every stream: each resumes and is told so.
var ErrTrimmed = errors.New("eventstream: the log no longer holds the events after that id")

// Hub fans a [Log] out to the streams of one server: one goroutine reads
// the log after the last id it delivered, whenever [Log.Changed] says
// events were appended and every [Config.Poll] besides ([Follow]), and
// offers each event to every stream whose filters match. It never waits
// for a stream: a stream whose buffer is full is dropped (its channel
// closed), so a slow client cannot slow the log's writers or the other
// streams; it resumes with Last-Event-ID. The goroutine runs while
// streams are open.
//
// A stream served over HTTP/1.x is parked once it has sent its backlog
// (parked.go): the hub writes its connection, and sends it a heartbeat
// every [Config.Heartbeat].
type Hub[E any] struct {
	cfg  Config[E]
	done chan struct{} // closed by Stop
	once sync.Once
	// backlog holds a token per stream reading its backlog (ReadBacklog);
	// pages are the backlog pages read lately, shared.
	backlog chan struct{}
	pagesMu sync.Mutex
	pages   map[pageKey]*sharedPage[E]

	mu sync.Mutex
	// groups holds the streams by their filters, so that each event is
	// matched once per distinct set of filters rather than once per
	// stream: thousands of streams mostly share a few.
	groups  map[string]*subGroup[E]
	n       int   // streams in all groups
	parked  int   // of which parked
	last    int64 // the id of the last event offered
	running bool
	stopped bool // by stop: streams parked after it are closed
}

// subGroup is the streams with the same filters.
type subGroup[E any] struct {
	match func(E) bool
	subs  map[*eventSub]struct{}
}

// eventSub is one stream's subscription.
type eventSub struct {
	key string      // of its group
	ch  chan *frame // closed when the hub drops the stream, until it is parked
	// from is the hub's last id when the stream subscribed: every event
	// after it is offered to the stream.
	from int64
	// out is the stream's connection once parked; the hub then writes
	// to it instead of ch.
	out *parkedConn
}

// NewHub returns a hub over cfg.Log. It starts no goroutine until a
// stream opens.
func NewHub[E any](cfg Config[E]) *Hub[E] {
	cfg = cfg.withDefaults()
	return &Hub[E]{cfg: cfg, done: make(chan struct{}), groups: map[string]*subGroup[E]{},
		backlog: make(chan struct{}, cfg.BacklogReads), pages: map[pageKey]*sharedPage[E]{}}
}

// ReadBacklog returns the page of the log after the id after for a
// stream whose filters are named key (as in [Hub.Open]), read by read in
// the stream's turn: streams take turns ([Config.BacklogReads] at once)
// to read their backlog and write each page of it ([Stream.Serve]), so
// that however many ask for a backlog they hold at most that many of the
// database's connections and of the processor, and writes and health
// checks find theirs. Streams that ask for the same page (the same key
// and after) within sharedPageLife share one read and its events, which
// they only read: a thousand streams resuming from one point read the
// log about once. Only a full page (More) is shared; the log's last page
// is read by each stream, so that none misses an event appended
// meanwhile. It returns ctx's error if ctx ends (the client went) before
// its turn.
func (h *Hub[E]) ReadBacklog(ctx context.Context, key string, after int64, read func(ctx context.Context) (Page[E], error)) (Page[E], error) {
	release, err := h.turn(ctx)
	if err != nil {
		return Page[E]{}, err
	}
	defer release()
	return h.readShared(ctx, key, after, read)
}

// turn waits for a turn to read and write a backlog page, and returns
// the function that gives it back (call it once).
func (h *Hub[E]) turn(ctx context.Context) (release func(), err error) {
	select {
	case h.backlog <- struct{}{}:
		return func() { <-h.backlog }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// readShared is ReadBacklog in a turn already taken.
func (h *Hub[E]) readShared(ctx context.Context, key string, after int64, read func(ctx context.Context) (Page[E], error)) (Page[E], error) {
	k := pageKey{key, after}
	now := time.Now()
	h.pagesMu.Lock()
	sp := h.pages[k]
	if sp != nil {
		select {
		case <-sp.done:
			if now.Sub(sp.at) > sharedPageLife {
				sp = nil
			}
		default:
		}
	}
	own := sp == nil
	if own {
		sp = &sharedPage[E]{done: make(chan struct{})}
		h.prunePages(now)
		if len(h.pages) < maxSharedPages {
			h.pages[k] = sp
		}
	}
	h.pagesMu.Unlock()
	if !own {
		select {
		case <-sp.done:
			if sp.err == nil && sp.page.More {
				return sp.page, nil
			}
			return read(ctx) // not to be shared: read it anew
		case <-ctx.Done():
			return Page[E]{}, context.Cause(ctx)
		}
	}
	sp.page, sp.err = read(ctx)
	if sp.err == nil && sp.page.More {
		sp.page.shared = &encodedPage{}
	}
	sp.at = time.Now()
	close(sp.done)
	if sp.err != nil || !sp.page.More {
		h.pagesMu.Lock()
		if h.pages[k] == sp {
			delete(h.pages, k)
		}
		h.pagesMu.Unlock()
	}
	return sp.page, sp.err
}

// sharedPageLife is how long a backlog page read for one stream is given
// to others asking for the same one; maxSharedPages bounds how many are
// kept.
const (
	sharedPageLife = 2 * time.Second
	maxSharedPages = 1024
)

// pageKey names a backlog page: the filters' key and the id it follows.
type pageKey struct {
	key   string
	after int64
}

// sharedPage is a backlog page being read (done open) or read.
type sharedPage[E any] struct {
	done chan struct{} // closed once page and err are set
	page Page[E]
	err  error
	at   time.Time // when it was read
}

// prunePages drops the pages read more than sharedPageLife before now;
// h.pagesMu is held.
func (h *Hub[E]) prunePages(now time.Time) {
	for k, sp := range h.pages {
		select {
		case <-sp.done:
			if now.Sub(sp.at) > sharedPageLife {
				delete(h.pages, k)
			}
		default:
		}
	}
}

// subscribe registers a stream whose filters are named key and select
// the events match accepts. Events after the returned sub.from come on
// sub.ch.
func (h *Hub[E]) subscribe(ctx context.Context, key string, match func(E) bool) (*eventSub, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running {
		last, err := h.cfg.Log.LastID(ctx)
		if err != nil {
			return nil, err
		}
		h.last, h.running = last, true
		go h.run(last)
	}
	sub := &eventSub{key: key, ch: make(chan *frame, h.cfg.Buffer), from: h.last}
	g := h.groups[sub.key]
	if g == nil {
		g = &subGroup[E]{match: match, subs: map[*eventSub]struct{}{}}
		h.groups[sub.key] = g
	}
	g.subs[sub] = struct{}{}
	h.n++
	return sub, nil
}

// park hands the hub the connection of sub, a stream that has sent every
// event up to after and flushed it. Events after that which sub's
// channel holds are written first. A stream dropped meanwhile, or parked
// after stop, is closed.
func (h *Hub[E]) park(sub *eventSub, conn net.Conn, after int64) {
	p := newParkedConn(conn, h.cfg.Buffer, after, h.cfg.WriteWait)
	p.gone = func() { h.unsubscribe(sub) }
	h.mu.Lock()
	g := h.groups[sub.key]
	if _, ok := g.subs[sub]; g == nil || !ok || h.stopped {
		h.remove(sub)
		h.mu.Unlock()
		p.close()
		return
	}
	held := make([]*frame, 0, len(sub.ch))
	for len(sub.ch) > 0 {
		held = append(held, <-sub.ch)
	}
	if ok, _ := p.queueEvents(held, nil); !ok {
		h.remove(sub)
		h.mu.Unlock()
		p.close()
		return
	}
	sub.out = p
	h.parked++
	h.mu.Unlock()
	p.flush()
}

// Stop ends the open streams, and those that open after it once they
// have sent their backlog: the parked ones are closed, those served by
// their own goroutine return. Their clients resume elsewhere with
// Last-Event-ID. It is for a server shutting down, whose
// Shutdown would otherwise wait for streams that never end
// (http.Server.RegisterOnShutdown).
func (h *Hub[E]) Stop() {
	h.once.Do(func() {
		close(h.done)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.stopped = true
		for _, g := range h.groups {
			for sub := range g.subs {
				if sub.out != nil {
					h.drop(sub)
				}
			}
		}
	})
}

// Reap closes the parked streams whose clients closed their connection,
// and returns how many: a parked connection is never read, so its close
// is otherwise seen only at its next write, a heartbeat later. Closing
// gives back what the connection holds (in cmd/predictions, its slot in
// its address's connection limit, which calls Reap before it refuses a
// connection). It looks at each parked stream without waiting: one
// system call a stream.
func (h *Hub[E]) Reap() int {
	type parked struct {
		sub *eventSub
		out *parkedConn
	}
	h.mu.Lock()
	var all []parked
	for _, g := range h.groups {
		for sub := range g.subs {
			if sub.out != nil {
				all = append(all, parked{sub, sub.out})
			}
		}
	}
	h.mu.Unlock()
	n := 0
	for _, p := range all {
		if p.out.peerGone() && p.out.close() {
			h.unsubscribe(p.sub)
			n++
		}
	}
	return n
}

// Counts returns the streams open and, of them, parked: served by the
// hub on their connection alone, without a goroutine or the request's
// buffers.
func (h *Hub[E]) Counts() (open, parked int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n, h.parked
}

// unsubscribe removes a stream that ends.
func (h *Hub[E]) unsubscribe(sub *eventSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(sub)
}

// remove takes sub out of its group, if it is still there; h.mu is held.
func (h *Hub[E]) remove(sub *eventSub) bool {
	g := h.groups[sub.key]
	if g == nil {
		return false
	}
	if _, ok := g.subs[sub]; !ok {
		return false
	}
	delete(g.subs, sub)
	if len(g.subs) == 0 {
		delete(h.groups, sub.key)
	}
	h.n--
	if sub.out != nil {
		h.parked--
	}
	return true
}

// errIdle ends the hub's [Follow]: no stream is left.
var errIdle = errors.New("eventstream: no stream left")

// run reads and offers the events after the id after until no stream is
// left.
func (h *Hub[E]) run(after int64) {
	var dirty []*parkedConn // the parked streams queued to, flushed without h.mu
	read := func(ctx context.Context, after int64) (int64, bool, error) {
		return h.readPage(ctx, after, &dirty)
	}
	beat := func() { dirty = flushAll(h.beatParked(dirty[:0])) }
	_ = Follow(context.Background(), after, read, FollowOptions{
		Wake: h.cfg.Log.Changed, Poll: h.cfg.Poll, Beat: beat, BeatEvery: h.cfg.Heartbeat})
}

// readPage reads the page of events after the id after, offers it to the
// streams and flushes the parked ones it queued to (*dirty, reused from
// one page to the next). It returns errIdle, and marks the hub not
// running, when no stream is left; when the log no longer holds the
// events after after, it drops every stream first: each missed events,
// and resumes to be told so.
func (h *Hub[E]) readPage(ctx context.Context, after int64, dirty *[]*parkedConn) (last int64, more bool, err error) {
	h.mu.Lock()
	if h.n == 0 {
		h.running = false
		h.mu.Unlock()
		return after, false, errIdle
	}
	h.mu.Unlock()
	page, err := h.cfg.Log.Read(ctx, after)
	h.mu.Lock()
	switch {
	case errors.Is(err, ErrTrimmed):
		for _, g := range h.groups {
			for sub := range g.subs {
				h.drop(sub)
			}
		}
		h.running = false
		h.mu.Unlock()
		return after, false, errIdle
	case err != nil:
		h.cfg.Logger.Warn("reading the event log", "error", err.Error())
	default:
		*dirty = h.offerPage(page.Events, (*dirty)[:0])
		h.last, after = page.Last, page.Last
	}
	if h.n == 0 {
		h.running = false
		h.mu.Unlock()
		flushAll(*dirty)
		return after, false, errIdle
	}
	h.mu.Unlock()
	*dirty = flushAll(*dirty)
	return after, err == nil && page.More, nil
}

// offerPage offers a page of events to every stream whose filters match
// them, dropping those that cannot take them, and returns dirty with the
// parked streams queued to appended; h.mu is held.
//
// Each event is encoded once, when a stream first wants it, and its bytes
// shared by every stream: with thousands of streams, encoding per stream
// cost more than the write itself. A group's events in the page are
// joined once too, so that a parked stream writes them in one piece.
func (h *Hub[E]) offerPage(events []E, dirty []*parkedConn) []*parkedConn {
	frames := make([]*frame, len(events))
	var matched []*frame
	for _, g := range h.groups {
		matched = matched[:0]
		for i, e := range events {
			if !g.match(e) {
				continue
			}
			if frames[i] == nil {
				frames[i] = h.cfg.frame(e)
			}
			matched = append(matched, frames[i])
		}
		if len(matched) == 0 {
			continue
		}
		var joined []byte
		for sub := range g.subs {
			p := sub.out
			if p == nil {
				h.sendAll(sub, matched)
				continue
			}
			if ok, d := p.queueEvents(matched, &joined); !ok {
				h.drop(sub)
			} else if d {
				dirty = append(dirty, p)
			}
		}
	}
	return dirty
}

// joinFrames returns the frames' bytes in one slice (the frame's own when
// there is one).
func joinFrames(fs []*frame) []byte {
	if len(fs) == 1 {
		return fs[0].b
	}
	n := 0
	for _, f := range fs {
		n += len(f.b)
	}
	b := make([]byte, 0, n)
	for _, f := range fs {
		b = append(b, f.b...)
	}
	return b
}

// sendAll puts the frames in the channel of a stream served by its own
// goroutine, and drops it when the channel is full; h.mu is held.
func (h *Hub[E]) sendAll(sub *eventSub, fs []*frame) {
	for _, f := range fs {
		select {
		case sub.ch <- f:
		default:
			h.drop(sub)
			return
		}
	}
}

// flushAll flushes the parked streams in dirty, without h.mu, and
// returns dirty emptied for reuse.
func flushAll(dirty []*parkedConn) []*parkedConn {
	for i, p := range dirty {
		p.flush()
		dirty[i] = nil
	}
	return dirty[:0]
}

// beatParked queues a heartbeat to every parked stream and returns dirty
// with those to flush appended. A stream served by its own goroutine
// sends its own.
func (h *Hub[E]) beatParked(dirty []*parkedConn) []*parkedConn {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.parked == 0 {
		return dirty
	}
	for _, g := range h.groups {
		for sub := range g.subs {
			if sub.out == nil {
				continue
			}
			if ok, d := sub.out.queueBytes(heartbeatComment, 0, 0); !ok {
				h.drop(sub)
			} else if d {
				dirty = append(dirty, sub.out)
			}
		}
	}
	return dirty
}

// drop ends a stream whose buffer is full; h.mu is held.
func (h *Hub[E]) drop(sub *eventSub) {
	if !h.remove(sub) {
		return
	}
	if sub.out != nil {
		sub.out.close()
		return
	}
	close(sub.ch)
}
