package main

import (
	"context"
	"flag"
	"fmt"
	"net/mail"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/webhooks"
)

// mailFlags adds --smtp-url and --mail-from, shared by serve and mail.
func mailFlags(fs *flag.FlagSet, smtpURL, mailFrom *string, env func(name, def string) string) {
	fs.StringVar(smtpURL, "smtp-url", env("PREDICTIONS_SMTP_URL", ""), "mail server for notifications: smtp://user:pass@host:587?from=board@example.org\n(STARTTLS when offered) or smtps://... (implicit TLS); empty means no e-mail [PREDICTIONS_SMTP_URL]")
	fs.StringVar(mailFrom, "mail-from", env("PREDICTIONS_MAIL_FROM", ""), "the board's `address`, such as \"Predictions <board@example.org>\": From of notifications,\nwith board+<prediction id>@... as Reply-To; default: from= of --smtp-url [PREDICTIONS_MAIL_FROM]")
}

// mailSetup turns the e-mail flags into the mailbox's options and the
// SMTP server. Without --smtp-url and --mail-from both are nil: no
// notifications. The board's address is --mail-from, else the URL's
// from=. A server without an address is an error, since every message
// needs a From and a Reply-To; an address without a server (the mail
// command, which only records replies) gives options and a nil server.
func mailSetup(smtpURL, mailFrom, baseURL string) (*mailbox.Options, *notify.SMTP, error) {
	var from mail.Address
	var srv *notify.SMTP
	if smtpURL != "" {
		c, err := notify.ParseURL(smtpURL)
		if err != nil {
			return nil, nil, err
		}
		srv, from = &c, c.From
	}
	if mailFrom != "" {
		a, err := notify.ParseAddress(mailFrom)
		if err != nil {
			return nil, nil, fmt.Errorf("--mail-from: %w", err)
		}
		from = a
	}
	if srv != nil && baseURL == "" {
		return nil, nil, fmt.Errorf("--smtp-url needs --base-url (such as https://predictions.example.org): every message links to it, " +
			"for confirming an address and for one-click unsubscribe")
	}
	if from.Address == "" {
		if srv != nil {
			return nil, nil, fmt.Errorf("--smtp-url has no from= and --mail-from is empty: give the board's address, such as --mail-from board@example.org")
		}
		return nil, nil, nil
	}
	return &mailbox.Options{From: from, BaseURL: baseURL}, srv, nil
}

// parseMailDuration reads --mail-interval or --mail-lease: "" is 0 (the
// sender's default), else a Go duration of at least least.
func parseMailDuration(name, s string, least time.Duration) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < least {
		return 0, fmt.Errorf("%s %q: give a duration of at least %s, such as 30s, or leave it empty for the default", name, s, least)
	}
	return d, nil
}

// openOutbox opens the outbox in the board's database (moving into it
// the rows of a board made before it had one) and the mailbox (taking
// over the e-mail tables of a board made before it had one). With mail
// options the e-mail recorder becomes the board's and the mailbox's, so
// that posts and registrations queue their messages in their own
// transactions; without, the mailbox's recorder only gives up the
// pending mail of addresses that unsubscribe. The recorder is returned
// too (nil without mail options), for what else queues e-mail.
func openOutbox(ctx context.Context, store *board.Store, mailOpt *mailbox.Options) (*outbox.Outbox, *mailbox.Box, *notify.Mail, error) {
	// Webhooks are retried for a day, as Standard Webhooks senders do;
	// e-mail counts its attempts.
	box, err := outbox.Open(ctx, store.WriteDB(), outbox.Options{RetryFor: map[outbox.Kind]time.Duration{outbox.Webhook: webhooks.RetryFor}})
	if err != nil {
		return nil, nil, nil, err
	}
	if mailOpt == nil {
		// No e-mail now; an unsubscription still gives up what was
		// queued while it was on.
		mb, err := mailbox.Open(ctx, store, mailbox.Options{Recorder: notify.Cancel{Outbox: box}})
		return box, mb, nil, err
	}
	m, err := notify.NewMail(box, mailOpt.From, mailOpt.BaseURL)
	if err != nil {
		return nil, nil, nil, err
	}
	opt := *mailOpt
	opt.Recorder = m
	mb, err := mailbox.Open(ctx, store, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	store.SetRecorder(m)
	return box, mb, m, nil
}
