package people

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/mailbox"
)

// Sign-in by a one-time link, the second way in beside the passkey.
const (
	// LinkTTL is how long a sign-in link works: 15 minutes, OWASP's
	// Forgot Password Cheat Sheet's advice for a token sent by e-mail
	// being short-lived.
	LinkTTL = 15 * time.Minute
	// LinkWindow and MaxLinksPerAddress cap the links asked for one
	// address: at most MaxLinksPerAddress per rolling LinkWindow, whether
	// or not the address is a person's, so that asking reveals nothing.
	LinkWindow         = time.Hour
	MaxLinksPerAddress = 5
	// SignInLinkPath is where a sign-in link points, under the service's
	// public address, with ?token=.
	SignInLinkPath = "/signin/link"
)

// Errors of the e-mail methods, beside the board's validation errors and
// mailbox's (*[mailbox.LimitError] for a cap reached).
var (
	// ErrNoMail: this board sends no e-mail, so a person can neither add
	// an address nor sign in by a link.
	ErrNoMail = errors.New("people: this board sends no e-mail")
	// ErrLink: a sign-in link this board did not send, or one used
	// already or past [LinkTTL]. The person asks for a new one.
	ErrLink = errors.New("people: sign-in link not accepted")
)

// Mailer queues, inside the transaction that makes a sign-in link, the
// message that carries it (package notify's Mail, through the outbox):
// the link is stored only with its message.
type Mailer interface {
	SignInLink(ctx context.Context, tx bun.Tx, at time.Time, l Link) error
}

// Link is a sign-in link to send.
type Link struct {
	// To is the person, their confirmed address and its unsubscribe
	// token.
	To mailbox.Recipient
	// Token signs in once ([Store.SignInByLink]); only its hash is
	// stored, so this is the one chance to send it.
	Token   string
	Expires time.Time
}

// Mail reports whether people can add an address and sign in by e-mail
// here ([Options.Mail] and [Options.Mailer] are set).
func (s *Store) Mail() bool { return s.mail != nil }

// AddEmail registers addr as person id's address, pending until the link
// of the confirmation message confirms it: mailbox's double opt-in for
// the forecaster id ([mailbox.Box.Register]), with the person's name kept.
//
// Errors: [ErrNoMail]; [board.ErrNotFound] (wrapped) for an id that is no
// person's; mailbox's errors (a *[board.ValidationError] on email, a
// conflict when another forecaster confirmed the address, a
// *[mailbox.LimitError]).
func (s *Store) AddEmail(ctx context.Context, id, addr string) (mailbox.Registered, error) {
	if s.mail == nil {
		return mailbox.Registered{}, ErrNoMail
	}
	a, err := s.board.Agent(ctx, id)
	if err != nil {
		return mailbox.Registered{}, err
	}
	if a.Kind != board.KindPerson {
		return mailbox.Registered{}, fmt.Errorf("%w: %q is not a person", board.ErrNotFound, id)
	}
	// The name is given so that the mailbox does not derive one from the
	// address in place of a name that is the id.
	return s.mail.Register(ctx, mailbox.Registration{AgentID: id, AgentName: a.Name, Email: addr})
}

// Email is person id's confirmed address, "" when none (or when it
// unsubscribed, or the board sends no e-mail).
func (s *Store) Email(ctx context.Context, id string) (string, error) {
	if s.mail == nil {
		return "", nil
	}
	if err := s.mail.Migrate(ctx); err != nil {
		return "", err
	}
	rs, err := mailbox.Owner(ctx, s.read, id)
	if err != nil || len(rs) == 0 {
		return "", err
	}
	return rs[0].Email, nil
}

// SendSignInLink queues a single-use sign-in link, valid for [LinkTTL],
// to addr when it is the confirmed address of a person (never an
// agent's, and not one that unsubscribed), in one transaction with the
// link. It answers alike whether or not it sent one, so that nobody
// learns from it which addresses are people's.
//
// Errors: [ErrNoMail]; a *[board.ValidationError] on email when addr is
// not an address; a *[mailbox.LimitError] on email when
// [MaxLinksPerAddress] were asked for in the last [LinkWindow].
func (s *Store) SendSignInLink(ctx context.Context, addr string) error {
	if s.mail == nil {
		return ErrNoMail
	}
	a, _, err := mailbox.CheckEmail(addr)
	if err != nil {
		return err
	}
	if err := s.mail.Migrate(ctx); err != nil {
		return err
	}
	key := strings.ToLower(a)
	return s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.board.Now()
		var times []time.Time
		if err := tx.NewRaw(`SELECT created_at FROM signin_links WHERE email_key = ? AND created_at > ? ORDER BY created_at`,
			key, now.Add(-LinkWindow)).Scan(ctx, &times); err != nil {
			return err
		}
		if len(times) >= MaxLinksPerAddress {
			retry := times[len(times)-MaxLinksPerAddress].Add(LinkWindow).Sub(now)
			return &mailbox.LimitError{Field: "email", RetryAfter: retry,
				Problem: fmt.Sprintf("had %d sign-in links asked for it in the last %d minutes; the limit is %d", len(times), int(LinkWindow.Minutes()), MaxLinksPerAddress),
				Hint:    fmt.Sprintf("use the latest link sent, or ask again in %s", retry.Round(time.Minute))}
		}
		to, err := s.personByEmail(ctx, tx, a)
		if err != nil {
			return err
		}
		token, hash, err := newToken()
		if err != nil {
			return err
		}
		expires := now.Add(LinkTTL)
		if _, err := tx.ExecContext(ctx, `INSERT INTO signin_links (token_hash, email_key, person_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			hash, key, to.AgentID, now, expires); err != nil {
			return err
		}
		if to.AgentID == "" {
			return nil
		}
		return s.mailer.SignInLink(ctx, tx, now, Link{To: to, Token: token, Expires: expires})
	})
}

// personByEmail is the person whose confirmed address is addr, read in
// tx; the zero Recipient when it is no person's (an agent's, none, or
// one that unsubscribed).
func (s *Store) personByEmail(ctx context.Context, tx bun.Tx, addr string) (mailbox.Recipient, error) {
	rs, err := mailbox.ByEmail(ctx, tx, addr)
	if err != nil || len(rs) == 0 {
		return mailbox.Recipient{}, err
	}
	// Only a person has a row in people: an agent's address signs nobody in.
	var n int
	if err := tx.NewRaw(`SELECT COUNT(*) FROM people WHERE person_id = ?`, rs[0].AgentID).Scan(ctx, &n); err != nil {
		return mailbox.Recipient{}, err
	}
	if n == 0 {
		return mailbox.Recipient{}, nil
	}
	return rs[0], nil
}

// SignInByLink signs in the person whose sign-in link carries token, and
// uses the link up: it works once, within [LinkTTL].
//
// Errors: [ErrLink] (wrapped, saying why) for a token this board did not
// send, one used already, or one past its time.
func (s *Store) SignInByLink(ctx context.Context, token string) (Session, error) {
	const hint = "ask for a new link on the sign-in page"
	if token == "" || len(token) > 64 {
		return Session{}, fmt.Errorf("%w: this is not a sign-in link of this board; %s", ErrLink, hint)
	}
	var out Session
	err := s.board.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.board.Now()
		hash := hashToken(token)
		var rows []struct {
			PersonID string       `bun:"person_id"`
			Expires  time.Time    `bun:"expires_at"`
			Used     bun.NullTime `bun:"used_at"`
		}
		if err := tx.NewRaw(`SELECT person_id, expires_at, used_at FROM signin_links WHERE token_hash = ?`+s.board.LockClause(),
			hash).Scan(ctx, &rows); err != nil {
			return err
		}
		switch {
		case len(rows) == 0 || rows[0].PersonID == "":
			return fmt.Errorf("%w: this is not a sign-in link of this board; %s", ErrLink, hint)
		case !rows[0].Used.IsZero():
			return fmt.Errorf("%w: this link was used already, at %s, and works once; %s", ErrLink, rows[0].Used.UTC().Format(time.RFC3339), hint)
		case !now.Before(rows[0].Expires):
			return fmt.Errorf("%w: this link expired at %s, %v after it was sent; %s", ErrLink, rows[0].Expires.UTC().Format(time.RFC3339), LinkTTL, hint)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE signin_links SET used_at = ? WHERE token_hash = ?`, now, hash); err != nil {
			return err
		}
		var ps []struct {
			ID   string `bun:"person_id"`
			Name string `bun:"name"`
		}
		if err := tx.NewRaw(`SELECT p.person_id, a.name FROM people AS p JOIN agents AS a ON a.id = p.person_id WHERE p.person_id = ?`,
			rows[0].PersonID).Scan(ctx, &ps); err != nil {
			return err
		}
		if len(ps) == 0 {
			return fmt.Errorf("%w: this link's person is no longer on this board", ErrLink)
		}
		var err error
		out, err = s.startSession(ctx, tx, Person{ID: ps[0].ID, Name: ps[0].Name})
		return err
	})
	return out, err
}

// FollowerIDs are the people who follow prediction predictionID, read
// through db (normally the transaction of the change that is told).
func (s *Store) FollowerIDs(ctx context.Context, db bun.IDB, predictionID string) ([]string, error) {
	var ids []string
	err := db.NewRaw(`SELECT person_id FROM follows WHERE prediction_id = ? ORDER BY person_id`, predictionID).Scan(ctx, &ids)
	return ids, err
}
