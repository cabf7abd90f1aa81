package boardapi

import (
	"log/slog"
	"time"

	"github.com/gorilla/mux"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/eventstream"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/idempotency"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/webhooks"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/uptrace/bun"
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
	// Keys are the agents' keys, needed with [AuthKeys];
	// *agentkey.Store implements it.
	Keys Keys
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
	// Webhooks are the agents' webhook endpoints the webhook routes
	// register, list and delete; *webhooks.Store implements it. nil
	// means the routes answer 404: this server delivers no webhooks.
	Webhooks Webhooks
	// WebhookURLs are the rules an endpoint's URL is checked with when it
	// is registered: give the options of the delivering client
	// (webhooks.NewClient), so that what is registered can be delivered.
	// The zero value takes public https URLs only.
	WebhookURLs webhooks.ClientOptions
	// Idempotency keeps the Idempotency-Key of each write with its
	// answer, in the store's database. nil means keys in the database of
	// Store, which must then offer it (WriteDB() *bun.DB, as *board.Store does).
	Idempotency *idempotency.Store
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

	idem      *idempotency.Store            // the writes' idempotency keys (idempotency.go)
	afterUnit func()                        // tests: runs after a keyed write commits, before its answer
	hub       *eventstream.Hub[board.Event] // the event streams (events.go)
}

// StopStreams ends the open event streams (their clients reconnect,
// elsewhere, with Last-Event-ID) and refuses none that come after: for a
// server shutting down, whose Shutdown would otherwise wait for streams
// that never end (http.Server.RegisterOnShutdown).
func (s *API) StopStreams() {
	s.hub.Stop()
}

// ReapStreams closes the parked event streams whose clients closed their
// connection, and returns how many: a parked connection is never read,
// so a client's close is otherwise seen at its next write, up to a
// heartbeat later. cmd/predictions calls it before it refuses a client
// address over its connection limit, so that a client that closed its
// streams can connect again at once.
func (s *API) ReapStreams() int {
	return s.hub.Reap()
}

// OpenStreams is the number of event streams open on this server
// (GET /api/events), and how many of them are parked: served by the hub
// on their connection alone, without a goroutine or the request's
// buffers (about 4 KB each where the others take about 45 KB).
func (s *API) OpenStreams() (open, parked int) {
	return s.hub.Counts()
}

// New returns the board's adapter configured by opt.
func New(opt Options) *API {
	s := &API{opt: opt, log: opt.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.idem = opt.Idempotency
	if s.idem == nil {
		if db, ok := opt.Store.(interface{ WriteDB() *bun.DB }); ok {
			s.idem = idempotency.New(db.WriteDB(), idempotency.Options{})
		}
	}
	s.mail = opt.Mail
	if st, ok := opt.Store.(*board.Store); ok && s.mail == nil {
		s.mail, _ = mailbox.New(st, mailbox.Options{}) // no options, no error
	}
	s.hub = newEventHub(opt.Store, s.log, opt.EventBuffer, opt.EventPoll, opt.Heartbeat)
	return s
}

// Collector is the board's Prometheus metrics: its database pools and
// outbox backlog, read at each scrape.
func (s *API) Collector() prometheus.Collector {
	return &boardCollector{board: s.opt.Store, outbox: s.opt.Outbox, log: s.log}
}
