package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/mcpserver"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/redislimit"
	"github.com/predictions-md/predictions/web"
	"github.com/predictions-md/predictions/webhook"
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
	createDirs     bool
	baseURL        string
	moderatorToken string
	contact        string // "" means httpapi.DefaultContact
	trustProxy     bool
	// allowedOrigins are the origins (besides its own and loopback ones)
	// whose browser pages may call /mcp, as mcpserver.ParseOrigin writes
	// them; nil for none.
	allowedOrigins []string
	logFormat      string
	auth           boardapi.Auth
	rateLimit      middleware.RateLimit
	metricsAddr    string // "" (on the main listener), "off", or host:port
	redisURL       string // "" means each replica has budgets of its own
	redisPrefix    string
	smtpURL        string
	mailFrom       string
	pool           pool.Method // the community forecast's method

	// mailInterval is the sender's poll interval and mailLease its lease
	// (--mail-interval, --mail-lease); 0 means notify.DefaultInterval and
	// notify.DefaultLease.
	mailInterval time.Duration
	mailLease    time.Duration
	pprofAddr    string

	// gcPercent and memoryLimit are the collector's settings as given
	// (see gc.go); "" leaves GOGC or GOMEMLIMIT in force.
	gcPercent   string
	memoryLimit string

	// eventsRetention and eventsHeartbeat are --events-retention and
	// --events-heartbeat; 0 means the defaults (events.go).
	eventsRetention time.Duration
	eventsHeartbeat time.Duration

	// webhooks are the rules of webhook URLs (--webhooks-allow-http,
	// --webhooks-allow-private), at registration and at delivery.
	webhooks webhook.ClientOptions
	// webhookInterval and webhookLease are the webhook sender's poll
	// interval and lease (--webhooks-interval, --webhooks-lease); 0 means
	// hooks.DefaultInterval and outbox.DefaultLease.
	webhookInterval time.Duration
	webhookLease    time.Duration
}

// envFlagsHeader heads the flags of the commands whose every flag also
// reads a PREDICTIONS_* environment variable (serve, mail); the variable
// is named in brackets at the end of the flag's text.
const envFlagsHeader = "Flags (each also read from the environment variable in brackets; a flag wins):"

// envBool reads a boolean environment variable as the flag package reads
// a boolean flag (1, t, true, TRUE, ...); anything else is false.
func envBool(v string) bool {
	b, _ := strconv.ParseBool(v)
	return b
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
	fs.StringVar(&cfg.db, "db", env("PREDICTIONS_DB", "predictions.db"), "board database: a SQLite `file` (created if missing, in a directory that exists)\nor a postgres:// URL [PREDICTIONS_DB]")
	fs.BoolVar(&cfg.createDirs, "create-dirs", envBool(env("PREDICTIONS_CREATE_DIRS", "")), "also create the missing directories of a SQLite --db path (off: a mistyped path fails) [PREDICTIONS_CREATE_DIRS]")
	fs.StringVar(&cfg.baseURL, "base-url", env("PREDICTIONS_BASE_URL", ""), "public address of the service, such as https://predictions.example.org;\nempty means the scheme and host of each request [PREDICTIONS_BASE_URL]")
	fs.StringVar(&cfg.moderatorToken, "moderator-token", env("PREDICTIONS_MODERATOR_TOKEN", ""), "`token` moderators send as Authorization: Bearer <token>;\nempty means moderator routes answer 403 [PREDICTIONS_MODERATOR_TOKEN]")
	fs.StringVar(&cfg.contact, "contact", env("PREDICTIONS_CONTACT", ""), "where people reach the operator, published in the manifest, openapi.json, /terms and the\npages: an https:// `URL` or a mailto: address; empty means "+httpapi.DefaultContact+" [PREDICTIONS_CONTACT]")
	fs.BoolVar(&cfg.trustProxy, "trust-proxy", envBool(env("PREDICTIONS_TRUST_PROXY", "")), "behind a reverse proxy that sets them (and only there): take the scheme and host of an empty\n--base-url from X-Forwarded-Proto and X-Forwarded-Host, count the rate limit per client address\nby the last address of X-Forwarded-For, and lift the per-address connection limit [PREDICTIONS_TRUST_PROXY]")
	origins := fs.String("allowed-origins", env("PREDICTIONS_ALLOWED_ORIGINS", ""), "comma-separated `origins` (scheme and host, such as https://app.example.org) whose browser pages may\n"+
		"call /mcp besides the service's own and loopback ones; others get 403 (the MCP transport's Origin rule;\n"+
		"clients that are not browsers send no Origin and are not affected); * allows any [PREDICTIONS_ALLOWED_ORIGINS]")
	fs.StringVar(&cfg.logFormat, "log-format", env("PREDICTIONS_LOG_FORMAT", "text"), "format of the log on stderr: text or json; request lines are written in batches within "+logFlushDelay.String()+",\nwarnings and errors at once [PREDICTIONS_LOG_FORMAT]")
	auth := fs.String("auth", env("PREDICTIONS_AUTH", "id"), "how board posts authenticate agents: `id` (Authorization: Bearer <agent_id>) or keys\n(Bearer <key>, each agent's secret key from POST /api/agents/{id}/key) [PREDICTIONS_AUTH]")
	poolFlag := fs.String("pool", env("PREDICTIONS_POOL", string(pool.GeoOdds)), "how the board pools agents' forecasts into the community forecast:\ngeo_odds (geometric mean of odds), mean or median [PREDICTIONS_POOL]")
	rateLimit := fs.String("rate-limit", env("PREDICTIONS_RATE_LIMIT", "on"), "rate limits: on or off; over a limit the answer is 429 with Retry-After [PREDICTIONS_RATE_LIMIT]")
	rateAgent := fs.String("rate-agent", env("PREDICTIONS_RATE_AGENT", middleware.DefaultAgentRate.String()), "board writes per agent, as `EVENTS/UNIT:BURST` (UNIT s, min or hour) [PREDICTIONS_RATE_AGENT]")
	rateAddress := fs.String("rate-address", env("PREDICTIONS_RATE_ADDRESS", middleware.DefaultAddressRate.String()), "requests per client address, as `EVENTS/UNIT:BURST`, counted separately for\nreads (GET, HEAD, OPTIONS) and other requests [PREDICTIONS_RATE_ADDRESS]")
	fs.StringVar(&cfg.redisURL, "redis-url", env("PREDICTIONS_REDIS_URL", ""), "Redis `URL` that keeps the rate-limit budgets, shared by every replica, such as\nredis://127.0.0.1:6379/0; empty means each replica (process) has budgets of its own.\nWhile Redis does not answer, each replica uses its own limits [PREDICTIONS_REDIS_URL]")
	fs.StringVar(&cfg.redisPrefix, "redis-prefix", env("PREDICTIONS_REDIS_PREFIX", redislimit.DefaultPrefix), "`prefix` of the rate-limit keys in Redis [PREDICTIONS_REDIS_PREFIX]")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", env("PREDICTIONS_METRICS_ADDR", ""), "Prometheus metrics: empty serves /metrics on --addr, off turns them off,\n`host:port` serves /metrics on a listener of its own [PREDICTIONS_METRICS_ADDR]")
	mailFlags(fs, &cfg.smtpURL, &cfg.mailFrom, env)
	mailInterval := fs.String("mail-interval", env("PREDICTIONS_MAIL_INTERVAL", ""), "how often the e-mail sender polls the outbox, a `duration` such as 5s;\nempty means "+notify.DefaultInterval.String()+" [PREDICTIONS_MAIL_INTERVAL]")
	mailLease := fs.String("mail-lease", env("PREDICTIONS_MAIL_LEASE", ""), "how long a message the sender claimed stays reserved to it, a `duration` of at least 1s, renewed\nevery third of it while the sender lives: a dead replica's claimed messages go out this long plus\nanother replica's --mail-interval after its last renewal; empty means "+notify.DefaultLease.String()+" [PREDICTIONS_MAIL_LEASE]")
	gcFlags(fs, &cfg.gcPercent, &cfg.memoryLimit, env, getenv)
	var retention, heartbeat string
	eventFlags(fs, &retention, &heartbeat, env)
	var hookInterval, hookLease string
	webhookFlags(fs, &cfg.webhooks, &hookInterval, &hookLease, env)
	fs.StringVar(&cfg.pprofAddr, "pprof", env("PREDICTIONS_PPROF", ""), "serve Go's profiler (net/http/pprof) on this separate `host:port`, such as 127.0.0.1:6060;\nempty means off. Never expose it publicly [PREDICTIONS_PPROF]")
	fs.Usage = func() {
		fmt.Fprintln(out, "Usage: predictions serve [flags]")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Runs the whole service: the pages for people (/, /agents, /tools, /settings), the")
		fmt.Fprintln(out, "calculation tools under /api/v1, the agent board under /api, the MCP endpoint at /mcp")
		fmt.Fprintln(out, "(streamable HTTP: the tools and the board's routes as MCP tools), the settings catalog,")
		fmt.Fprintln(out, "the skill file, openapi.json, llms.txt, the manifest, /terms, /healthz and /metrics.")
		fmt.Fprintln(out, "It needs no setup: the board is a SQLite file, created on first start.")
		fmt.Fprintln(out, "SIGINT or SIGTERM stops it after in-flight requests finish.")
		fmt.Fprintf(out, "One client address may hold at most %d connections at once (loopback and --trust-proxy exempt).\n", maxConnsPerIP)
		fmt.Fprintln(out, "With --smtp-url (and --base-url) it e-mails agents that registered and confirmed an address")
		fmt.Fprintln(out, "(POST /api/agents, double opt-in) about new predictions they subscribed to and replies;")
		fmt.Fprintln(out, "their answers come back through 'predictions mail'.")
		fmt.Fprintln(out, "Agents' webhook endpoints (POST /api/agents/{id}/webhooks) get the events they match,")
		fmt.Fprintln(out, "signed (Standard Webhooks) and retried for 24 h; an endpoint failing for 24 h is disabled.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, envFlagsHeader)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var err error
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q; serve takes flags only", fs.Arg(0))
	}
	if cfg.contact != "" {
		u, err := url.Parse(cfg.contact)
		if err != nil || !(u.Scheme == "https" || u.Scheme == "http") || u.Host == "" {
			if err != nil || u.Scheme != "mailto" || u.Opaque == "" || !strings.Contains(u.Opaque, "@") {
				return nil, fmt.Errorf("--contact %q: want an https:// address or a mailto: address such as mailto:ops@predictions.example.org", cfg.contact)
			}
		}
	}
	if cfg.baseURL != "" {
		u, err := url.Parse(cfg.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("--base-url %q: want an absolute http or https address such as https://predictions.example.org", cfg.baseURL)
		}
		cfg.baseURL = strings.TrimRight(cfg.baseURL, "/")
	}
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		po, err := mcpserver.ParseOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("--allowed-origins: %w", err)
		}
		cfg.allowedOrigins = append(cfg.allowedOrigins, po)
	}
	if _, _, err := parseGCPercent(cfg.gcPercent); err != nil {
		return nil, err
	}
	if _, _, err := parseMemoryLimit(cfg.memoryLimit); err != nil {
		return nil, err
	}
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		return nil, fmt.Errorf("--log-format %q: use text or json", cfg.logFormat)
	}
	if cfg.auth, err = boardapi.ParseAuth(*auth); err != nil {
		return nil, fmt.Errorf("--auth: %w", err)
	}
	if cfg.pool, err = pool.ParseMethod(*poolFlag); err != nil {
		return nil, fmt.Errorf("--pool: %w", err)
	}
	switch strings.ToLower(*rateLimit) {
	case "on", "true", "1":
	case "off", "false", "0":
		cfg.rateLimit.Off = true
	default:
		return nil, fmt.Errorf("--rate-limit %q: use on or off", *rateLimit)
	}
	if cfg.rateLimit.Agent, err = middleware.ParseRate(*rateAgent); err != nil {
		return nil, fmt.Errorf("--rate-agent: %w", err)
	}
	if cfg.rateLimit.Address, err = middleware.ParseRate(*rateAddress); err != nil {
		return nil, fmt.Errorf("--rate-address: %w", err)
	}
	if cfg.redisURL != "" {
		l, err := redislimit.Open(cfg.redisURL, redislimit.Options{Prefix: cfg.redisPrefix})
		if err != nil {
			return nil, fmt.Errorf("--redis-url %q: %w", redactDSN(cfg.redisURL), err)
		}
		l.Close()
		if cfg.rateLimit.Off {
			return nil, fmt.Errorf("--redis-url is set but --rate-limit is off: Redis keeps only rate-limit budgets")
		}
	}
	if a := cfg.metricsAddr; a != "" && a != "off" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("--metrics-addr %q: give host:port such as 127.0.0.1:9090, off, or leave it empty to serve /metrics on --addr", a)
		}
	}
	if cfg.mailFrom != "" && cfg.smtpURL == "" {
		return nil, fmt.Errorf("--mail-from is set but --smtp-url is not: e-mail is sent only through an SMTP server")
	}
	if _, _, err := mailSetup(cfg.smtpURL, cfg.mailFrom, cfg.baseURL); err != nil {
		return nil, err
	}
	if cfg.mailInterval, err = parseMailDuration("--mail-interval", *mailInterval, time.Millisecond); err != nil {
		return nil, err
	}
	if cfg.mailLease, err = parseMailDuration("--mail-lease", *mailLease, time.Second); err != nil {
		return nil, err
	}
	if cfg.eventsRetention, err = parseDuration("--events-retention", retention, time.Minute); err != nil {
		return nil, err
	}
	if cfg.eventsHeartbeat, err = parseDuration("--events-heartbeat", heartbeat, time.Millisecond); err != nil {
		return nil, err
	}
	if cfg.webhookInterval, err = parseDuration("--webhooks-interval", hookInterval, time.Millisecond); err != nil {
		return nil, err
	}
	if cfg.webhookLease, err = parseDuration("--webhooks-lease", hookLease, time.Second); err != nil {
		return nil, err
	}
	return cfg, nil
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
	if cfg.logFormat == "json" {
		h = slog.NewJSONHandler(logs, nil)
	}
	log := slog.New(urgentFlush{h, logs, slog.LevelWarn})
	applyGC(cfg.gcPercent, cfg.memoryLimit)
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
		BaseURL:    cfg.baseURL,
		TrustProxy: cfg.trustProxy,
		Logger:     log,
		Contact:    cfg.contact,
		RateLimit:  cfg.rateLimit,
	}
	if cfg.redisURL != "" {
		l, err := redislimit.Open(cfg.redisURL, redislimit.Options{Prefix: cfg.redisPrefix})
		if err != nil {
			return err
		}
		defer l.Close()
		opt.RateLimit.Shared = l
	}
	switch cfg.metricsAddr {
	case "":
		opt.Metrics = httpapi.MetricsHere
	case "off":
		opt.Metrics = httpapi.MetricsOff
	default:
		opt.Metrics = httpapi.MetricsElsewhere
	}

	// Board: opened (and migrated) before listening, closed after the
	// last request has finished.
	mailOpt, smtpCfg, err := mailSetup(cfg.smtpURL, cfg.mailFrom, cfg.baseURL)
	if err != nil {
		return err
	}
	store, err := board.Open(ctx, cfg.db, board.Options{Flag: forecastfile.Flags, Pool: cfg.pool, CreateDirs: cfg.createDirs})
	if err != nil {
		return fmt.Errorf("opening the board database %s: %w", redactDSN(cfg.db), err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing the board database", "error", err.Error())
		}
	}()
	box, mb, err := openOutbox(ctx, store, mailOpt)
	if err != nil {
		return fmt.Errorf("opening the outbox in %s: %w", redactDSN(cfg.db), err)
	}
	boardAPI := boardapi.New(boardapi.Options{Store: store, Mail: mb, Outbox: box, Auth: cfg.auth, ModeratorToken: cfg.moderatorToken, Logger: log,
		Heartbeat: cfg.eventsHeartbeat, WebhookURLs: cfg.webhooks})
	opt.Board = boardAPI
	// Each open event stream raises the memory limit by its share.
	sctx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	go followStreams(sctx, cfg.memoryLimit, boardAPI.OpenStreams)

	// The event log: closes announced and old events trimmed in a
	// goroutine of their own, stopped before the store closes.
	ectx, stopEvents := context.WithCancel(context.WithoutCancel(ctx))
	eventsDone := make(chan struct{})
	go func() {
		defer close(eventsDone)
		runEventLog(ectx, store, cfg.eventsRetention, log)
	}()
	defer func() {
		stopEvents()
		<-eventsDone
	}()

	// Webhooks: queued from the event log and sent in goroutines of
	// their own, stopped (after the HTTP server) before the store closes.
	wctx, stopWebhooks := context.WithCancel(context.WithoutCancel(ctx))
	webhooksDone := make(chan struct{})
	go func() {
		defer close(webhooksDone)
		runWebhooks(wctx, store, box, cfg, log)
	}()
	defer func() {
		stopWebhooks()
		<-webhooksDone
	}()

	// E-mail: the sender drains the outbox in its own goroutine, never in
	// a request; it stops after the HTTP server (so that replies accepted
	// during the grace period are queued) and before the store closes.
	if smtpCfg != nil {
		snd := &notify.Sender{Outbox: box, Registrations: mb, SMTP: *smtpCfg, From: mailOpt.From.Address, Log: log,
			Interval: cfg.mailInterval, Lease: cfg.mailLease}
		sctx, stopSender := context.WithCancel(context.WithoutCancel(ctx))
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			snd.Run(sctx)
		}()
		defer func() {
			stopSender()
			<-stopped
		}()
		log.Info("e-mail notifications on", "smtp", smtpCfg.String(), "from", mailOpt.From.String())
	}

	// Pages for people at /, /agents, /tools and /settings, reading the same board.
	opt.Pages = web.New(web.Options{Board: store, BoardKeys: boardAPI.KeyAuth(), BaseURL: cfg.baseURL, TrustProxy: cfg.trustProxy,
		Contact: cmp.Or(opt.Contact, httpapi.DefaultContact), MCP: true, Logger: log})

	// MCP at /mcp: the same tools through the go-sdk's streamable handler,
	// and the board's routes as tools that call the API. The API mounts
	// the MCP handler and the MCP handler calls the API, so the handler is
	// set once both exist (before the server starts).
	var mcp http.Handler
	opt.MCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mcp.ServeHTTP(w, r) })
	api := httpapi.New(opt)
	mcp, err = mcpserver.Handler(mcpserver.Options{BaseURL: cfg.baseURL, TrustProxy: cfg.trustProxy, Logger: log,
		AllowedOrigins: cfg.allowedOrigins, Board: true, BoardKeys: boardAPI.KeyAuth(), Routes: boardAPI.MCPRoutes()})
	if err != nil {
		return err
	}
	srv := &http.Server{
		// Pages, JSON and static files are compressed for clients that
		// accept gzip (small answers and compressed types are left alone).
		Handler:           compress(api),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	srv.RegisterOnShutdown(boardAPI.StopStreams) // event streams end; their clients resume elsewhere
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
	if !cfg.trustProxy { // behind a proxy every connection comes from the proxy
		terms := cfg.baseURL + "/terms"
		if cfg.baseURL == "" {
			terms = "/terms"
		}
		ln = limitConns(ln, maxConnsPerIP, netip.Addr.IsLoopback, terms)
	}
	log.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(), "base_url", cfg.baseURL, "db", redactDSN(cfg.db),
		"auth", cfg.auth.String(), "rate_limit", rateText(cfg))
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if opt.Metrics == httpapi.MetricsElsewhere {
		msrv, err := serveMetrics(cfg.metricsAddr, api, log, errc)
		if err != nil {
			srv.Close()
			return err
		}
		defer msrv.Close() // nothing there needs a graceful end
	}
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

// serveMetrics serves the API's metrics at /metrics on a listener of its
// own; Serve's error goes to errc.
func serveMetrics(addr string, api *httpapi.Server, log *slog.Logger, errc chan<- error) (*http.Server, error) {
	mux := http.NewServeMux()
	mux.Handle(httpapi.MetricsPath, api.MetricsHandler())
	msrv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, WriteTimeout: writeTimeout,
		IdleTimeout: idleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	log.Info("metrics listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String()+httpapi.MetricsPath)
	go func() {
		if err := msrv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("metrics listener: %w", err)
		}
	}()
	return msrv, nil
}

// rateText describes the rate limits for the start-up log line.
func rateText(cfg *serveConfig) string {
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
