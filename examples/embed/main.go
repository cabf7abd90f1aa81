// Command embed serves the calculation API inside your own net/http server,
// under the path prefix /forecast/, next to your own pages.
//
//	go run ./examples/embed                 # then open http://127.0.0.1:8081/
//	go run ./examples/embed -addr :9000 -public https://tools.example.org
//
// Try, while it runs:
//
//	curl -s 'http://127.0.0.1:8081/forecast/api/v1/convert_odds?value=%2B150'
//	curl -s http://127.0.0.1:8081/forecast/llms.txt
//
// Two things make the prefix work: [http.StripPrefix] hands the API paths
// without /forecast, and [httpapi.Options.BaseURL] carries the public
// address with the prefix, so the links the API publishes (openapi.json,
// llms.txt, the manifest, the docs link of every error) point under
// /forecast/ too. Without BaseURL the API would take its address from each
// request and could not know about the prefix.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/predictions-md/predictions/httpapi"
)

// prefix is where the API lives in this server.
const prefix = "/forecast"

func main() {
	// Ctrl-C cancels the context, and run shuts the server down.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run serves until ctx is cancelled. It prints the address it listens on
// first, so that a test can pass -addr 127.0.0.1:0 and find the port.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on")
	public := fs.String("public", "", "public address of this server, such as https://tools.example.org (default: http://<addr>)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	base := strings.TrimRight(*public, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}

	srv := &http.Server{Handler: newMux(base), ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "listening on %s; the calculation API is at %s%s/\n", ln.Addr(), base, prefix)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newMux is your server: your own routes, and the calculation API mounted
// under prefix. base is the public address of the server, without prefix.
func newMux(base string) *http.ServeMux {
	api := httpapi.New(httpapi.Options{
		BaseURL: base + prefix, // the address the API publishes in its links
		// Board, MCP, Logger and the rest stay zero: calculation tools only,
		// logging through slog.Default().
	})

	mux := http.NewServeMux()
	// "/forecast/" matches every path under the prefix (and ServeMux
	// redirects "/forecast" to it); StripPrefix turns /forecast/llms.txt
	// into /llms.txt before the API sees it.
	mux.Handle(prefix+"/", http.StripPrefix(prefix, api))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<p>My own home page. The forecasting tools are <a href="%s/">here</a>.</p>`+"\n", prefix)
	})
	return mux
}
