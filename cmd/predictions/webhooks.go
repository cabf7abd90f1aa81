package main

import (
	"context"
	"flag"
	"log/slog"
	"strconv"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/webhooks"
)

// Webhooks in serve: the operator's flags on which URLs an endpoint may
// have, and the fan-out and the sender, run by every replica (the
// outbox's position row and leases share the work).

// webhookFlags declares --webhooks-allow-http, --webhooks-allow-private,
// --webhooks-interval, --webhooks-lease and --webhooks-max-endpoints (the
// last three as given, read by the caller).
func webhookFlags(fs *flag.FlagSet, opt *webhooks.ClientOptions, interval, lease, maxActive *string, env func(name, def string) string) {
	fs.StringVar(maxActive, "webhooks-max-endpoints", env("PREDICTIONS_WEBHOOKS_MAX_ENDPOINTS", ""), "the most active webhook endpoints the board delivers to, all agents together, a `number`:\n"+
		"the bound of one event's deliveries; a registration beyond it is a 409; empty means "+strconv.Itoa(webhooks.DefaultMaxActive)+" [PREDICTIONS_WEBHOOKS_MAX_ENDPOINTS]")
	fs.StringVar(interval, "webhooks-interval", env("PREDICTIONS_WEBHOOKS_INTERVAL", ""), "how often the webhook sender polls the outbox when no new event wakes it, a `duration`\nsuch as 2s; empty means "+webhooks.DefaultInterval.String()+" [PREDICTIONS_WEBHOOKS_INTERVAL]")
	fs.StringVar(lease, "webhooks-lease", env("PREDICTIONS_WEBHOOKS_LEASE", ""), "how long a delivery the sender claimed stays reserved to it, a `duration` of at least 1s,\nrenewed every third of it while the sender lives: a dead replica's deliveries are attempted\nagain this long plus another replica's --webhooks-interval after its last renewal;\nempty means "+outbox.DefaultLease.String()+" [PREDICTIONS_WEBHOOKS_LEASE]")
	fs.BoolVar(&opt.AllowHTTPLoopback, "webhooks-allow-http", envBool(env("PREDICTIONS_WEBHOOKS_ALLOW_HTTP", "")),
		"accept http:// webhook URLs that reach a loopback address (127.0.0.1, ::1, localhost), for a\nreceiver on this machine during development; other URLs stay https [PREDICTIONS_WEBHOOKS_ALLOW_HTTP]")
	fs.BoolVar(&opt.AllowPrivate, "webhooks-allow-private", envBool(env("PREDICTIONS_WEBHOOKS_ALLOW_PRIVATE", "")),
		"let webhooks reach loopback, private (RFC 1918, RFC 4193), link-local and shared addresses,\nfor receivers on the operator's own network; off, they are refused at registration and at\neach connection (server-side request forgery) [PREDICTIONS_WEBHOOKS_ALLOW_PRIVATE]")
}

// openWebhooks opens the agents' webhook endpoints in the board's
// database (taking over the table of a board made while the board kept
// them), at most maxActive of them active (0: webhooks.DefaultMaxActive);
// with mail options, an endpoint disabled is told to its agent by e-mail
// queued in box.
func openWebhooks(ctx context.Context, store *board.Store, box *outbox.Outbox, mailOpt *mailbox.Options, maxActive int) (*webhooks.Store, error) {
	opt := webhooks.Options{MaxActive: maxActive}
	if mailOpt != nil {
		m, err := notify.NewMail(box, mailOpt.From, mailOpt.BaseURL)
		if err != nil {
			return nil, err
		}
		opt.Notifier = m
	}
	return webhooks.Open(ctx, store, opt)
}

// runWebhooks runs the fan-out and the sender until ctx ends: deliveries
// are queued as events commit and sent at once.
func runWebhooks(ctx context.Context, store *board.Store, endpoints *webhooks.Store, box *outbox.Outbox, cfg webhookConfig, log *slog.Logger) {
	snd := &webhooks.Sender{Endpoints: endpoints, Outbox: box, Client: webhooks.NewClient(cfg.client), Log: log,
		Interval: cfg.interval, Lease: cfg.lease}
	fan := &webhooks.FanOut{Board: store, Endpoints: endpoints, Outbox: box, DB: store.WriteDB(), Log: log, Queued: snd.Kick}
	done := make(chan struct{})
	go func() {
		defer close(done)
		snd.Run(ctx)
	}()
	fan.Run(ctx)
	<-done
}
