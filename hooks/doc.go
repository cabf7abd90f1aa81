// Package hooks delivers the board's events to the agents' webhook
// endpoints: a [FanOut] reads the event log and queues one delivery per
// event and matching endpoint in the outbox, and a [Sender] signs and
// POSTs them. The board keeps the endpoints as records ([board.Webhook])
// and delivers nothing; package webhook signs (Standard Webhooks) and
// holds the SSRF-guarded client; package outbox keeps the queue, shared
// with e-mail.
//
//	f := &hooks.FanOut{Board: store, Outbox: box, DB: store.DB()}
//	s := &hooks.Sender{Board: store, Outbox: box, Client: webhook.NewClient(webhook.ClientOptions{})}
//	go f.Run(ctx); go s.Run(ctx)
//
// # Fan-out
//
// [FanOut.Step] reads the events after its position ([outbox.Outbox.Position],
// reader [Reader]), matches each to the active endpoints
// ([board.Webhook.Wants]: registered before the event, and its filters
// as [board.EventQuery.Match] states them) and enqueues one row of kind
// webhook per pair, in the transaction that moves the position: an event
// is queued once for each endpoint, whatever crashes, and replicas take
// turns on the position row (FOR UPDATE on PostgreSQL). A row's webhook-id
// is evt_<event id>_<endpoint id>, the same for every attempt, so that a
// receiver can drop a duplicate; its payload is the event's JSON, as the
// stream's data line.
//
// # Delivery
//
// [Sender] claims rows of kind webhook (with leases and a heartbeat, as
// notify's sender), signs each with its endpoint's secret at the time of
// the attempt and POSTs it ([webhook.Post]). A 2xx answer is a delivery;
// anything else is retried with [outbox.Backoff] and equal jitter until
// [RetryFor] after the first attempt (the outbox's Options.RetryFor), at
// least once. Deliveries to an endpoint go in event-id order, one at a
// time: the outbox claims only each endpoint's earliest pending row
// ([outbox.Kind.InOrder]), so a failure holds back that endpoint's later
// events until its retry succeeds (a receiver down for an hour gets them
// all afterwards, in order) and no other endpoint's. A batch has one row
// per endpoint and its attempts run at once, so an endpoint that hangs
// costs the others at most the client's timeout. An endpoint whose deliveries have failed for [RetryFor]
// since its last success is disabled ([board.Store.DisableWebhook]),
// which tells its owner (e-mail through the board's recorder, and the
// endpoint's status); a row whose endpoint was deleted or disabled is
// given up unsent.
package hooks
