package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/mcpserver"
)

// Server timeouts: long enough for a 64 KB body on a slow link, short
// enough that idle or stalled connections do not pile up.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	shutdownTimeout   = 15 * time.Second
	// maxHeaderBytes leaves room for a GET query of up to
	// httpapi.MaxQueryBytes, so that a longer one gets the API's 414 Problem.
	maxHeaderBytes = 2 * httpapi.MaxQueryBytes
)

// serveConfig is the configuration of `predictions serve`.
type serveConfig struct {
	addr           string
	db             string
	baseURL        string
	moderatorToken string
	trustProxy     bool
	logFormat      string
	pprofAddr      string
}

// parseServe reads flags, each defaulting to its PREDICTIONS_* environment
// variable, then to the built-in default; a flag given wins. It returns
// flag.ErrHelp for --help (usage already written to out).
func parseServe(args []string, getenv func(string) string, out io.Writer) (*serveConfig, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	cfg := &serveConfig{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.addr, "addr", env("PREDICTIONS_ADDR", "127.0.0.1:8080"), "address to listen on (`host:port`) [PREDICTIONS_ADDR]")
	fs.StringVar(&cfg.db, "db", env("PREDICTIONS_DB", "predictions.db"), "board database: a SQLite `file` (created if missing) or a postgres:// URL [PREDICTIONS_DB]")
	fs.StringVar(&cfg.baseURL, "base-url", env("PREDICTIONS_BASE_URL", ""), "public address of the service, such as https://predictions.example.org;\nempty means the scheme and host of each request [PREDICTIONS_BASE_URL]")
	fs.StringVar(&cfg.moderatorToken, "moderator-token", env("PREDICTIONS_MODERATOR_TOKEN", ""), "`token` moderators send as Authorization: Bearer <token>;\nempty means moderator routes answer 403 [PREDICTIONS_MODERATOR_TOKEN]")
	trust := env("PREDICTIONS_TRUST_PROXY", "false")
	fs.BoolVar(&cfg.trustProxy, "trust-proxy", trust == "1" || strings.EqualFold(trust, "true"), "honour X-Forwarded-Proto and X-Forwarded-Host (only behind a proxy that sets them) [PREDICTIONS_TRUST_PROXY]")
	fs.StringVar(&cfg.logFormat, "log-format", env("PREDICTIONS_LOG_FORMAT", "text"), "log format: text or json [PREDICTIONS_LOG_FORMAT]")
	fs.StringVar(&cfg.pprofAddr, "pprof", "", "serve Go's profiler (net/http/pprof) on this separate `host:port`, such as 127.0.0.1:6060;\nempty means off. Never expose it publicly")
	fs.Usage = func() {
		fmt.Fprintln(out, "Usage: predictions serve [flags]")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Runs the whole service: the calculation tools under /api/v1, the agent board under /api,")
		fmt.Fprintln(out, "the settings catalog, the skill file, openapi.json, llms.txt, the manifest, /terms and")
		fmt.Fprintln(out, "/healthz. It needs no setup: the board is a SQLite file, created on first start.")
		fmt.Fprintln(out, "SIGINT or SIGTERM stops it after in-flight requests finish.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Flags (each also read from the environment variable in brackets; a flag wins):")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q; serve takes flags only", fs.Arg(0))
	}
	if cfg.baseURL != "" {
		u, err := url.Parse(cfg.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("--base-url %q: want an absolute http or https address such as https://predictions.example.org", cfg.baseURL)
		}
		cfg.baseURL = strings.TrimRight(cfg.baseURL, "/")
	}
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		return nil, fmt.Errorf("--log-format %q: use text or json", cfg.logFormat)
	}
	return cfg, nil
}

// runServe is the serve subcommand.
func runServe(ctx context.Context, env *cmdEnv, args []string) int {
	cfg, err := parseServe(args, env.getenv, env.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions serve: %v\n", err)
		return 2
	}
	var h slog.Handler = slog.NewTextHandler(env.stderr, nil)
	if cfg.logFormat == "json" {
		h = slog.NewJSONHandler(env.stderr, nil)
	}
	log := slog.New(h)
	if err := serve(ctx, cfg, log); err != nil {
		log.Error("server stopped", "error", err.Error())
		return 1
	}
	return 0
}

// serve runs the server until ctx is cancelled, then shuts it down
// gracefully: in-flight requests get up to shutdownTimeout to finish.
func serve(ctx context.Context, cfg *serveConfig, log *slog.Logger) error {
	opt := httpapi.Options{
		BaseURL:        cfg.baseURL,
		TrustProxy:     cfg.trustProxy,
		Logger:         log,
		ModeratorToken: cfg.moderatorToken,
	}

	// Board: opened (and migrated) before listening, closed after the
	// last request has finished.
	store, err := board.Open(ctx, cfg.db, board.Options{Flag: forecastfile.Flags})
	if err != nil {
		return fmt.Errorf("opening the board database %s: %w", redactDSN(cfg.db), err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing the board database", "error", err.Error())
		}
	}()
	opt.Board = store

	// MCP at /mcp: the same tools through the go-sdk's streamable handler.
	mcp, err := mcpserver.Handler(mcpserver.Options{BaseURL: cfg.baseURL, Logger: log})
	if err != nil {
		return err
	}
	opt.MCP = mcp

	srv := &http.Server{
		Handler:           httpapi.New(opt),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if cfg.pprofAddr != "" {
		stop, err := servePprof(ctx, cfg.pprofAddr, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(), "base_url", cfg.baseURL, "db", redactDSN(cfg.db))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// redactDSN hides the password of a postgres:// URL for logs and errors.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		return u.Redacted()
	}
	return dsn
}
