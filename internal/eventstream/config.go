package eventstream

import (
	"log/slog"
	"strconv"
	"time"
)

// The defaults of [Config]'s durations and sizes.
const (
	// DefaultHeartbeat is how often a quiet stream sends a comment, so
	// that proxies and clients see it alive.
	DefaultHeartbeat = 15 * time.Second
	// DefaultBuffer is how many events a stream may hold unsent before
	// it is dropped.
	DefaultBuffer = 256
	// DefaultWriteWait bounds each write of a stream: a client that
	// reads nothing for that long is dropped.
	DefaultWriteWait = 30 * time.Second
	// DefaultRetry is the reconnection time a stream asks of an
	// EventSource.
	DefaultRetry = 2 * time.Second
	// DefaultBacklogReads is how many streams may read their backlog
	// from the log at once.
	DefaultBacklogReads = 1
	// DefaultBacklogWait bounds each write of a stream's backlog.
	DefaultBacklogWait = 10 * time.Second
)

// Config configures a [Hub]. Log and Encode are required; every other
// field's zero value means its default.
type Config[E any] struct {
	// Log is the log the hub follows.
	Log Log[E]
	// Encode returns what a stream sends of an event: its id, its name
	// (the event: line; empty sends none) and its data, on one data:
	// line, so without a line break (JSON from encoding/json has none).
	// The hub encodes each event once, when a stream first wants it,
	// and shares the bytes among the streams it goes to.
	Encode func(E) (id int64, name string, data []byte)
	// Logger receives the log's read failures; nil means slog.Default().
	Logger *slog.Logger
	// Buffer is how many events a stream may hold unsent before it is
	// dropped (its client resumes with Last-Event-ID); 0 means
	// [DefaultBuffer].
	Buffer int
	// Poll is how often the hub reads the log without being woken by
	// [Log.Changed]; 0 means [DefaultPoll].
	Poll time.Duration
	// Heartbeat is how often a quiet stream sends a comment line; 0
	// means [DefaultHeartbeat].
	Heartbeat time.Duration
	// WriteWait bounds each write of a stream (its batch of events and
	// their flush): a client that reads nothing for that long is
	// dropped. It replaces the server's WriteTimeout and ReadTimeout,
	// which bound requests, not streams. 0 means [DefaultWriteWait].
	WriteWait time.Duration
	// BacklogReads bounds the streams reading their backlog from the log
	// at once; the others wait for a turn (or for their client to go).
	// Set it below the log's pool of database connections, so that
	// however many streams ask for a backlog, connections are left for
	// writes and health checks. 0 means [DefaultBacklogReads].
	BacklogReads int
	// BacklogWait bounds each write of a stream's backlog (a page of
	// events and its flush), shorter than WriteWait: a client that asks
	// for the backlog and reads nothing is dropped before it holds a
	// page in memory for long. 0 means [DefaultBacklogWait].
	BacklogWait time.Duration
	// Retry is the reconnection time the stream asks of an EventSource
	// (its retry: line), rounded down to the millisecond; 0 means
	// [DefaultRetry].
	Retry time.Duration
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config[E]) withDefaults() Config[E] {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Buffer <= 0 {
		c.Buffer = DefaultBuffer
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.WriteWait <= 0 {
		c.WriteWait = DefaultWriteWait
	}
	if c.Retry <= 0 {
		c.Retry = DefaultRetry
	}
	if c.BacklogReads <= 0 {
		c.BacklogReads = DefaultBacklogReads
	}
	if c.BacklogWait <= 0 {
		c.BacklogWait = DefaultBacklogWait
	}
	return c
}

// heartbeatComment is the comment a quiet stream sends, so that proxies
// and clients see it alive.
var heartbeatComment = []byte(": heartbeat\n\n")

// frame is one event as the stream sends it: its id line, its name and
// its data on one line, and the blank line that ends it (the HTML
// standard, "Server-sent events"). The hub encodes an event once and
// shares the frame among the streams it goes to; they only read it.
type frame struct {
	id int64
	b  []byte
}

// frame encodes e.
func (c *Config[E]) frame(e E) *frame {
	id, name, data := c.Encode(e)
	b := make([]byte, 0, len(data)+len(name)+40)
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, id, 10)
	if name != "" {
		b = append(b, "\nevent: "...)
		b = append(b, name...)
	}
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	return &frame{id: id, b: b}
}
