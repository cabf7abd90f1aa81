package boardapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/predictions-md/predictions/board"
)

// eventHub fans the board's event log out to the streams of one server:
// one goroutine reads the log after the last id it delivered, whenever the
// store says events were appended ([board.Store.EventsChanged]: a commit
// in this process, or a NOTIFY from another replica) and every
// [Options.EventPoll] besides, and offers each event to every stream whose
// filters match. It never waits for a stream: a stream whose buffer is
// full is dropped (its channel closed), so a slow client cannot slow the
// board's writes or the other streams; it resumes with Last-Event-ID.
// The goroutine runs while streams are open.
//
// A stream served over HTTP/1.x is parked once it has sent its backlog
// (parked.go): the hub writes its connection, and sends it a heartbeat
// every heartbeat.
type eventHub struct {
	store     Board
	log       *slog.Logger
	buffer    int
	poll      time.Duration
	heartbeat time.Duration

	mu sync.Mutex
	// groups holds the streams by their filters, so that each event is
	// matched once per distinct set of filters rather than once per
	// stream: thousands of streams mostly share a few.
	groups  map[string]*subGroup
	n       int   // streams in all groups
	parked  int   // of which parked
	last    int64 // the id of the last event offered
	running bool
	stopped bool // by stop: streams parked after it are closed
}

// subGroup is the streams with the same filters.
type subGroup struct {
	q    board.EventQuery
	subs map[*eventSub]struct{}
}

// filterKey names a query's filters (After and Limit aside): two queries
// with the same key match the same events.
func filterKey(q board.EventQuery) string {
	types := make([]string, len(q.Types))
	for i, t := range q.Types {
		types[i] = string(t)
	}
	slices.Sort(types)
	return strings.Join(types, ",") + "\x00" + q.PredictionID + "\x00" + q.AgentID + "\x00" + strings.ToLower(q.Domain)
}

// eventSub is one stream's subscription.
type eventSub struct {
	key string         // of its group
	ch  chan *sseFrame // closed when the hub drops the stream, until it is parked
	// from is the hub's last id when the stream subscribed: every event
	// after it is offered to the stream.
	from int64
	// out is the stream's connection once parked; the hub then writes
	// to it instead of ch.
	out *parkedConn
}

func newEventHub(store Board, log *slog.Logger, buffer int, poll, heartbeat time.Duration) *eventHub {
	return &eventHub{store: store, log: log, buffer: buffer, poll: poll, heartbeat: heartbeat, groups: map[string]*subGroup{}}
}

// subscribe registers a stream with filters q. Events after the
// returned sub.from come on sub.ch.
func (h *eventHub) subscribe(ctx context.Context, q board.EventQuery) (*eventSub, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running {
		last, err := h.store.LastEventID(ctx)
		if err != nil {
			return nil, err
		}
		h.last, h.running = last, true
		go h.run()
	}
	sub := &eventSub{key: filterKey(q), ch: make(chan *sseFrame, h.buffer), from: h.last}
	g := h.groups[sub.key]
	if g == nil {
		g = &subGroup{q: q, subs: map[*eventSub]struct{}{}}
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
func (h *eventHub) park(sub *eventSub, conn net.Conn, after int64) {
	p := newParkedConn(conn, h.buffer, after)
	p.gone = func() { h.unsubscribe(sub) }
	h.mu.Lock()
	g := h.groups[sub.key]
	if _, ok := g.subs[sub]; g == nil || !ok || h.stopped {
		h.remove(sub)
		h.mu.Unlock()
		p.close()
		return
	}
	held := make([]*sseFrame, 0, len(sub.ch))
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

// stop closes the parked streams, and those parked later; their clients
// resume elsewhere with Last-Event-ID.
func (h *eventHub) stop() {
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
}

// counts returns the streams open and, of them, parked.
func (h *eventHub) counts() (open, parked int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n, h.parked
}

// unsubscribe removes a stream that ends.
func (h *eventHub) unsubscribe(sub *eventSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(sub)
}

// remove takes sub out of its group, if it is still there; h.mu is held.
func (h *eventHub) remove(sub *eventSub) bool {
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

// run reads and offers events until no stream is left.
func (h *eventHub) run() {
	ctx := context.Background()
	beat := time.NewTicker(h.heartbeat)
	defer beat.Stop()
	var dirty []*parkedConn // the parked streams queued to, flushed without h.mu
	for {
		wake := h.store.EventsChanged() // before the read: a commit after it wakes the wait below
		h.mu.Lock()
		if h.n == 0 {
			h.running = false
			h.mu.Unlock()
			return
		}
		after := h.last
		h.mu.Unlock()
		page, err := h.store.Events(ctx, board.EventQuery{After: after, Limit: board.MaxEventPage})
		h.mu.Lock()
		switch {
		case errors.Is(err, board.ErrEventsTrimmed):
			// Behind the log's retention: every stream missed events;
			// dropped, each resumes and is told so (410).
			for _, g := range h.groups {
				for sub := range g.subs {
					h.drop(sub)
				}
			}
			h.running = false
			h.mu.Unlock()
			return
		case err != nil:
			h.log.Warn("reading the event log", "error", err.Error())
		default:
			dirty = h.offerPage(page.Events, dirty[:0])
			h.last = page.LastID
		}
		if h.n == 0 {
			h.running = false
			h.mu.Unlock()
			flushAll(dirty)
			return
		}
		h.mu.Unlock()
		dirty = flushAll(dirty)
		if err == nil && page.HasMore {
			continue
		}
		t := time.NewTimer(h.poll)
		for waiting := true; waiting; {
			select {
			case <-wake:
				waiting = false
			case <-t.C:
				waiting = false
			case <-beat.C:
				dirty = flushAll(h.beatParked(dirty[:0]))
			}
		}
		t.Stop()
	}
}

// offerPage offers a page of events to every stream whose filters match
// them, dropping those that cannot take them, and returns dirty with the
// parked streams queued to appended; h.mu is held.
//
// Each event is encoded once, when a stream first wants it, and its bytes
// shared by every stream: with thousands of streams, encoding per stream
// cost more than the write itself. A group's events in the page are
// joined once too, so that a parked stream writes them in one piece.
func (h *eventHub) offerPage(events []board.Event, dirty []*parkedConn) []*parkedConn {
	frames := make([]*sseFrame, len(events))
	var matched []*sseFrame
	for _, g := range h.groups {
		matched = matched[:0]
		for i, e := range events {
			if !g.q.Match(e) {
				continue
			}
			if frames[i] == nil {
				frames[i] = newSSEFrame(e)
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
func joinFrames(fs []*sseFrame) []byte {
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
func (h *eventHub) sendAll(sub *eventSub, fs []*sseFrame) {
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
func (h *eventHub) beatParked(dirty []*parkedConn) []*parkedConn {
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
			if ok, d := sub.out.queueBytes(heartbeat, 0, 0); !ok {
				h.drop(sub)
			} else if d {
				dirty = append(dirty, sub.out)
			}
		}
	}
	return dirty
}

// drop ends a stream whose buffer is full; h.mu is held.
func (h *eventHub) drop(sub *eventSub) {
	if !h.remove(sub) {
		return
	}
	if sub.out != nil {
		sub.out.close()
		return
	}
	close(sub.ch)
}
