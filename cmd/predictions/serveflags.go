package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/predictions-md/predictions/boardapi"
	"github.com/predictions-md/predictions/httpapi"
	"github.com/predictions-md/predictions/httpapi/middleware"
	"github.com/predictions-md/predictions/mcpserver"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/pool"
	"github.com/predictions-md/predictions/redislimit"
	"github.com/predictions-md/predictions/webhooks"
)

// The flags of `predictions serve`, one function per concern: each
// declares its flags on the flag set, fills its own part of serveConfig
// and returns the check that reads and validates what was given. Every
// flag defaults to its PREDICTIONS_* environment variable, then to the
// built-in default; a flag given wins.

// serveConfig is the configuration of `predictions serve`, a part per
// concern.
type serveConfig struct {
	listen   listenConfig
	board    boardConfig
	limits   limitConfig
	observe  observeConfig
	log      logConfig
	gc       gcConfig
	mail     notifyConfig
	events   eventConfig
	webhooks webhookConfig
}

// listenConfig is where serve listens and how it names itself.
type listenConfig struct {
	addr       string
	baseURL    string
	contact    string // "" means httpapi.DefaultContact
	trustProxy bool
	// allowedOrigins are the origins (besides its own and loopback ones)
	// whose browser pages may call /mcp, as mcpserver.ParseOrigin writes
	// them; nil for none.
	allowedOrigins []string
}

// observeConfig is what serve shows of itself: its Prometheus metrics
// and Go's profiler.
type observeConfig struct {
	metricsAddr string // "" (on the main listener), "off", or host:port
	pprofAddr   string // "" for off
}

// boardConfig is the board's database and who may write to it.
type boardConfig struct {
	db             string
	createDirs     bool
	moderatorToken string
	auth           boardapi.Auth
	pool           pool.Method // the community forecast's method
}

// limitConfig is the rate limits and where their budgets are kept.
type limitConfig struct {
	rateLimit   middleware.RateLimit
	redisURL    string // "" means each replica has budgets of its own
	redisPrefix string
}

// logConfig is the log on stderr.
type logConfig struct {
	format string // text or json
}

// gcConfig is the collector's settings as given (see gc.go); ""
// leaves GOGC or GOMEMLIMIT in force.
type gcConfig struct {
	percent     string
	memoryLimit string
}

// notifyConfig is the e-mail sender's: the SMTP server and the board's
// address, as given, and the sender's poll interval and lease
// (--mail-interval, --mail-lease; 0 means notify.DefaultInterval and
// notify.DefaultLease).
type notifyConfig struct {
	smtpURL  string
	mailFrom string
	interval time.Duration
	lease    time.Duration
}

// eventConfig is --events-retention and --events-heartbeat; 0 means the
// defaults (events.go).
type eventConfig struct {
	retention time.Duration
	heartbeat time.Duration
}

// webhookConfig is the rules of webhook URLs (--webhooks-allow-http,
// --webhooks-allow-private), at registration and at delivery, and the
// webhook sender's poll interval and lease (--webhooks-interval,
// --webhooks-lease; 0 means webhooks.DefaultInterval and
// outbox.DefaultLease), and the board's most active endpoints
// (--webhooks-max-endpoints; 0 means webhooks.DefaultMaxActive).
type webhookConfig struct {
	client    webhooks.ClientOptions
	interval  time.Duration
	lease     time.Duration
	maxActive int
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
	fs.Usage = func() { serveUsage(out, fs) }
	// The checks run in this order once every flag is read; the mail's
	// reads the base URL as the listener's check left it.
	checks := []func() error{
		cfg.listen.flags(fs, env),
		cfg.gc.flags(fs, env, getenv),
		cfg.log.flags(fs, env),
		cfg.board.flags(fs, env),
		cfg.limits.flags(fs, env),
		cfg.observe.flags(fs, env),
		cfg.mail.flags(fs, env, &cfg.listen.baseURL),
		cfg.events.flags(fs, env),
		cfg.webhooks.flags(fs, env),
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q; serve takes flags only", fs.Arg(0))
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// serveUsage writes serve's --help.
func serveUsage(out io.Writer, fs *flag.FlagSet) {
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

// flags declares --addr, --base-url, --contact, --trust-proxy and
// --allowed-origins.
func (c *listenConfig) flags(fs *flag.FlagSet, env func(name, def string) string) (check func() error) {
	fs.StringVar(&c.addr, "addr", env("PREDICTIONS_ADDR", "127.0.0.1:8080"), "address to listen on (`host:port`) [PREDICTIONS_ADDR]")
	fs.StringVar(&c.baseURL, "base-url", env("PREDICTIONS_BASE_URL", ""), "public address of the service, such as https://predictions.example.org;\nempty means the scheme and host of each request [PREDICTIONS_BASE_URL]")
	fs.StringVar(&c.contact, "contact", env("PREDICTIONS_CONTACT", ""), "where people reach the operator, published in the manifest, openapi.json, /terms and the\npages: an https:// `URL` or a mailto: address; empty means "+httpapi.DefaultContact+" [PREDICTIONS_CONTACT]")
	fs.BoolVar(&c.trustProxy, "trust-proxy", envBool(env("PREDICTIONS_TRUST_PROXY", "")), "behind a reverse proxy that sets them (and only there): take the scheme and host of an empty\n--base-url from X-Forwarded-Proto and X-Forwarded-Host, count the rate limit per client address\nby the last address of X-Forwarded-For, and lift the per-address connection limit [PREDICTIONS_TRUST_PROXY]")
	origins := fs.String("allowed-origins", env("PREDICTIONS_ALLOWED_ORIGINS", ""), "comma-separated `origins` (scheme and host, such as https://app.example.org) whose browser pages may\n"+
		"call /mcp besides the service's own and loopback ones; others get 403 (the MCP transport's Origin rule;\n"+
		"clients that are not browsers send no Origin and are not affected); * allows any [PREDICTIONS_ALLOWED_ORIGINS]")
	return func() error {
		if c.contact != "" {
			u, err := url.Parse(c.contact)
			if err != nil || !(u.Scheme == "https" || u.Scheme == "http") || u.Host == "" {
				if err != nil || u.Scheme != "mailto" || u.Opaque == "" || !strings.Contains(u.Opaque, "@") {
					return fmt.Errorf("--contact %q: want an https:// address or a mailto: address such as mailto:ops@predictions.example.org", c.contact)
				}
			}
		}
		if c.baseURL != "" {
			u, err := url.Parse(c.baseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
				return fmt.Errorf("--base-url %q: want an absolute http or https address such as https://predictions.example.org", c.baseURL)
			}
			c.baseURL = strings.TrimRight(c.baseURL, "/")
		}
		for _, o := range strings.Split(*origins, ",") {
			if o = strings.TrimSpace(o); o == "" {
				continue
			}
			po, err := mcpserver.ParseOrigin(o)
			if err != nil {
				return fmt.Errorf("--allowed-origins: %w", err)
			}
			c.allowedOrigins = append(c.allowedOrigins, po)
		}
		return nil
	}
}

// flags declares --metrics-addr and --pprof.
func (c *observeConfig) flags(fs *flag.FlagSet, env func(name, def string) string) (check func() error) {
	fs.StringVar(&c.metricsAddr, "metrics-addr", env("PREDICTIONS_METRICS_ADDR", ""), "Prometheus metrics: empty serves /metrics on --addr, off turns them off,\n`host:port` serves /metrics on a listener of its own [PREDICTIONS_METRICS_ADDR]")
	fs.StringVar(&c.pprofAddr, "pprof", env("PREDICTIONS_PPROF", ""), "serve Go's profiler (net/http/pprof) on this separate `host:port`, such as 127.0.0.1:6060;\nempty means off. Never expose it publicly [PREDICTIONS_PPROF]")
	return func() error {
		if a := c.metricsAddr; a != "" && a != "off" {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return fmt.Errorf("--metrics-addr %q: give host:port such as 127.0.0.1:9090, off, or leave it empty to serve /metrics on --addr", a)
			}
		}
		return nil
	}
}

// flags declares --db, --create-dirs, --moderator-token, --auth and --pool.
func (c *boardConfig) flags(fs *flag.FlagSet, env func(name, def string) string) (check func() error) {
	fs.StringVar(&c.db, "db", env("PREDICTIONS_DB", "predictions.db"), "board database: a SQLite `file` (created if missing, in a directory that exists)\nor a postgres:// URL [PREDICTIONS_DB]")
	fs.BoolVar(&c.createDirs, "create-dirs", envBool(env("PREDICTIONS_CREATE_DIRS", "")), "also create the missing directories of a SQLite --db path (off: a mistyped path fails) [PREDICTIONS_CREATE_DIRS]")
	fs.StringVar(&c.moderatorToken, "moderator-token", env("PREDICTIONS_MODERATOR_TOKEN", ""), "`token` moderators send as Authorization: Bearer <token>;\nempty means moderator routes answer 403 [PREDICTIONS_MODERATOR_TOKEN]")
	auth := fs.String("auth", env("PREDICTIONS_AUTH", "id"), "how board posts authenticate agents: `id` (Authorization: Bearer <agent_id>) or keys\n(Bearer <key>, each agent's secret key from POST /api/agents/{id}/key) [PREDICTIONS_AUTH]")
	poolFlag := fs.String("pool", env("PREDICTIONS_POOL", string(pool.Skill)), "how the board pools agents' forecasts into the community forecast: skill (log-odds weighted\nby recency and by each agent's skill known at the time, extremized; the best on PredictionBook's data,\nsee docs/POOLS.md), recency (Metaculus's community prediction), geo_odds (geometric mean of odds),\nmean or median [PREDICTIONS_POOL]")
	return func() error {
		var err error
		if c.auth, err = boardapi.ParseAuth(*auth); err != nil {
			return fmt.Errorf("--auth: %w", err)
		}
		if c.pool, err = pool.ParseMethod(*poolFlag); err != nil {
			return fmt.Errorf("--pool: %w", err)
		}
		return nil
	}
}

// flags declares --rate-limit, --rate-agent, --rate-address, --rate-register, --redis-url
// and --redis-prefix. The check connects to Redis once, to refuse an
// address that does not answer at start.
func (c *limitConfig) flags(fs *flag.FlagSet, env func(name, def string) string) (check func() error) {
	rateLimit := fs.String("rate-limit", env("PREDICTIONS_RATE_LIMIT", "on"), "rate limits: on or off; over a limit the answer is 429 with Retry-After [PREDICTIONS_RATE_LIMIT]")
	rateAgent := fs.String("rate-agent", env("PREDICTIONS_RATE_AGENT", middleware.DefaultAgentRate.String()), "board writes per agent, as `EVENTS/UNIT:BURST` (UNIT s, min or hour) [PREDICTIONS_RATE_AGENT]")
	rateAddress := fs.String("rate-address", env("PREDICTIONS_RATE_ADDRESS", middleware.DefaultAddressRate.String()), "requests per client address, as `EVENTS/UNIT:BURST`, counted separately for\nreads (GET, HEAD, OPTIONS) and other requests [PREDICTIONS_RATE_ADDRESS]")
	rateRegister := fs.String("rate-register", env("PREDICTIONS_RATE_REGISTER", middleware.DefaultRegistrationRate.String()), "webhook endpoint registrations per client address, whichever agents they are for,\nas `EVENTS/UNIT:BURST`; a refused registration does not count [PREDICTIONS_RATE_REGISTER]")
	fs.StringVar(&c.redisURL, "redis-url", env("PREDICTIONS_REDIS_URL", ""), "Redis `URL` that keeps the rate-limit budgets, shared by every replica, such as\nredis://127.0.0.1:6379/0; empty means each replica (process) has budgets of its own.\nWhile Redis does not answer, each replica uses its own limits [PREDICTIONS_REDIS_URL]")
	fs.StringVar(&c.redisPrefix, "redis-prefix", env("PREDICTIONS_REDIS_PREFIX", redislimit.DefaultPrefix), "`prefix` of the rate-limit keys in Redis [PREDICTIONS_REDIS_PREFIX]")
	return func() error {
		var err error
		switch strings.ToLower(*rateLimit) {
		case "on", "true", "1":
		case "off", "false", "0":
			c.rateLimit.Off = true
		default:
			return fmt.Errorf("--rate-limit %q: use on or off", *rateLimit)
		}
		if c.rateLimit.Agent, err = middleware.ParseRate(*rateAgent); err != nil {
			return fmt.Errorf("--rate-agent: %w", err)
		}
		if c.rateLimit.Address, err = middleware.ParseRate(*rateAddress); err != nil {
			return fmt.Errorf("--rate-address: %w", err)
		}
		if c.rateLimit.Registration, err = middleware.ParseRate(*rateRegister); err != nil {
			return fmt.Errorf("--rate-register: %w", err)
		}
		if c.redisURL != "" {
			l, err := redislimit.Open(c.redisURL, redislimit.Options{Prefix: c.redisPrefix})
			if err != nil {
				return fmt.Errorf("--redis-url %q: %w", redactDSN(c.redisURL), err)
			}
			l.Close()
			if c.rateLimit.Off {
				return fmt.Errorf("--redis-url is set but --rate-limit is off: Redis keeps only rate-limit budgets")
			}
		}
		return nil
	}
}

// flags declares --log-format.
func (c *logConfig) flags(fs *flag.FlagSet, env func(name, def string) string) (check func() error) {
	fs.StringVar(&c.format, "log-format", env("PREDICTIONS_LOG_FORMAT", "text"), "format of the log on stderr: text or json; request lines are written in batches within "+logFlushDelay.String()+",\nwarnings and errors at once [PREDICTIONS_LOG_FORMAT]")
	return func() error {
		if c.format != "text" && c.format != "json" {
			return fmt.Errorf("--log-format %q: use text or json", c.format)
		}
		return nil
	}
}

// flags declares --gc-percent and --memory-limit (gcFlags).
func (c *gcConfig) flags(fs *flag.FlagSet, env func(name, def string) string, getenv func(string) string) (check func() error) {
	gcFlags(fs, &c.percent, &c.memoryLimit, env, getenv)
	return func() error {
		if _, _, err := parseGCPercent(c.percent); err != nil {
			return err
		}
		_, _, err := parseMemoryLimit(c.memoryLimit)
		return err
	}
}

// flags declares --smtp-url and --mail-from (mailFlags), --mail-interval
// and --mail-lease. The check reads the e-mail flags with the base URL
// that baseURL points to, as the listener's check left it.
func (c *notifyConfig) flags(fs *flag.FlagSet, env func(name, def string) string, baseURL *string) (check func() error) {
	mailFlags(fs, &c.smtpURL, &c.mailFrom, env)
	interval := fs.String("mail-interval", env("PREDICTIONS_MAIL_INTERVAL", ""), "how often the e-mail sender polls the outbox, a `duration` such as 5s;\nempty means "+notify.DefaultInterval.String()+" [PREDICTIONS_MAIL_INTERVAL]")
	lease := fs.String("mail-lease", env("PREDICTIONS_MAIL_LEASE", ""), "how long a message the sender claimed stays reserved to it, a `duration` of at least 1s, renewed\nevery third of it while the sender lives: a dead replica's claimed messages go out this long plus\nanother replica's --mail-interval after its last renewal; empty means "+notify.DefaultLease.String()+" [PREDICTIONS_MAIL_LEASE]")
	return func() error {
		var err error
		if c.mailFrom != "" && c.smtpURL == "" {
			return fmt.Errorf("--mail-from is set but --smtp-url is not: e-mail is sent only through an SMTP server")
		}
		if _, _, err := mailSetup(c.smtpURL, c.mailFrom, *baseURL); err != nil {
			return err
		}
		if c.interval, err = parseMailDuration("--mail-interval", *interval, time.Millisecond); err != nil {
			return err
		}
		c.lease, err = parseMailDuration("--mail-lease", *lease, time.Second)
		return err
	}
}

// flags declares --events-retention and --events-heartbeat (eventFlags).
func (c *eventConfig) flags(fs *flag.FlagSet, env func(name, def string) string) (check func() error) {
	var retention, heartbeat string
	eventFlags(fs, &retention, &heartbeat, env)
	return func() error {
		var err error
		if c.retention, err = parseDuration("--events-retention", retention, time.Minute); err != nil {
			return err
		}
		c.heartbeat, err = parseDuration("--events-heartbeat", heartbeat, time.Millisecond)
		return err
	}
}

// flags declares the webhook flags (webhookFlags).
func (c *webhookConfig) flags(fs *flag.FlagSet, env func(name, def string) string) (check func() error) {
	var interval, lease, maxActive string
	webhookFlags(fs, &c.client, &interval, &lease, &maxActive, env)
	return func() error {
		var err error
		if maxActive != "" {
			if c.maxActive, err = strconv.Atoi(maxActive); err != nil || c.maxActive < 1 {
				return fmt.Errorf("--webhooks-max-endpoints %q: want a whole number of at least 1, such as %d", maxActive, webhooks.DefaultMaxActive)
			}
		}
		if c.interval, err = parseDuration("--webhooks-interval", interval, time.Millisecond); err != nil {
			return err
		}
		c.lease, err = parseDuration("--webhooks-lease", lease, time.Second)
		return err
	}
}
