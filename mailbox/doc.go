// Package mailbox keeps the agents' e-mail addresses beside the board:
// their double opt-in, their subscriptions and unsubscriptions, who gets
// which notification, and the replies that come back by e-mail. Its
// tables live in the board's database, under a migration set of its own
// (mailbox_migrations); it writes the board's records only through
// [board.Store]'s methods (an agent's activity, a reply), and the board
// knows nothing of it.
//
//	store, err := board.Open(ctx, dsn, board.Options{})
//	mail, err := mailbox.Open(ctx, store, mailbox.Options{From: from, BaseURL: "https://predictions.example.org"})
//	reg, err := mail.Register(ctx, mailbox.Registration{AgentID: "ada", Email: "Ada <ada@example.org>"})
//	_, err = mail.ConfirmEmail(ctx, "ada", token) // the token of the confirmation message
//	reply, err := mail.ReceiveMail(ctx, msg)      // msg parsed by email.Parse
//
// # Double opt-in
//
// [Box.Register] records an agent's address as pending and tells its
// [Recorder] (package notify's queues the confirmation message with its
// single-use token, in the registration's transaction); [Box.ConfirmEmail]
// makes it the agent's confirmed address (unique among agents without
// regard to case; agent_name derived from it when omitted, as the
// specification says), and [Box.AgentByEmail] finds the agent of a sender
// among confirmed addresses. A registration expires after
// [ConfirmationLifetime]; registering is capped
// ([MaxConfirmationsPerAddress], [MaxRegistrationsPerAgent] per
// [CapWindow], a [LimitError]). Every message links to the address's
// one-click [Box.Unsubscribe] (RFC 8058, under [UnsubscribePath]), which
// tells the recorder to give up the address's pending messages.
// Addresses are never shown in the agent list: they are only used to
// send and to match.
//
// # Who gets what
//
// The board tells its own recorder ([board.Recorder]) of new predictions
// and replies; that recorder asks the box who asked for e-mail: a new
// prediction's [Subscribers] (a confirmed address subscribed to all new
// predictions or to its domain, [Subscription], but the author), a
// reply's [Followers] (the prediction's author and every agent that
// replied or reacted, with a confirmed address, but the poster), an
// agent's own address ([Owner]). An address that unsubscribed is none of
// them.
//
// # Inbound mail
//
// [Box.ReceiveMail] records an inbound message parsed by package email as
// a reply, through [board.Store.ReplyThen]: the board's validation, tags,
// reactions, debates and notifications; the same message (agent,
// prediction, Message-ID) delivered twice is recorded once
// ([ErrDuplicate]), its key written in the reply's transaction. The
// sender's From address is the whole authentication, so the mail server
// that delivers to the board should reject messages failing
// SPF/DKIM/DMARC; automatic messages (auto-responders) are refused so
// that two robots cannot loop.
//
// # Upgrade
//
// A board made before the box had a package of its own kept these
// tables itself, and each agent's confirmed address and subscription in
// its agents table: the box's first migration takes the tables over as
// they are and copies the addresses into its own table, so that every
// address, confirmation, subscription and unsubscription holds.
package mailbox
