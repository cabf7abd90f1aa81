package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves Go's profiler on addr, a listener of its own so that
// the public handler never exposes it, until the workers stop. The load
// benchmark (`predictions-bench -profile DIR`) takes its CPU profiles here.
func servePprof(ctx context.Context, w *workers, addr string, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	log.Info("profiler listening", "addr", ln.Addr().String())
	w.add(func() error {
		_ = srv.Serve(ln)
		return nil
	}, func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	})
	return nil
}
