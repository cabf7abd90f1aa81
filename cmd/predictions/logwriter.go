package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// serve's log: one line per request, which under load is tens of
// thousands of writes to stderr a second, each a system call that costs
// more than formatting the line (docs/BENCHMARKS.md). So lines are
// written in batches, as nginx's access_log with buffer= and flush= and
// zap's BufferedWriteSyncer do: at most logFlushDelay after the first
// line of a batch, or when a batch reaches logBatchSize. Warnings and
// errors are written at once, with the lines before them, so that a fault
// is never held back; serve flushes what is left when it stops. A process
// killed with SIGKILL loses at most logFlushDelay of request lines.
const (
	logFlushDelay = 100 * time.Millisecond
	logBatchSize  = 32 << 10
)

// batchWriter collects what is written to it and writes it to w in
// batches (see logFlushDelay). It is safe for concurrent use; a write
// error is reported by the next Write or Flush.
type batchWriter struct {
	w     io.Writer
	delay time.Duration

	mu    sync.Mutex
	buf   []byte
	timer *time.Timer // flushes the batch; armed while buf holds a batch
	err   error
}

func newBatchWriter(w io.Writer, delay time.Duration) *batchWriter {
	return &batchWriter{w: w, delay: delay, buf: make([]byte, 0, logBatchSize)}
}

// Write adds p to the batch. It never splits p between two writes to w.
func (b *batchWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.err; err != nil {
		b.err = nil
		return 0, err
	}
	if len(b.buf)+len(p) > logBatchSize {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	if len(p) >= logBatchSize {
		return b.w.Write(p)
	}
	if len(b.buf) == 0 {
		if b.timer == nil {
			b.timer = time.AfterFunc(b.delay, b.timed)
		} else {
			b.timer.Reset(b.delay)
		}
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Flush writes the batch now.
func (b *batchWriter) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.err; err != nil {
		b.err = nil
		return err
	}
	return b.flushLocked()
}

// timed is the timer's flush: its error waits for the next Write or Flush.
func (b *batchWriter) timed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.flushLocked(); err != nil && b.err == nil {
		b.err = err
	}
}

func (b *batchWriter) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	if b.timer != nil {
		b.timer.Stop()
	}
	_, err := b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// urgentFlush is a slog.Handler that flushes its batchWriter after each
// record at or above level, so that warnings and errors are not held back.
type urgentFlush struct {
	slog.Handler
	w     *batchWriter
	level slog.Level
}

func (h urgentFlush) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= h.level {
		if ferr := h.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h urgentFlush) WithAttrs(attrs []slog.Attr) slog.Handler {
	return urgentFlush{h.Handler.WithAttrs(attrs), h.w, h.level}
}

func (h urgentFlush) WithGroup(name string) slog.Handler {
	return urgentFlush{h.Handler.WithGroup(name), h.w, h.level}
}
