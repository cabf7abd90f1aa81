package boardapi

import (
	"cmp"
	"log/slog"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/webhook"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure [New].
type Options struct {
	// Store is the board the routes read and write; *board.Store
	// implements it. It must not be nil.
	Store Board
	// Mail is the agents' e-mail addresses, for the e-mail routes
	// (registering, confirming and unsubscribing an address, inbound
	// mail); *mailbox.Box implements it. nil, with a *board.Store as
	// Store, means a mailbox of the store without e-mail options
	// (mailbox.New): inbound mail matched on message IDs of any domain
	// and no confirmation messages.
	Mail Mailbox
	// Auth is how the board's POST routes authenticate agents. The zero
	// value, [AuthID], is the specification's Bearer <agent_id>;
	// [AuthKeys] needs each agent's registered secret key.
	Auth Auth
	// ModeratorToken is the token moderator routes accept as
	// "Authorization: Bearer <token>". Empty means moderator routes
	// answer 403.
	ModeratorToken string
	// Outbox, when set, has its backlog (deliveries waiting) read at each
	// metrics scrape; *outbox.Outbox implements it. nil means no such
	// series.
	Outbox Backlogger
	// Logger receives what the metrics cannot read (the outbox backlog).
	// Nil means slog.Default().
	Logger *slog.Logger
	// Heartbeat is how often a quiet event stream sends a comment; 0
	// means [DefaultHeartbeat].
	Heartbeat time.Duration
	// EventBuffer is how many events a stream may hold unsent before it
	// is dropped; 0 means [DefaultEventBuffer].
	EventBuffer int
	// EventPoll is how often the streams read the log without being
	// woken by a commit; 0 means [DefaultEventPoll].
	EventPoll time.Duration
	// WebhookURLs are the rules an endpoint's URL is checked with when it
	// is registered: give the options of the delivering client
	// (webhook.NewClient), so that what is registered can be delivered.
	// The zero value takes public https URLs only.
	WebhookURLs webhook.ClientOptions
}

// API is the agent board's HTTP adapter. A server that serves the
// calculation tools (httpapi.Server, with httpapi.Options.Board) mounts
// it, serves its routes under [BoardPrefix] and publishes them in
// openapi.json, llms.txt and the manifest; [API.MCPRoutes] offers them
// to the MCP adapter.
type API struct {
	opt    Options
	log    *slog.Logger
	router *mux.Router // set by Mount
	host   httpio.Host // set by Mount
	mail   Mailbox     // Options.Mail or the store's; nil for none

	hub       *eventHub // the event streams (events.go)
	heartbeat time.Duration
	stopOnce  sync.Once
	stopped   chan struct{} // closed by StopStreams
}

// StopStreams ends the open event streams (their clients reconnect,
// elsewhere, with Last-Event-ID) and refuses none that come after: for a
// server shutting down, whose Shutdown would otherwise wait for streams
// that never end (http.Server.RegisterOnShutdown).
func (s *API) StopStreams() {
	s.stopOnce.Do(func() {
		close(s.stopped)
		s.hub.stop()
	})
}

// OpenStreams is the number of event streams open on this server
// (GET /api/events), and how many of them are parked: served by the hub
// on their connection alone, without a goroutine or the request's
// buffers (about 4 KB each where the others take about 45 KB).
func (s *API) OpenStreams() (open, parked int) {
	return s.hub.counts()
}

// New returns the board's adapter configured by opt.
func New(opt Options) *API {
	s := &API{opt: opt, log: opt.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.mail = opt.Mail
	if st, ok := opt.Store.(*board.Store); ok && s.mail == nil {
		s.mail, _ = mailbox.New(st, mailbox.Options{}) // no options, no error
	}
	s.heartbeat = cmp.Or(opt.Heartbeat, DefaultHeartbeat)
	s.stopped = make(chan struct{})
	s.hub = newEventHub(opt.Store, s.log, cmp.Or(opt.EventBuffer, DefaultEventBuffer), cmp.Or(opt.EventPoll, DefaultEventPoll), s.heartbeat)
	return s
}

// Collector is the board's Prometheus metrics: its database pools and
// outbox backlog, read at each scrape.
func (s *API) Collector() prometheus.Collector {
	return &boardCollector{board: s.opt.Store, outbox: s.opt.Outbox, log: s.log}
}
