// Package webhooks delivers the board's events to the agents' webhook
// endpoints, and keeps the endpoints. Its [Store] holds them as records
// ([Webhook]: owner, URL, filters, secret, status) in tables of its own
// in the board's database, migrated by their own set; a [FanOut] reads
// the event log and queues one delivery per event and matching endpoint
// in the outbox, and a [Sender] signs and POSTs them through [NewClient]'s
// client, guarded against server-side request forgery ([CheckURL] checks
// a URL at registration). The board only appends what happened: no
// delivery calls back into it. Package webhooks/signature signs and
// verifies (Standard Webhooks), alone, for receivers; package outbox
// keeps the queue, shared with e-mail.
//
//	eps, err := webhooks.Open(ctx, store, webhooks.Options{Notifier: mail})
//	w, err := eps.CreateWebhook(ctx, webhooks.NewWebhook{AgentID: "ada", URL: "https://agent.example.org/hook", Secret: sec.String()})
//	f := &webhooks.FanOut{Board: store, Endpoints: eps, Outbox: box, DB: store.WriteDB()}
//	s := &webhooks.Sender{Endpoints: eps, Outbox: box, Client: webhooks.NewClient(webhooks.ClientOptions{})}
//	go f.Run(ctx); go s.Run(ctx)
//
// # Endpoints
//
// [Store.CreateWebhook] registers an endpoint ([MaxWebhooksPerAgent] per
// agent and [Options.MaxActive] active ones on the board, the bound of an
// event's fan-out; [ErrWebhookCap] beyond), [Store.Webhooks] lists an agent's
// without their secrets and [Store.DeleteWebhook] removes one; the
// fan-out reads [Store.ActiveWebhooks] and the sender
// [Store.WebhookByID], [Store.WebhookDelivered], [Store.WebhookFailed]
// and [Store.DisableWebhook], which tells the [Notifier] in its
// transaction. Their input is checked by the board's rules and refused
// with its errors (*[board.ValidationError], [board.ErrNotFound]).
//
// # Fan-out
//
// [FanOut.Step] reads the events after its position ([outbox.Outbox.Position],
// reader [Reader]), matches each to the active endpoints
// ([Webhook.Wants]: registered before the event, and its filters
// as [board.EventQuery.Match] states them) and enqueues one row of kind
// webhook per pair, in the transaction that moves the position: an event
// is queued once for each endpoint, whatever crashes, and replicas take
// turns on the position row (FOR UPDATE on PostgreSQL). A row's webhook-id
// is evt_<event id>_<endpoint id>, the same for every attempt, so that a
// receiver can drop a duplicate; its payload is the event's JSON, as the
// stream's data line. A transaction queues about [MaxFanOutRows] rows at
// most (one event at least), so that it holds the writer briefly.
//
// # Delivery
//
// [Sender] claims rows of kind webhook (with leases and a heartbeat, as
// notify's sender), signs each with its endpoint's secret at the time of
// the attempt ([signature.SetHeaders]) and POSTs it ([Post]). A 2xx answer is a delivery;
// anything else is retried with [outbox.Backoff] and equal jitter until
// [RetryFor] after the first attempt (the outbox's Options.RetryFor), at
// least once. Deliveries to an endpoint go in event-id order, one at a
// time: the outbox claims only each endpoint's earliest pending row
// ([outbox.Kind.InOrder]), so a failure holds back that endpoint's later
// events until its retry succeeds (a receiver down for an hour gets them
// all afterwards, in order) and no other endpoint's. The sender claims
// while attempts run, each attempt in a goroutine of its own, at most
// [Sender.Workers] at once ([DefaultWorkers]), so an endpoint that hangs
// holds only its own slot until the client's timeout and delays no other
// endpoint while fewer than Workers hang. The deliveries accepted while
// one record is written are recorded together in the next
// ([Queue]'s MarkSentAll), so the attempts running take the write
// connection once per batch, not once each. An endpoint whose deliveries have failed for [RetryFor]
// since its last success is disabled ([Store.DisableWebhook]),
// which tells its owner (e-mail through the [Notifier], and the
// endpoint's status); a row whose endpoint was deleted or disabled is
// given up unsent.
//
// # Client
//
// [NewClient] is the http.Client of deliveries, guarded against
// server-side request forgery: each connection is checked after DNS
// resolution (so a name that resolves, or later re-resolves, to a
// refused address is refused too) and refused unless the address is
// public unicast ([Allowed]; [ClientOptions.AllowPrivate] opens the
// operator's own networks); only https is spoken
// ([ClientOptions.AllowHTTPLoopback] lets http reach loopback for
// development); no redirect is followed and no proxy is used; each
// delivery is bounded by [DefaultTimeout], and so is the wait for the
// answer's status and headers, which may hold at most [MaxAnswerHeader]
// bytes. The status is the outcome: a 2xx is a delivery as soon as it
// arrives, whatever its body does; [Post] then reads at most [MaxAnswer]
// bytes of the body for at most [BodyGrace], to quote it in a failure and
// to reuse the connection.
package webhooks
