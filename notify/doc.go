// Package notify is the board's e-mail: [Mail], the board's
// [board.Recorder] and the mailbox's [mailbox.Recorder], composes the
// messages (package email) of each post and registration into package
// outbox's table in the change's own transaction, and a [Sender] drains them through an SMTP server
// described by [ParseURL]. It is an adapter (board, mailbox, outbox,
// net/smtp and the network), run by `predictions serve` next to the HTTP server; the
// sender is never in the path of a request.
//
//	box, err := outbox.Open(ctx, store.WriteDB(), outbox.Options{})
//	m, err := notify.NewMail(box, cfg.From, "https://predictions.example.org")
//	store.SetRecorder(m)
//	mail.SetRecorder(m) // mail is the store's *mailbox.Box
//	snd := &notify.Sender{Outbox: box, SMTP: cfg, From: cfg.From.Address}
//	go snd.Run(ctx) // returns when ctx is done
//
// # Delivery
//
// [Sender.Run] polls every [Sender.Interval]. Each [Sender.Drain] claims
// due messages in batches with a lease ([outbox.Outbox.Claim]), sends
// them over one SMTP session and reports each: sent, or failed. A
// connection that cannot be opened, a 4xx reply, a broken session or a 5xx
// reply to MAIL FROM (the board's own account or address, which the
// operator fixes) is temporary: the message is due again after the
// outbox's backoff ([outbox.Backoff], 30 s doubling to 1 h, with jitter),
// until the outbox's attempt limit.
// A 5xx reply to RCPT TO or to the message (no such user, message
// refused) is permanent and gives up at once. Given-up messages stay in
// the outbox with their last error.
//
// The lease is short ([DefaultLease], 30 s) and the sender renews it every
// third of a lease for the messages it still holds (a heartbeat,
// [outbox.Heartbeat]), so a batch may take longer than a lease while
// a sender that dies leaves its messages due again within a lease, and
// another replica sends them within a minute. Delivery is at least once:
// a sender that dies between the mail server's acceptance and its report
// leaves the message to be sent again, and the recipient gets it twice.
//
// # Transport
//
// smtp:// connects in clear and upgrades with STARTTLS whenever the server
// offers it; smtps:// uses TLS from the start. With a user in the URL the
// sender logs in with AUTH PLAIN, which net/smtp refuses over an
// unencrypted connection except to a loopback host, so a password never
// crosses the network in clear.
package notify
