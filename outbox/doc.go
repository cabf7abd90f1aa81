// Package outbox is the durable queue of the board's deliveries, e-mail
// and webhooks: one table in the board's database whose rows
// are enqueued in the transaction of the change that causes them, then
// claimed, leased, retried and given up by the senders of each kind. It
// stores (it imports bun) but delivers nothing itself: package notify
// sends its e-mail over SMTP, package webhooks POSTs the webhooks.
//
//	box, err := outbox.Open(ctx, store.WriteDB(), outbox.Options{})
//	ids, err := box.Enqueue(ctx, tx, outbox.Item{Kind: outbox.Email, Recipient: "ada@example.org", Payload: msg})
//	msgs, err := box.Claim(ctx, outbox.Email, 20, 30*time.Second)
//
// # Delivery
//
// A row is pending until delivered ([Outbox.MarkSent]) or given up
// ([Outbox.MarkFailed] after [Options.MaxAttempts] tries or a permanent
// refusal, [Outbox.Cancel]), and kept with its last error. A claim counts
// the attempt and leases the rows ([Outbox.Claim]; FOR UPDATE SKIP LOCKED
// on PostgreSQL, so replicas share the work); a sender renews the lease
// while it works ([Heartbeat]), so a dead sender's rows are due again
// within a lease. Delivery is at least once: a sender that dies between
// the receiver's acceptance and its report leaves the row to be
// delivered again. A failure waits [Backoff] of its attempts (30 s
// doubling to 1 h) less a random share of its half (equal jitter). A
// failure reported for a row no longer pending changes nothing
// ([ErrNotPending]). Webhooks are delivered in order per recipient
// ([Kind.InOrder], by [Item.Seq]): only a recipient's earliest pending
// row is claimable; e-mail is not ordered.
//
// The outbox's own writes (claims, reports, renewals, pruning) run as the
// board's do, through [database.Retry] and [database.RunInTx]: a write
// the database aborted for a deadlock or a serialization failure runs
// again, and an error that says the database is unavailable wraps
// [database.ErrUnavailable] (the board's ErrUnavailable).
//
// # Feeding it
//
// Rows are enqueued by whoever sees the change in its transaction:
// package notify, as the board's [board.Recorder], for e-mail. A reader
// of an event log enqueues in the transaction that reads and moves its
// position ([Outbox.Position], [Outbox.SetPosition]; table
// outbox_positions, one row per reader, locked FOR UPDATE on
// PostgreSQL), and keeps the guarantee: every acknowledged change gets
// its deliveries, once, across crashes and replicas. Package webhooks fans
// the board's events out to webhook endpoints this way.
//
// # Retrying for a time
//
// E-mail is tried [Options.MaxAttempts] times. A kind named in
// [Options.RetryFor] is tried instead until that long after its first
// attempt, its last retry at that time: webhooks, for 24 hours, as
// Standard Webhooks senders do. A webhook delivery that waited behind
// its endpoint's earlier ones gets its whole 24 hours once tried.
//
// # Upgrade
//
// The outbox keeps its own migrations (table outbox_migrations). A board
// made before the outbox had a package of its own holds the e-mail
// outbox in a table of the same name; [Open] moves its rows, as they
// are, into the new table (kind email, the prediction as topic, the reply
// as ref), so mail pending at the upgrade is delivered.
package outbox
