package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/predictions-md/predictions/agentkey"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/internal/idempotency"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/mcpserver"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/people"
	"github.com/predictions-md/predictions/redislimit"
	"github.com/predictions-md/predictions/web"
	"github.com/predictions-md/predictions/webhooks"
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
	logs := newBatchWriter(env.stderr, logFlushDelay)
	defer logs.Flush()
	var h slog.Handler = slog.NewTextHandler(logs, nil)
	if cfg.log.format == "json" {
		h = slog.NewJSONHandler(logs, nil)
	}
	log := slog.New(urgentFlush{h, logs, slog.LevelWarn})
	applyGC(cfg.gc.percent, cfg.gc.memoryLimit)
	if err := serve(ctx, cfg, log); err != nil {
		log.Error("server stopped", "error", err.Error())
		return 1
	}
	return 0
}

// serve runs the server until ctx is cancelled, then shuts it down
// gracefully: in-flight requests get up to shutdownTimeout to finish. It
// opens what the server needs, starts its workers in one group, waits
// for the signal or a worker's failure, stops the workers in reverse
// order of their start and closes what it opened.
func serve(ctx context.Context, cfg *serveConfig, log *slog.Logger) error {
	s := &server{cfg: cfg, log: log}
	defer s.close()
	if err := s.bind(); err != nil {
		return err
	}
	if err := s.open(ctx); err != nil {
		return err
	}
	w := newWorkers(ctx)
	if err := s.start(ctx, w); err != nil {
		_ = w.stop()
		return err
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down", "grace", shutdownTimeout.String())
	case <-w.failed():
	}
	if err := w.stop(); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}

// server is what serve opens, in the order it opens it: close releases
// it in reverse.
type server struct {
	cfg *serveConfig
	log *slog.Logger

	// ln is the listener of --addr, bound first; the HTTP server takes it
	// over when the rest is open, and close closes it if it never did.
	ln net.Listener

	limiter *redislimit.Limiter // the shared rate-limit budgets; nil without --redis-url
	mailOpt *mailbox.Options    // nil without e-mail
	smtp    *notify.SMTP        // nil without --smtp-url
	store   *board.Store
	box     *outbox.Outbox
	mail    *mailbox.Box       // the agents' addresses, opt-in and inbound mail
	keys    *idempotency.Store // the writes' Idempotency-Keys
	// endpoints are the agents' webhook endpoints; agentKeys their keys.
	endpoints *webhooks.Store
	agentKeys *agentkey.Store
	people    *people.Store // people's passkeys, sessions and follows
	board     *boardapi.API
	api       *httpapi.Server
}

// open opens the rate limiter's Redis, the board and its outbox, and
// builds the handlers, before anything listens.
func (s *server) open(ctx context.Context) error {
	if err := s.openLimiter(); err != nil {
		return err
	}
	if err := s.openBoard(ctx); err != nil {
		return err
	}
	s.board = s.boardAPI()
	if cl, ok := s.ln.(*connLimiter); ok {
		cl.reapWith(s.board.ReapStreams)
	}
	return s.buildAPI()
}

// bind listens on --addr (behind the per-address connection limit unless
// behind a proxy) and says so with the database, before anything that
// may take a while (migrations, connecting to PostgreSQL): a mistyped or
// busy address fails at once, and whoever started the server sees where
// it will answer. Connections wait in the listen queue until [server.listen]
// serves them; "ready" says when it does.
func (s *server) bind() error {
	cfg := s.cfg
	ln, err := net.Listen("tcp", cfg.listen.addr)
	if err != nil {
		return err
	}
	if !cfg.listen.trustProxy { // behind a proxy every connection comes from the proxy
		terms := cfg.listen.baseURL + "/terms"
		if cfg.listen.baseURL == "" {
			terms = "/terms"
		}
		ln = limitConns(ln, maxConnsPerIP, netip.Addr.IsLoopback, terms)
	}
	s.ln = ln
	s.log.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(), "db", redactDSN(cfg.board.db))
	return nil
}

// close closes the listener if the HTTP server never took it, and the
// board after the last request has finished, then Redis.
func (s *server) close() {
	if s.ln != nil {
		s.ln.Close()
	}
	if s.store != nil {
		if err := s.store.Close(); err != nil {
			s.log.Error("closing the board database", "error", err.Error())
		}
	}
	if s.limiter != nil {
		s.limiter.Close()
	}
}

// openLimiter connects to the Redis that keeps the rate-limit budgets
// of every replica (--redis-url).
func (s *server) openLimiter() error {
	lc := s.cfg.limits
	if lc.redisURL == "" {
		return nil
	}
	l, err := redislimit.Open(lc.redisURL, redislimit.Options{Prefix: lc.redisPrefix})
	if err != nil {
		return err
	}
	s.limiter = l
	return nil
}

// openBoard opens (and migrates) the board's database and its outbox,
// with the e-mail options of the mail flags.
func (s *server) openBoard(ctx context.Context) error {
	bc := s.cfg.board
	var err error
	s.mailOpt, s.smtp, err = mailSetup(s.cfg.mail.smtpURL, s.cfg.mail.mailFrom, s.cfg.listen.baseURL)
	if err != nil {
		return err
	}
	s.store, err = board.Open(ctx, bc.db, board.Options{Flag: forecastfile.Flags, Pool: bc.pool, CreateDirs: bc.createDirs})
	if err != nil {
		return fmt.Errorf("opening the board database %s: %w", redactDSN(bc.db), err)
	}
	var notices *notify.Mail
	if s.box, s.mail, notices, err = openOutbox(ctx, s.store, s.mailOpt); err != nil {
		return fmt.Errorf("opening the outbox in %s: %w", redactDSN(bc.db), err)
	}
	s.keys = idempotency.New(s.store.WriteDB(), idempotency.Options{})
	if err := s.keys.Migrate(ctx); err != nil {
		return fmt.Errorf("opening the idempotency keys in %s: %w", redactDSN(bc.db), err)
	}
	if s.endpoints, err = openWebhooks(ctx, s.store, s.box, s.mailOpt, s.cfg.webhooks.maxActive); err != nil {
		return fmt.Errorf("opening the webhook endpoints in %s: %w", redactDSN(bc.db), err)
	}
	if s.agentKeys, err = agentkey.Open(ctx, s.store, agentkey.Options{}); err != nil {
		return fmt.Errorf("opening the agents' keys in %s: %w", redactDSN(bc.db), err)
	}
	// People add an address and sign in by a link only when the board
	// sends e-mail (--smtp-url); the replies of the questions they follow
	// are queued whenever notifications are.
	var pplOpt people.Options
	if s.smtp != nil && notices != nil {
		pplOpt.Mail, pplOpt.Mailer = s.mail, notices
	}
	if s.people, err = people.Open(ctx, s.store, pplOpt); err != nil {
		return fmt.Errorf("opening the people's accounts in %s: %w", redactDSN(bc.db), err)
	}
	if notices != nil {
		notices.SetFollows(s.people)
	}
	return nil
}

// boardAPI is the board's routes over the store and the outbox.
func (s *server) boardAPI() *boardapi.API {
	cfg := s.cfg
	return boardapi.New(boardapi.Options{Store: s.store, Mail: s.mail, Idempotency: s.keys, Keys: s.agentKeys, Outbox: s.box, Auth: cfg.board.auth,
		ModeratorToken: cfg.board.moderatorToken, Logger: s.log, Heartbeat: cfg.events.heartbeat, Webhooks: s.endpoints, WebhookURLs: cfg.webhooks.client})
}

// buildAPI builds the handler of the main listener: the tools, the
// board's routes, the pages for people and MCP.
func (s *server) buildAPI() error {
	cfg := s.cfg.listen
	opt := httpapi.Options{
		BaseURL:    cfg.baseURL,
		TrustProxy: cfg.trustProxy,
		Logger:     s.log,
		Contact:    cfg.contact,
		RateLimit:  s.cfg.limits.rateLimit,
		Metrics:    metricsMode(s.cfg.observe.metricsAddr),
		Board:      s.board,
	}
	if s.limiter != nil {
		opt.RateLimit.Shared = s.limiter
	}
	// Pages for people at /, /agents, /tools and /settings, reading the same board.
	pages := web.Options{Board: s.store, BoardKeys: s.board.KeyAuth(), BaseURL: cfg.baseURL, TrustProxy: cfg.trustProxy,
		Contact: cmp.Or(cfg.contact, httpapi.DefaultContact), MCP: true, Logger: s.log, People: s.people, Writer: s.store}
	if s.people.Mail() {
		pages.PeopleMail = s.people
	}
	opt.Pages = web.New(pages)

	// MCP at /mcp: the same tools through the go-sdk's streamable handler,
	// and the board's routes as tools that call the API. The API mounts
	// the MCP handler and the MCP handler calls the API, so the handler is
	// set once both exist (before the server starts).
	var mcp http.Handler
	opt.MCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mcp.ServeHTTP(w, r) })
	s.api = httpapi.New(opt)
	var err error
	mcp, err = mcpserver.Handler(mcpserver.Options{BaseURL: cfg.baseURL, TrustProxy: cfg.trustProxy, Logger: s.log,
		AllowedOrigins: cfg.allowedOrigins, Board: true, BoardKeys: s.board.KeyAuth(), Routes: s.board.MCPRoutes()})
	return err
}

// metricsMode is where --metrics-addr puts /metrics.
func metricsMode(addr string) httpapi.Metrics {
	switch addr {
	case "":
		return httpapi.MetricsHere
	case "off":
		return httpapi.MetricsOff
	}
	return httpapi.MetricsElsewhere
}

// start starts the workers. They stop in reverse order, so the loops
// over the board start first: they stop after the listeners, so that
// what requests accepted during the grace period queued is still sent,
// and before the store closes.
func (s *server) start(ctx context.Context, w *workers) error {
	cfg := s.cfg
	// Each open event stream raises the memory limit by its share.
	w.loop(func(ctx context.Context) { followStreams(ctx, cfg.gc.memoryLimit, s.board.OpenStreams) })
	// The event log: closes announced and old events trimmed.
	w.loop(func(ctx context.Context) { runEventLog(ctx, s.store, cfg.events.retention, s.log) })
	w.loop(func(ctx context.Context) { expireSessions(ctx, s.people, s.log) })
	// Webhooks: queued from the event log and sent.
	w.loop(func(ctx context.Context) { runWebhooks(ctx, s.store, s.endpoints, s.box, cfg.webhooks, s.log) })
	// E-mail: the sender drains the outbox, never in a request.
	if s.smtp != nil {
		w.loop(s.mailSender().Run)
		s.log.Info("e-mail notifications on", "smtp", s.smtp.String(), "from", s.mailOpt.From.String())
	}
	if cfg.observe.pprofAddr != "" {
		if err := servePprof(ctx, w, cfg.observe.pprofAddr, s.log); err != nil {
			return err
		}
	}
	if err := s.listen(ctx, w); err != nil {
		return err
	}
	if metricsMode(cfg.observe.metricsAddr) == httpapi.MetricsElsewhere {
		return serveMetrics(w, cfg.observe.metricsAddr, s.api, s.log)
	}
	return nil
}

// mailSender is the e-mail sender, draining the outbox through the SMTP
// server of --smtp-url.
func (s *server) mailSender() *notify.Sender {
	return &notify.Sender{Outbox: s.box, Registrations: s.mail, SMTP: *s.smtp, From: s.mailOpt.From.Address, Log: s.log,
		Interval: s.cfg.mail.interval, Lease: s.cfg.mail.lease}
}

// listen serves the API on the listener of [server.bind]; when the
// workers stop, in-flight requests get shutdownTimeout to finish and the
// event streams end (their clients resume elsewhere).
func (s *server) listen(ctx context.Context, w *workers) error {
	cfg := s.cfg
	srv := &http.Server{
		// Pages, JSON and static files are compressed for clients that
		// accept gzip (small answers and compressed types are left alone).
		Handler:           compress(s.api),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	srv.RegisterOnShutdown(s.board.StopStreams)
	ln := s.ln
	s.ln = nil // srv.Serve closes it from now on
	s.log.Info("ready", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(), "base_url", cfg.listen.baseURL, "db", redactDSN(cfg.board.db),
		"auth", cfg.board.auth.String(), "rate_limit", rateText(cfg.limits))
	w.add(serveOn(srv, ln), func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return fmt.Errorf("shutdown: %w", err)
		}
		return nil
	})
	return nil
}

// compress gzips answers for clients that accept it, except event
// streams: a compressor holds back small writes until it has enough to
// compress, and an event must reach the client when it is written.
func compress(h http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.ContentTypeFilter(func(ct string) bool {
		return !strings.HasPrefix(strings.TrimSpace(strings.ToLower(ct)), "text/event-stream") && gzhttp.DefaultContentTypeFilter(ct)
	}))
	if err != nil { // fixed options: cannot happen
		panic(err)
	}
	return wrap(h)
}

// redactDSN hides the password of a postgres:// URL for logs and errors.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		return u.Redacted()
	}
	return dsn
}

// serveMetrics serves the API's metrics at /metrics on a listener of its
// own, closed when the workers stop: nothing there needs a graceful end.
func serveMetrics(w *workers, addr string, api *httpapi.Server, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle(httpapi.MetricsPath, api.MetricsHandler())
	msrv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, WriteTimeout: writeTimeout,
		IdleTimeout: idleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr: %w", err)
	}
	log.Info("metrics listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String()+httpapi.MetricsPath)
	run := serveOn(msrv, ln)
	w.add(func() error {
		if err := run(); err != nil {
			return fmt.Errorf("metrics listener: %w", err)
		}
		return nil
	}, func() error {
		_ = msrv.Close()
		return nil
	})
	return nil
}

// rateText describes the rate limits for the start-up log line.
func rateText(cfg limitConfig) string {
	rl := cfg.rateLimit
	if rl.Off {
		return "off"
	}
	where := "per replica"
	if cfg.redisURL != "" {
		where = "shared through " + redactDSN(cfg.redisURL) + " (keys " + cfg.redisPrefix + "...)"
	}
	return "agent " + rl.Agent.String() + ", address " + rl.Address.String() + ", " + where
}
