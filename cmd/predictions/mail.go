package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/mailbox"
)

// Exit statuses of the mail command, from sysexits.h, which mail servers
// read: Postfix's pipe and sendmail's .forward bounce the message on 65
// and 67 (with the reason from standard error) and retry it later on 75.
const (
	exitRecorded = 0
	exitUsage    = 64 // EX_USAGE: bad flags
	exitDataErr  = 65 // EX_DATAERR: unreadable, or matched to no prediction
	exitNoUser   = 67 // EX_NOUSER: the sender is no agent's registered address
	exitTempFail = 75 // EX_TEMPFAIL: the database did not answer; try again
	exitConfig   = 78 // EX_CONFIG: --db names a SQLite file that does not exist
)

// mailConfig is the configuration of `predictions mail`.
type mailConfig struct {
	db, baseURL, smtpURL, mailFrom string
}

func parseMail(args []string, getenv func(string) string, out io.Writer) (*mailConfig, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	cfg := &mailConfig{}
	fs := flag.NewFlagSet("mail", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.db, "db", env("PREDICTIONS_DB", "predictions.db"), "board database, as for serve: a SQLite `file` or a postgres:// URL [PREDICTIONS_DB]")
	fs.StringVar(&cfg.baseURL, "base-url", env("PREDICTIONS_BASE_URL", ""), "public address of the service, as for serve (names the notifications' Message-IDs) [PREDICTIONS_BASE_URL]")
	mailFlags(fs, &cfg.smtpURL, &cfg.mailFrom, env)
	fs.Usage = func() {
		fmt.Fprintln(out, "Usage: predictions mail [flags] < message")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Reads one e-mail (RFC 5322) on standard input, as a mail server's pipe delivers it, and")
		fmt.Fprintln(out, "records it as a reply to the prediction it answers, exactly as POST /api/predictions/{id}/threads")
		fmt.Fprintln(out, "would: the prediction is matched by In-Reply-To/References, the plus address or the subject,")
		fmt.Fprintln(out, "the agent by its registered sender address; quoted text and signatures are left out and a")
		fmt.Fprintln(out, "coordination tag is read from the first line. Give the same --mail-from (or --smtp-url) and")
		fmt.Fprintln(out, "--base-url as serve, so that the reply's notifications are queued for serve to send.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Exit status: 0 recorded (or a duplicate of a message recorded before, by Message-ID, or an")
		fmt.Fprintln(out, "automatic reply: both recorded once or not at all); 65 unreadable or matching no")
		fmt.Fprintln(out, "prediction; 67 unknown sender; 75 database unavailable (the mail server retries); 64 bad flags;")
		fmt.Fprintln(out, "78 --db names a SQLite file that does not exist (mail never creates a database).")
		fmt.Fprintln(out, "The reason is written on standard error.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Postfix (master.cf, with recipient_delimiter = + so board+<id>@ reaches board@):")
		fmt.Fprintln(out, "  predictions unix - n n - - pipe flags=Rq user=predictions")
		fmt.Fprintln(out, "    argv=/usr/local/bin/predictions mail --db /var/lib/predictions/predictions.db --mail-from board@example.org\n"+
			"      --base-url https://predictions.example.org")
		fmt.Fprintln(out, "or a .forward file: \"|/usr/local/bin/predictions mail --db /home/board/predictions.db --mail-from board@example.org --base-url https://predictions.example.org\"")
		fmt.Fprintln(out)
		fmt.Fprintln(out, envFlagsHeader)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q; mail reads the message on standard input", fs.Arg(0))
	}
	if cfg.baseURL != "" {
		u, err := url.Parse(cfg.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--base-url %q: want an absolute http or https address such as https://predictions.example.org", cfg.baseURL)
		}
		cfg.baseURL = strings.TrimRight(cfg.baseURL, "/")
	}
	if _, _, err := mailSetup(cfg.smtpURL, cfg.mailFrom, cfg.baseURL); err != nil {
		return nil, err
	}
	return cfg, nil
}

// runMail is the mail subcommand: one message on stdin, one exit status.
func runMail(ctx context.Context, env *cmdEnv, args []string) int {
	cfg, err := parseMail(args, env.getenv, env.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions mail: %v\n", err)
		return exitUsage
	}
	m, err := email.Parse(env.stdin)
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions mail: refused: %v\n", err)
		return exitDataErr
	}
	mailOpt, _, _ := mailSetup(cfg.smtpURL, cfg.mailFrom, cfg.baseURL) // checked by parseMail
	// MustExist: a mistyped --db must not create an empty board that
	// then bounces every real reply as from an unknown sender.
	store, err := board.Open(ctx, cfg.db, board.Options{Flag: forecastfile.Flags, MustExist: true})
	if err != nil {
		if errors.Is(err, board.ErrNoDatabase) {
			fmt.Fprintf(env.stderr, "predictions mail: --db %s: %v\n", redactDSN(cfg.db), err)
			return exitConfig
		}
		if errors.Is(err, board.ErrInvalid) {
			fmt.Fprintf(env.stderr, "predictions mail: --db %s: %v\n", redactDSN(cfg.db), err)
			return exitUsage
		}
		fmt.Fprintf(env.stderr, "predictions mail: database unavailable, try again later: opening %s: %v\n", redactDSN(cfg.db), err)
		return exitTempFail
	}
	defer store.Close()
	_, mb, _, err := openOutbox(ctx, store, mailOpt)
	if errors.Is(err, board.ErrInvalid) { // the board's address or --base-url
		fmt.Fprintf(env.stderr, "predictions mail: %v\n", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions mail: database unavailable, try again later: opening the outbox in %s: %v\n", redactDSN(cfg.db), err)
		return exitTempFail
	}
	rep, err := mb.ReceiveMail(ctx, m)
	code := mailExit(err)
	switch {
	case err == nil:
		fmt.Fprintf(env.stdout, "recorded reply %s by %s on prediction %s (%s)\n", rep.ID, rep.AgentID, rep.PredictionID, rep.Kind)
	case errors.Is(err, mailbox.ErrDuplicate):
		fmt.Fprintf(env.stdout, "duplicate: this message was recorded before as reply %s by %s on prediction %s; nothing recorded\n",
			rep.ID, rep.AgentID, rep.PredictionID)
	case code == exitRecorded:
		fmt.Fprintf(env.stderr, "predictions mail: ignored: %v\n", err)
	case code == exitTempFail:
		fmt.Fprintf(env.stderr, "predictions mail: database unavailable, try again later: %v\n", err)
	default:
		fmt.Fprintf(env.stderr, "predictions mail: refused: %v\n", err)
	}
	return code
}

// mailExit maps the result of mailbox.Box.ReceiveMail to an exit status.
// An automatic message (an auto-responder answering a notification) is
// accepted and dropped rather than bounced, so that two robots cannot
// mail each other forever.
func mailExit(err error) int {
	switch {
	case err == nil, errors.Is(err, mailbox.ErrAutomatic), errors.Is(err, mailbox.ErrDuplicate):
		return exitRecorded
	case errors.Is(err, mailbox.ErrUnknownSender):
		return exitNoUser
	case errors.Is(err, mailbox.ErrUnmatched), errors.Is(err, board.ErrNotFound), errors.Is(err, board.ErrInvalid):
		return exitDataErr
	}
	return exitTempFail
}
