package main

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writes records each Write it is given, whole.
type writes struct {
	mu  sync.Mutex
	got []string
	err error
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.got = append(w.got, string(p))
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.got...)
}

func TestBatchWriter(t *testing.T) {
	t.Run("batch, then flush", func(t *testing.T) {
		var out writes
		b := newBatchWriter(&out, time.Hour)
		for _, l := range []string{"a\n", "b\n", "c\n"} {
			if n, err := b.Write([]byte(l)); n != len(l) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", l, n, err)
			}
		}
		if got := out.all(); len(got) != 0 {
			t.Fatalf("written before the delay or a flush: %q", got)
		}
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := b.Flush(); err != nil { // nothing left: no write
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a\nb\nc\n"}, out.all()); diff != "" {
			t.Errorf("writes (-want +got):\n%s", diff)
		}
	})
	t.Run("written within the delay", func(t *testing.T) {
		var out writes
		b := newBatchWriter(&out, 20*time.Millisecond)
		for round := range 2 { // the timer is armed again for the second batch
			line := strings.Repeat("x", round+1) + "\n"
			if _, err := b.Write([]byte(line)); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for len(out.all()) <= round && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if got := out.all(); len(got) != round+1 || got[round] != line {
				t.Fatalf("round %d: writes %q, want %q last", round, got, line)
			}
		}
	})
	t.Run("a full batch is written, lines whole", func(t *testing.T) {
		var out writes
		b := newBatchWriter(&out, time.Hour)
		line := strings.Repeat("y", 1000) + "\n"
		n := logBatchSize/len(line) + 1 // one more than a batch holds
		for range n {
			if _, err := b.Write([]byte(line)); err != nil {
				t.Fatal(err)
			}
		}
		got := out.all()
		if len(got) != 1 || len(got[0]) != (n-1)*len(line) {
			t.Fatalf("before the flush: %d writes of %v bytes, want one of %d", len(got), lens(got), (n-1)*len(line))
		}
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := out.all(); len(got) != 2 || got[1] != line {
			t.Errorf("after the flush: %d writes of %v bytes, want the last line alone", len(got), lens(got))
		}
	})
	t.Run("a line longer than a batch goes alone, after the batch", func(t *testing.T) {
		var out writes
		b := newBatchWriter(&out, time.Hour)
		big := strings.Repeat("z", logBatchSize) + "\n"
		for _, l := range []string{"a\n", big, "b\n"} {
			if _, err := b.Write([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a\n", big, "b\n"}, out.all()); diff != "" {
			t.Errorf("writes (-want +got):\n%s", diff)
		}
	})
	t.Run("a write error is reported", func(t *testing.T) {
		boom := errors.New("disk full")
		out := writes{err: boom}
		b := newBatchWriter(&out, time.Hour)
		if _, err := b.Write([]byte("a\n")); err != nil {
			t.Fatal(err)
		}
		if err := b.Flush(); !errors.Is(err, boom) {
			t.Errorf("Flush = %v, want %v", err, boom)
		}
	})
}

func lens(s []string) []int {
	var n []int
	for _, x := range s {
		n = append(n, len(x))
	}
	return n
}

// TestUrgentFlush: information waits for its batch; a warning is written
// at once, with the lines before it, and so is an error of a logger
// derived with attributes or a group.
func TestUrgentFlush(t *testing.T) {
	var out writes
	b := newBatchWriter(&out, time.Hour)
	log := slog.New(urgentFlush{slog.NewTextHandler(b, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}), b, slog.LevelWarn})
	log.Info("request", "path", "/a")
	if got := out.all(); len(got) != 0 {
		t.Fatalf("information written at once: %q", got)
	}
	log.Warn("slow")
	log.With("replica", 2).WithGroup("g").Error("down", "n", 1)
	var all bytes.Buffer
	for _, w := range out.all() {
		all.WriteString(w)
	}
	want := "level=INFO msg=request path=/a\nlevel=WARN msg=slow\nlevel=ERROR msg=down replica=2 g.n=1\n"
	if diff := cmp.Diff(want, all.String()); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	if n := len(out.all()); n != 2 {
		t.Errorf("%d writes, want 2 (the batch with the warning, then the error)", n)
	}
}
