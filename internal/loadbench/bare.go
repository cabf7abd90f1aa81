package loadbench

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BareBody returns a JSON object of exactly size bytes (at least 10):
// {"pad":"xxx…"}.
func BareBody(size int) []byte {
	const frame = len(`{"pad":""}`)
	return []byte(`{"pad":"` + strings.Repeat("x", max(size-frame, 0)) + `"}`)
}

// BareHandler answers every request with body as application/json, after
// reading the request body: the least any JSON endpoint does, so the
// physical limit of the HTTP stack on this machine.
func BareHandler(body []byte) http.Handler {
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", length)
		_, _ = w.Write(body)
	})
}

// ServeBare serves [BareHandler] with a body of size bytes on addr until ctx
// is done. It is the baseline process of the tool scenarios (the hidden
// `predictions bench-bare` command): a process of its own, so that it pays
// the same process and loopback costs as `predictions serve`.
func ServeBare(ctx context.Context, addr string, size int) error {
	srv := &http.Server{
		Handler:           BareHandler(BareBody(size)),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
