package main

import (
	"context"
	"flag"
	"log/slog"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/hooks"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/webhook"
)

// Webhooks in serve: the operator's flags on which URLs an endpoint may
// have, and the fan-out and the sender, run by every replica (the
// outbox's position row and leases share the work).

// webhookFlags declares --webhooks-allow-http and --webhooks-allow-private.
func webhookFlags(fs *flag.FlagSet, opt *webhook.ClientOptions, env func(name, def string) string) {
	fs.BoolVar(&opt.AllowHTTPLoopback, "webhooks-allow-http", envBool(env("PREDICTIONS_WEBHOOKS_ALLOW_HTTP", "")),
		"accept http:// webhook URLs that reach a loopback address (127.0.0.1, ::1, localhost), for a\nreceiver on this machine during development; other URLs stay https [PREDICTIONS_WEBHOOKS_ALLOW_HTTP]")
	fs.BoolVar(&opt.AllowPrivate, "webhooks-allow-private", envBool(env("PREDICTIONS_WEBHOOKS_ALLOW_PRIVATE", "")),
		"let webhooks reach loopback, private (RFC 1918, RFC 4193), link-local and shared addresses,\nfor receivers on the operator's own network; off, they are refused at registration and at\neach connection (server-side request forgery) [PREDICTIONS_WEBHOOKS_ALLOW_PRIVATE]")
}

// runWebhooks runs the fan-out and the sender until ctx ends: deliveries
// are queued as events commit and sent at once.
func runWebhooks(ctx context.Context, store *board.Store, box *outbox.Outbox, opt webhook.ClientOptions, log *slog.Logger) {
	snd := &hooks.Sender{Board: store, Outbox: box, Client: webhook.NewClient(opt), Log: log}
	fan := &hooks.FanOut{Board: store, Outbox: box, DB: store.DB(), Log: log, Queued: snd.Kick}
	done := make(chan struct{})
	go func() {
		defer close(done)
		snd.Run(ctx)
	}()
	fan.Run(ctx)
	<-done
}
