package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database"
)

// Registration is the input of [Box.Register]. Its JSON tags match the
// body of POST /api/agents.
type Registration struct {
	AgentID string `json:"agent_id"`
	// AgentName is the display name; when omitted it is derived from Email
	// (see [Box.Register]).
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

// RegistrationStatus says what [Box.Register] did.
type RegistrationStatus string

// The registration statuses.
const (
	// ConfirmationSent: the address is pending and a confirmation message
	// is queued.
	ConfirmationSent RegistrationStatus = "confirmation_sent"
	// ConfirmationNotSent: the address is pending but no confirmation
	// message was queued (the box has no [Recorder], or it sends no
	// e-mail).
	ConfirmationNotSent RegistrationStatus = "confirmation_not_sent"
	// AlreadyConfirmed: the address is the agent's confirmed one; only the
	// name and the subscription were updated.
	AlreadyConfirmed RegistrationStatus = "already_confirmed"
)

// Registered is the result of [Box.Register].
type Registered struct {
	Agent board.Agent `json:"agent"`
	Email string      `json:"email"` // the address registered, without display name
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

// CheckEmail parses an address as every form of the board takes it
// ("ada@example.org" or "Ada Lovelace <ada@example.org>"); it returns the
// bare address and the display name ("" when none).
//
// Errors: a *[board.ValidationError] on email saying what is wrong.
func CheckEmail(s string) (addr, name string, err error) {
	const hint = `send an address such as "ada@example.org" or "Ada Lovelace <ada@example.org>"`
	invalid := func(problem string) error { return board.Invalid("email", problem, hint, nil) }
	t := strings.TrimSpace(s)
	if t == "" {
		return "", "", invalid("is required")
	}
	if !utf8.ValidString(t) {
		return "", "", invalid("is not valid UTF-8")
	}
	a, perr := mail.ParseAddress(t)
	if perr != nil {
		return "", "", invalid(fmt.Sprintf("%q is not an e-mail address: %v", s, perr))
	}
	if len(a.Address) > MaxEmail {
		return "", "", invalid(fmt.Sprintf("is %d bytes long; the maximum is %d", len(a.Address), MaxEmail))
	}
	local, domain, _ := strings.Cut(a.Address, "@")
	if !strings.Contains(domain, ".") && !strings.EqualFold(domain, "localhost") {
		return "", "", invalid(fmt.Sprintf("%q has no domain with a dot after the @", a.Address))
	}
	if local == "" || strings.ContainsAny(a.Address, " \t\r\n") {
		return "", "", invalid(fmt.Sprintf("%q is not an address mail can be sent to", a.Address))
	}
	return a.Address, a.Name, nil
}

// nameFromEmail derives a display name from an address: its display name
// if it has one, else its local part, cleaned of control characters and
// cut to [board.MaxAgentName] characters; "" when nothing printable is
// left (the caller then keeps the default, the agent id).
func nameFromEmail(addr, display string) string {
	clean := func(n string) string {
		n = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, n)
		n = strings.Join(strings.Fields(n), " ")
		if utf8.RuneCountInString(n) > board.MaxAgentName {
			n = strings.TrimSpace(string([]rune(n)[:board.MaxAgentName]))
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
// confirmation message to it (double opt-in, see [Box.ConfirmEmail]),
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
// Errors: a *[board.ValidationError] for an invalid agent_id, agent_name,
// email or subscribe; [board.ErrConflict] (wrapped) when another agent
// confirmed the address; a *[LimitError] ([ErrLimit]) over
// [MaxRegistrationsPerAgent] or [MaxConfirmationsPerAddress] in
// [CapWindow], or for an address that unsubscribed less than
// [QuietAfterUnsubscribe] ago.
func (b *Box) Register(ctx context.Context, r Registration) (Registered, error) {
	if err := board.CheckAgentID(r.AgentID); err != nil {
		return Registered{}, err
	}
	name, err := board.CheckAgentName(r.AgentName)
	if err != nil {
		return Registered{}, err
	}
	addr, display, err := CheckEmail(r.Email)
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
	if err := b.ready(ctx); err != nil {
		return Registered{}, err
	}
	key := strings.ToLower(addr)
	var out Registered
	err = b.store.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		out = Registered{Email: addr}
		if err := b.taken(ctx, tx, key, addr, r.AgentID); err != nil {
			return err
		}
		a, created, err := b.store.SeeAgent(ctx, tx, r.AgentID, name, given)
		if err != nil {
			return err
		}
		out.Agent, out.Created = a, created
		var prev []addressRow
		if err := tx.NewRaw(`SELECT email, email_key, subscribe FROM agent_addresses WHERE agent_id = ?`+b.store.LockClause(),
			r.AgentID).Scan(ctx, &prev); err != nil {
			return err
		}
		if len(prev) > 0 {
			out.Confirmed, out.Subscribe = prev[0].Email, subscriptionFrom(prev[0].Subscribe)
			if prev[0].EmailKey == key {
				if subGiven {
					if _, err := tx.ExecContext(ctx, `UPDATE agent_addresses SET subscribe = ? WHERE agent_id = ?`, sub.stored(), r.AgentID); err != nil {
						return err
					}
					out.Subscribe = sub
				}
				out.Status = AlreadyConfirmed
				return nil
			}
		}
		var pending *Subscription
		if subGiven {
			pending = &sub
			out.PendingSubscribe = &sub
		}
		expires, sent, err := b.startConfirmation(ctx, tx, a, addr, display, key, pending)
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
		var ve *board.ValidationError
		var le *LimitError
		switch {
		case errors.Is(err, board.ErrConflict) || errors.As(err, &ve) || errors.As(err, &le):
			return Registered{}, err
		case isUniqueViolation(err): // a concurrent registration of the same agent won
			return Registered{}, fmt.Errorf("%w: a registration of agent %q at the same time won; try again", ErrLimit, r.AgentID)
		}
		return Registered{}, fmt.Errorf("mailbox: register: %w", err)
	}
	return out, nil
}

// addressRow is a row of agent_addresses.
type addressRow struct {
	Email     string `bun:"email"`
	EmailKey  string `bun:"email_key"`
	Subscribe string `bun:"subscribe"`
}

// taken refuses an address another agent confirmed.
func (b *Box) taken(ctx context.Context, tx bun.Tx, key, addr, agentID string) error {
	var other []string
	if err := tx.NewRaw(`SELECT agent_id FROM agent_addresses WHERE email_key = ? AND agent_id <> ?`, key, agentID).Scan(ctx, &other); err != nil {
		return err
	}
	if len(other) > 0 {
		return conflictEmail(addr)
	}
	return nil
}

func conflictEmail(addr string) error {
	return board.Invalid("email", fmt.Sprintf("%q is already registered by another agent", addr),
		"register an address of your own; a confirmed address belongs to one agent (compared without regard to case)", board.ErrConflict)
}

// AgentByEmail returns the agent whose confirmed address is addr,
// compared without regard to case. addr may carry a display name ("Ada <ada@example.org>").
//
// Errors: [board.ErrNotFound] (wrapped) when no agent confirmed it; a
// *[board.ValidationError] when addr is not an address.
func (b *Box) AgentByEmail(ctx context.Context, addr string) (board.Agent, error) {
	a, _, err := CheckEmail(addr)
	if err != nil {
		return board.Agent{}, err
	}
	if err := b.ready(ctx); err != nil {
		return board.Agent{}, err
	}
	var ids []string
	if err := database.Within(ctx, b.db).NewRaw(`SELECT agent_id FROM agent_addresses WHERE email_key = ?`, strings.ToLower(a)).Scan(ctx, &ids); err != nil {
		return board.Agent{}, fmt.Errorf("mailbox: agent by e-mail: %w", err)
	}
	if len(ids) == 0 {
		return board.Agent{}, fmt.Errorf("%w: no agent registered the address %q", board.ErrNotFound, a)
	}
	return b.store.Agent(ctx, ids[0])
}
