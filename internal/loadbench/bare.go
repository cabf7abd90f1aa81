package loadbench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
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
// is done. It is the baseline process of the tool scenarios
// (`predictions-bench bare`, [BareMain]): a process of its own, so that it pays
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

// BareMain is the bare handler's command line (`predictions-bench bare`):
// it parses -addr and -body-size from args and serves [ServeBare] until
// ctx is done. It returns the process exit status.
func BareMain(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("bare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on (`host:port`)")
	size := fs.Int("body-size", 100, "size of the JSON body every request gets, in `bytes`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := ServeBare(ctx, *addr, *size); err != nil {
		fmt.Fprintf(stderr, "bare: %v\n", err)
		return 1
	}
	return 0
}

// Build compiles the predictions server (github.com/predictions-md/predictions/cmd/predictions)
// with the go command into dir and returns the binary's path. It runs in
// the current directory, which must be inside the module (or a module
// requiring it).
func Build(ctx context.Context, dir string) (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building the predictions binary: %w (or give one with -predictions)", err)
	}
	exe := filepath.Join(dir, "predictions")
	out, err := exec.CommandContext(ctx, gobin, "build", "-o", exe, "github.com/predictions-md/predictions/cmd/predictions").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return exe, nil
}
