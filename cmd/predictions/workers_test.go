package main

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// The workers stop one at a time, the last started first, and each loop's
// context ends only when its turn comes.
func TestWorkersStopInReverse(t *testing.T) {
	w := newWorkers(context.Background())
	var mu sync.Mutex
	var stopped []int
	for i := range 3 {
		w.loop(func(ctx context.Context) {
			<-ctx.Done()
			mu.Lock()
			stopped = append(stopped, i)
			mu.Unlock()
		})
	}
	select {
	case <-w.failed():
		t.Fatal("failed before any worker failed")
	case <-time.After(10 * time.Millisecond):
	}
	if err := w.stop(); err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 1, 0}; !slices.Equal(stopped, want) {
		t.Errorf("stopped in order %v, want %v", stopped, want)
	}
}

// A worker that fails ends failed(); stop still stops every other worker
// and returns the failure, before any error of a stop.
func TestWorkersFailure(t *testing.T) {
	w := newWorkers(context.Background())
	loopEnded := false
	w.loop(func(ctx context.Context) {
		<-ctx.Done()
		loopEnded = true
	})
	boom := errors.New("boom")
	w.add(func() error { return boom }, func() error { return errors.New("stop error") })
	select {
	case <-w.failed():
	case <-time.After(5 * time.Second):
		t.Fatal("failed() did not end after a worker failed")
	}
	if err := w.stop(); !errors.Is(err, boom) {
		t.Errorf("stop = %v, want %v", err, boom)
	}
	if !loopEnded {
		t.Error("the loop did not stop")
	}
}

// Without a failure, stop returns the first error of a stop.
func TestWorkersStopError(t *testing.T) {
	w := newWorkers(context.Background())
	release := make(chan struct{})
	bad := errors.New("shutdown: deadline")
	w.add(func() error { <-release; return nil }, func() error { close(release); return bad })
	if err := w.stop(); !errors.Is(err, bad) {
		t.Errorf("stop = %v, want %v", err, bad)
	}
}
