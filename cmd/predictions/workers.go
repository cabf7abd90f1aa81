package main

import (
	"context"
	"errors"
	"net"
	"net/http"

	"golang.org/x/sync/errgroup"
)

// workers runs serve's long-lived parts (the loops over the board, the
// listeners) in one errgroup and stops them one at a time, the last
// started first, as WTF Dial's cmd/wtfd closes what Main.Run opened.
// A worker that fails ends the wait of serve (failed), which then stops
// every worker in the same order.
type workers struct {
	ctx    context.Context // the values of serve's context, never its end
	group  *errgroup.Group
	failed func() <-chan struct{}
	stops  []func() error
}

// newWorkers returns an empty group whose loops see ctx's values; only
// stop ends them.
func newWorkers(ctx context.Context) *workers {
	g, gctx := errgroup.WithContext(context.WithoutCancel(ctx))
	return &workers{ctx: context.WithoutCancel(ctx), group: g, failed: gctx.Done}
}

// add runs run in the group; stop, called when the workers stop, makes
// run return, and is followed by waiting for it. An error of run fails
// the group; one of stop is returned by workers.stop.
func (w *workers) add(run, stop func() error) {
	done := make(chan struct{})
	w.group.Go(func() error {
		defer close(done)
		return run()
	})
	w.stops = append(w.stops, func() error {
		err := stop()
		<-done
		return err
	})
}

// loop runs fn with a context that ends when the workers stop.
func (w *workers) loop(fn func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(w.ctx)
	w.add(func() error {
		fn(ctx)
		return nil
	}, func() error {
		cancel()
		return nil
	})
}

// stop stops the workers in reverse order of their start and returns the
// first error: a worker's failure, else a stop's.
func (w *workers) stop() error {
	var first error
	for i := len(w.stops) - 1; i >= 0; i-- {
		if err := w.stops[i](); err != nil && first == nil {
			first = err
		}
	}
	w.stops = nil
	if err := w.group.Wait(); err != nil {
		return err
	}
	return first
}

// serveOn is a worker's run that serves srv on ln: the server's closing
// is not an error.
func serveOn(srv *http.Server, ln net.Listener) func() error {
	return func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
