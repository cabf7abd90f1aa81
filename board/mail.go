package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
)

// MailOptions are the board's e-mail address, by which [Store.ReceiveMail]
// matches an inbound reply to its prediction: the plus address naming the
// prediction (board+<id>@example.org) and the domain of the
// notifications' Message-IDs ([email.IDDomain]). Sending is not the
// board's: a [Recorder] queues the messages.
type MailOptions struct {
	// From is the board's address, such as board@example.org. Required.
	From mail.Address
	// BaseURL is the public address of the service, such as
	// https://predictions.example.org, whose host names the Message-IDs;
	// "" means the domain of From.
	BaseURL string
}

// mailConfig is the checked form of MailOptions.
type mailConfig struct {
	from   mail.Address
	domain string // right-hand side of Message-IDs
}

func newMailConfig(o *MailOptions) (*mailConfig, error) {
	if o == nil {
		return nil, nil
	}
	d, err := email.IDDomain(o.From.Address, strings.TrimRight(o.BaseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("%w: Mail: %v", ErrInvalid, err)
	}
	return &mailConfig{from: o.From, domain: d}, nil
}

// Registration is the input of [Store.Register]. Its JSON tags match the
// body of POST /api/agents.
type Registration struct {
	AgentID string `json:"agent_id"`
	// AgentName is the display name; when omitted it is derived from Email
	// (see [Store.Register]).
	AgentName string `json:"agent_name,omitempty"`
	// Email is the agent's address, optionally with a display name:
	// "ada@example.org" or "Ada Lovelace <ada@example.org>".
	Email string `json:"email"`
	// Subscribe says which new predictions the agent is e-mailed about:
	// "all", "none", or a list of domains (["AI", "Science"]). Omitted
	// means none for a new address and no change otherwise. It takes
	// effect when the address is confirmed (at once for the confirmed
	// address).
	Subscribe json.RawMessage `json:"subscribe,omitempty"`
}

// RegistrationStatus says what [Store.Register] did.
type RegistrationStatus string

// The registration statuses.
const (
	// ConfirmationSent: the address is pending and a confirmation message
	// is queued.
	ConfirmationSent RegistrationStatus = "confirmation_sent"
	// ConfirmationNotSent: the address is pending but no confirmation
	// message was queued (the board has no [Recorder], or it sends no
	// e-mail).
	ConfirmationNotSent RegistrationStatus = "confirmation_not_sent"
	// AlreadyConfirmed: the address is the agent's confirmed one; only the
	// name and the subscription were updated.
	AlreadyConfirmed RegistrationStatus = "already_confirmed"
)

// Registered is the result of [Store.Register].
type Registered struct {
	Agent Agent  `json:"agent"`
	Email string `json:"email"` // the address registered, without display name
	// Confirmed is the agent's confirmed address, which keeps getting the
	// agent's e-mail until another is confirmed; "" when none.
	Confirmed string `json:"confirmed_email,omitempty"`
	// Status says whether a confirmation message was queued.
	Status RegistrationStatus `json:"status"`
	// ExpiresAt is when the pending registration expires; nil for
	// AlreadyConfirmed.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Subscribe is the agent's subscription now; a new one given with a
	// pending address applies when it is confirmed (Pending).
	Subscribe        Subscription  `json:"subscribe"`
	PendingSubscribe *Subscription `json:"pending_subscribe,omitempty"`
	// Created reports that the agent did not exist before.
	Created bool `json:"created"`
}

// MaxEmail is the longest address accepted, in bytes (RFC 5321's limit on
// a forward path, less the angle brackets).
const MaxEmail = 254

// checkEmail parses an address; it returns the bare address and the
// display name ("" when none).
func checkEmail(s string) (addr, name string, err error) {
	const hint = `send an address such as "ada@example.org" or "Ada Lovelace <ada@example.org>"`
	t := strings.TrimSpace(s)
	if t == "" {
		return "", "", invalid("email", "is required", hint)
	}
	if !utf8.ValidString(t) {
		return "", "", invalid("email", "is not valid UTF-8", hint)
	}
	a, perr := mail.ParseAddress(t)
	if perr != nil {
		return "", "", invalid("email", fmt.Sprintf("%q is not an e-mail address: %v", s, perr), hint)
	}
	if len(a.Address) > MaxEmail {
		return "", "", invalid("email", fmt.Sprintf("is %d bytes long; the maximum is %d", len(a.Address), MaxEmail), hint)
	}
	local, domain, _ := strings.Cut(a.Address, "@")
	if !strings.Contains(domain, ".") && !strings.EqualFold(domain, "localhost") {
		return "", "", invalid("email", fmt.Sprintf("%q has no domain with a dot after the @", a.Address), hint)
	}
	if local == "" || strings.ContainsAny(a.Address, " \t\r\n") {
		return "", "", invalid("email", fmt.Sprintf("%q is not an address mail can be sent to", a.Address), hint)
	}
	return a.Address, a.Name, nil
}

// nameFromEmail derives a display name from an address: its display name
// if it has one, else its local part, cleaned of control characters and
// cut to MaxAgentName characters; "" when nothing printable is left (the
// caller then keeps the default, the agent id).
func nameFromEmail(addr, display string) string {
	clean := func(n string) string {
		n = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, n)
		n = strings.Join(strings.Fields(n), " ")
		if utf8.RuneCountInString(n) > MaxAgentName {
			n = strings.TrimSpace(string([]rune(n)[:MaxAgentName]))
		}
		return n
	}
	if n := clean(display); n != "" {
		return n
	}
	local, _, _ := strings.Cut(addr, "@")
	return clean(local)
}

// Register records an agent's e-mail address as pending and queues one
// confirmation message to it (double opt-in, see [Store.ConfirmEmail]),
// creating the agent if it does not exist yet. Nothing else is sent to
// the address until it is confirmed; the registration expires after
// [ConfirmationLifetime]. Registering the agent's confirmed address again
// sends nothing and only updates the name and the subscription.
// Confirmed addresses are unique among agents without regard to case.
//
// The display name becomes r.AgentName when given. When omitted, it is
// derived from the address, as the specification says: the display name
// of "Ada Lovelace <ada@example.org>", else the local part ("ada"); it
// then replaces only the default name (the agent id), never a name the
// agent chose. Registering counts as the agent's activity (last_seen).
//
// Errors: a *[ValidationError] for an invalid agent_id, agent_name, email
// or subscribe; [ErrConflict] (wrapped) when another agent confirmed the
// address; a *[LimitError] ([ErrLimit]) over [MaxRegistrationsPerAgent]
// or [MaxConfirmationsPerAddress] in [CapWindow], or for an address that
// unsubscribed less than [QuietAfterUnsubscribe] ago.
func (s *Store) Register(ctx context.Context, r Registration) (Registered, error) {
	if err := checkAgentID(r.AgentID); err != nil {
		return Registered{}, err
	}
	name, err := checkAgentName(r.AgentName)
	if err != nil {
		return Registered{}, err
	}
	addr, display, err := checkEmail(r.Email)
	if err != nil {
		return Registered{}, err
	}
	sub, subGiven, err := parseSubscribe(r.Subscribe)
	if err != nil {
		return Registered{}, err
	}
	given := name != ""
	if !given {
		if name = nameFromEmail(addr, display); name == "" {
			name = r.AgentID
		}
	}
	key := strings.ToLower(addr)
	now := s.clock()
	flags := s.flags(name)
	out := Registered{Email: addr}
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var other []string
		if err := tx.NewRaw(`SELECT id FROM agents WHERE email_key = ? AND id <> ?`, key, r.AgentID).Scan(ctx, &other); err != nil {
			return err
		}
		if len(other) > 0 {
			return conflictEmail(addr)
		}
		var prev []struct {
			Name     string         `bun:"name"`
			Email    sql.NullString `bun:"email"`
			EmailKey sql.NullString `bun:"email_key"`
		}
		if err := tx.NewRaw(`SELECT name, email, email_key FROM agents WHERE id = ?`+s.forUpdate(), r.AgentID).Scan(ctx, &prev); err != nil {
			return err
		}
		if len(prev) == 0 {
			out.Created = true
			if _, err := tx.ExecContext(ctx, `INSERT INTO agents (id, name, flags, first_seen, last_seen)
	VALUES (?, ?, ?, ?, ?)`, r.AgentID, name, flags, now, now); err != nil {
				return err
			}
		} else {
			out.Confirmed = prev[0].Email.String
			set, args := `last_seen = ?`, []any{now}
			if given || prev[0].Name == r.AgentID {
				set += `, name = ?, flags = ?`
				args = append(args, name, flags)
			}
			if prev[0].EmailKey.String == key && subGiven {
				set += `, subscribe = ?`
				args = append(args, sub.stored())
			}
			if _, err := tx.ExecContext(ctx, `UPDATE agents SET `+set+` WHERE id = ?`, append(args, r.AgentID)...); err != nil {
				return err
			}
			if prev[0].EmailKey.String == key {
				out.Status = AlreadyConfirmed
				return nil
			}
		}
		var pending *Subscription
		if subGiven {
			pending = &sub
			out.PendingSubscribe = &sub
		}
		expires, sent, err := s.startConfirmation(ctx, tx, r.AgentID, addr, display, key, pending, now)
		if err != nil {
			return err
		}
		out.ExpiresAt, out.Status = &expires, ConfirmationSent
		if !sent {
			out.Status = ConfirmationNotSent
		}
		return nil
	})
	if err != nil {
		var ve *ValidationError
		var le *LimitError
		switch {
		case errors.Is(err, ErrConflict) || errors.As(err, &ve) || errors.As(err, &le):
			return Registered{}, err
		case isUniqueViolation(err): // a concurrent registration of the same agent won
			return Registered{}, fmt.Errorf("%w: a registration of agent %q at the same time won; try again", ErrLimit, r.AgentID)
		}
		return Registered{}, fmt.Errorf("board: register: %w", err)
	}
	if out.Agent, out.Subscribe, err = s.agentWithSubscription(ctx, r.AgentID); err != nil {
		return Registered{}, err
	}
	return out, nil
}

func conflictEmail(addr string) error {
	return &ValidationError{Field: "email", Problem: fmt.Sprintf("%q is already registered by another agent", addr),
		Hint: "register an address of your own; a confirmed address belongs to one agent (compared without regard to case)", err: ErrConflict}
}

// isUniqueViolation reports a unique index violation on either database.
func isUniqueViolation(err error) bool { return database.UniqueViolation(err) }

// agentFrom reads one agent through db (the write pool right after a
// write, so that a SQLite reader cannot miss it).
func (s *Store) agentFrom(ctx context.Context, db bun.IDB, id string) (Agent, error) {
	var rows []agentRow
	if err := db.NewRaw(`SELECT `+agentCols+` FROM agents WHERE id = ?`, id).Scan(ctx, &rows); err != nil {
		return Agent{}, fmt.Errorf("board: agent: %w", err)
	}
	if len(rows) == 0 {
		return Agent{}, notFound("agent", id)
	}
	return rows[0].agent(), nil
}

// AgentByEmail returns the agent whose confirmed address is addr,
// compared without regard to case. addr may carry a display name ("Ada <ada@example.org>").
//
// Errors: [ErrNotFound] (wrapped) when no agent confirmed it; a
// *[ValidationError] when addr is not an address.
func (s *Store) AgentByEmail(ctx context.Context, addr string) (Agent, error) {
	a, _, err := checkEmail(addr)
	if err != nil {
		return Agent{}, err
	}
	var rows []agentRow
	if err := s.read.NewRaw(`SELECT `+agentCols+` FROM agents WHERE email_key = ?`, strings.ToLower(a)).Scan(ctx, &rows); err != nil {
		return Agent{}, fmt.Errorf("board: agent by e-mail: %w", err)
	}
	if len(rows) == 0 {
		return Agent{}, fmt.Errorf("%w: no agent registered the address %q", ErrNotFound, a)
	}
	return rows[0].agent(), nil
}
