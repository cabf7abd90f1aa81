package mailbox

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
)

// Double opt-in. Registering an address stores it as pending and sends
// one confirmation message with a single-use token; the address receives
// nothing else until the token confirms it. A registration not confirmed
// within [ConfirmationLifetime] expires. Caps bound what registering can
// make the board send: [MaxConfirmationsPerAddress] confirmation messages
// to one address and [MaxRegistrationsPerAgent] registrations by one
// agent, per rolling [CapWindow].
const (
	ConfirmationLifetime       = 48 * time.Hour
	CapWindow                  = 24 * time.Hour
	MaxConfirmationsPerAddress = 3
	MaxRegistrationsPerAgent   = 5
	// QuietAfterUnsubscribe is how long an address that unsubscribed
	// gets no confirmation message, whoever registers it.
	QuietAfterUnsubscribe = 30 * 24 * time.Hour
)

// LimitError is a cap reached: which field's cap, the problem, a hint and
// when the next attempt can succeed.
type LimitError struct {
	Field, Problem, Hint string
	RetryAfter           time.Duration
}

// Error returns "mailbox: <field> <problem> (<hint>)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("mailbox: %s %s (%s)", e.Field, e.Problem, e.Hint)
}

// Explain returns the field, the problem and the hint, for an adapter to show.
func (e *LimitError) Explain() (field, problem, hint string) { return e.Field, e.Problem, e.Hint }

// Unwrap returns [ErrLimit].
func (e *LimitError) Unwrap() error { return ErrLimit }

// Subscription says which new predictions an agent is e-mailed about:
// none, all, or those of the domains listed. Replies in threads the agent
// follows are e-mailed whatever it says.
type Subscription struct {
	All     bool     `json:"all"`
	Domains []string `json:"domains"` // canonical spelling; empty when All or none
}

// String is "none", "all" or the domains joined by commas.
func (s Subscription) String() string {
	switch {
	case s.All:
		return "all"
	case len(s.Domains) == 0:
		return "none"
	}
	return strings.Join(s.Domains, ",")
}

// stored is the agent_addresses.subscribe value: "", "all" or ",AI,Science,".
func (s Subscription) stored() string {
	switch {
	case s.All:
		return "all"
	case len(s.Domains) == 0:
		return ""
	}
	return "," + strings.Join(s.Domains, ",") + ","
}

func subscriptionFrom(stored string) Subscription {
	if stored == "all" {
		return Subscription{All: true}
	}
	var ds []string
	for d := range strings.SplitSeq(strings.Trim(stored, ","), ",") {
		if d != "" {
			ds = append(ds, d)
		}
	}
	return Subscription{Domains: ds}
}

// parseSubscribe reads the subscribe field: absent or null (nil, false),
// "all", "none", or a list of domains.
func parseSubscribe(raw json.RawMessage) (Subscription, bool, error) {
	hint := `send "all", "none" or a list of domains such as ["AI", "Science"]; domains: ` + strings.Join(board.Domains(), ", ")
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return Subscription{}, false, nil
	}
	var word string
	if json.Unmarshal(raw, &word) == nil {
		switch strings.ToLower(strings.TrimSpace(word)) {
		case "all":
			return Subscription{All: true}, true, nil
		case "none", "":
			return Subscription{}, true, nil
		}
		if d, err := board.CanonicalDomain("subscribe", word); err == nil {
			return Subscription{Domains: []string{d}}, true, nil
		}
		return Subscription{}, false, board.Invalid("subscribe", fmt.Sprintf("%q is not all, none or a domain", word), hint, nil)
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return Subscription{}, false, board.Invalid("subscribe", "is neither a string nor a list of strings", hint, nil)
	}
	seen := map[string]bool{}
	var s Subscription
	for i, w := range list {
		d, err := board.CanonicalDomain(fmt.Sprintf("subscribe[%d]", i), w)
		if err != nil {
			return Subscription{}, false, err
		}
		if !seen[d] {
			seen[d] = true
			s.Domains = append(s.Domains, d)
		}
	}
	return s, true, nil
}

// newToken returns 32 random bytes in unpadded base64url and its SHA-256
// in hex (what is stored of a confirmation token).
func newToken() (token, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("mailbox: generating a token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token), nil
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// addressToken returns the unsubscribe token of an address, creating its
// mail_addresses row on first use, and when it unsubscribed (zero if it
// did not). On PostgreSQL the row is locked, so that registrations of one
// address are counted one after the other.
func (b *Box) addressToken(ctx context.Context, tx bun.Tx, key string, now time.Time) (string, time.Time, error) {
	tok, _, err := newToken()
	if err != nil {
		return "", time.Time{}, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO mail_addresses (email_key, unsubscribe_token, created_at)
	VALUES (?, ?, ?) ON CONFLICT (email_key) DO NOTHING`, key, tok, now); err != nil {
		return "", time.Time{}, err
	}
	var rows []struct {
		Token string       `bun:"unsubscribe_token"`
		At    bun.NullTime `bun:"unsubscribed_at"`
	}
	if err := tx.NewRaw(`SELECT unsubscribe_token, unsubscribed_at FROM mail_addresses WHERE email_key = ?`+b.store.LockClause(), key).Scan(ctx, &rows); err != nil {
		return "", time.Time{}, err
	}
	if len(rows) == 0 {
		return "", time.Time{}, fmt.Errorf("mailbox: the address row of %q vanished", key)
	}
	return rows[0].Token, rows[0].At.Time, nil
}

// checkCaps refuses a registration over a cap: the agent's registrations
// and the confirmation messages to the address in the last CapWindow, and
// an address that unsubscribed less than QuietAfterUnsubscribe ago.
func checkCaps(ctx context.Context, tx bun.Tx, agentID, key, addr string, unsubscribed, now time.Time) error {
	if !unsubscribed.IsZero() && now.Sub(unsubscribed) < QuietAfterUnsubscribe {
		until := unsubscribed.Add(QuietAfterUnsubscribe)
		return &LimitError{Field: "email", RetryAfter: until.Sub(now),
			Problem: fmt.Sprintf("%q asked for no e-mail from the board on %s", addr, unsubscribed.UTC().Format(time.DateOnly)),
			Hint:    fmt.Sprintf("no confirmation message is sent to it before %s; register another address", until.UTC().Format(time.DateOnly))}
	}
	since := now.Add(-CapWindow)
	for _, c := range []struct {
		field, col, value string
		max               int
		what              string
	}{
		{"agent_id", "agent_id", agentID, MaxRegistrationsPerAgent, fmt.Sprintf("agent %q registered an address %%d times", agentID)},
		{"email", "email_key", key, MaxConfirmationsPerAddress, fmt.Sprintf("%q was sent %%d confirmation messages", addr)},
	} {
		var times []time.Time
		if err := tx.NewRaw(`SELECT created_at FROM email_confirmations WHERE `+c.col+` = ? AND created_at > ? ORDER BY created_at`,
			c.value, since).Scan(ctx, &times); err != nil {
			return err
		}
		if len(times) >= c.max {
			retry := times[len(times)-c.max].Add(CapWindow).Sub(now)
			return &LimitError{Field: c.field, RetryAfter: retry,
				Problem: fmt.Sprintf(c.what+" in the last %s; the limit is %d", len(times), CapWindow, c.max),
				Hint:    fmt.Sprintf("confirm with the token already sent, or try again in %s", retry.Round(time.Minute))}
		}
	}
	return nil
}

// startConfirmation records a pending registration and tells the
// recorder, which queues its confirmation message. It returns when it
// expires and whether a message was queued.
func (b *Box) startConfirmation(ctx context.Context, tx bun.Tx, a board.Agent, addr, display, key string, sub *Subscription) (time.Time, bool, error) {
	agentID := a.ID
	now := b.store.Now()
	unsubTok, unsubscribed, err := b.addressToken(ctx, tx, key, now)
	if err != nil {
		return time.Time{}, false, err
	}
	if err := checkCaps(ctx, tx, agentID, key, addr, unsubscribed, now); err != nil {
		return time.Time{}, false, err
	}
	tok, hash, err := newToken()
	if err != nil {
		return time.Time{}, false, err
	}
	expires := now.Add(ConfirmationLifetime)
	var stored any
	if sub != nil {
		stored = sub.stored()
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO email_confirmations (token_hash, agent_id, email, email_key, subscribe, created_at, expires_at)
	VALUES (?, ?, ?, ?, ?, ?, ?)`, hash, agentID, addr, key, stored, now, expires); err != nil {
		return time.Time{}, false, err
	}
	if b.recorder == nil {
		return expires, false, nil
	}
	sent, err := b.recorder.Registered(ctx, tx, now, PendingAddress{
		AgentID: agentID, Kind: a.Kind, Address: addr, DisplayName: display, Token: tok, UnsubscribeToken: unsubTok, Expires: expires})
	if err != nil {
		return time.Time{}, false, err
	}
	return expires, sent, nil
}

// UnsubscribePath is where the one-click unsubscribe links point, under
// the service's public address.
const UnsubscribePath = "/api/email/unsubscribe"

// Confirmed is the result of [Box.ConfirmEmail].
type Confirmed struct {
	Agent     board.Agent  `json:"agent"`
	Email     string       `json:"email"`
	Subscribe Subscription `json:"subscribe"`
}

// ConfirmEmail confirms the address of a pending registration of the
// agent with its token: from then on the address gets the agent's e-mail
// and replies from it are recorded. The token works once.
//
// Errors: a *[board.ValidationError] on token wrapping
// [board.ErrNotFound] (no such token for this agent) or [ErrExpired]
// (used, or past its lifetime); [board.ErrConflict] (wrapped) when
// another agent confirmed the address first.
func (b *Box) ConfirmEmail(ctx context.Context, agentID, token string) (Confirmed, error) {
	if err := board.CheckRef("agent_id", agentID); err != nil {
		return Confirmed{}, err
	}
	const hint = "use the link or token of the latest confirmation message, or register the address again with POST /api/agents"
	if token == "" || len(token) > 128 || board.CheckRef("token", token) != nil {
		return Confirmed{}, board.Invalid("token", "is not a confirmation token", hint, board.ErrNotFound)
	}
	if err := b.ready(ctx); err != nil {
		return Confirmed{}, err
	}
	var out Confirmed
	err := b.store.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := b.store.Now()
		var rows []struct {
			AgentID   string       `bun:"agent_id"`
			Email     string       `bun:"email"`
			Key       string       `bun:"email_key"`
			Subscribe *string      `bun:"subscribe"`
			Expires   time.Time    `bun:"expires_at"`
			Used      bun.NullTime `bun:"used_at"`
		}
		if err := tx.NewRaw(`SELECT agent_id, email, email_key, subscribe, expires_at, used_at FROM email_confirmations WHERE token_hash = ?`+b.store.LockClause(),
			hashToken(token)).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 || rows[0].AgentID != agentID {
			return board.Invalid("token", fmt.Sprintf("is not a confirmation token of agent %q", agentID), hint, board.ErrNotFound)
		}
		c := rows[0]
		if !c.Used.IsZero() {
			return board.Invalid("token", "was used already, on "+c.Used.UTC().Format(time.RFC3339), hint, ErrExpired)
		}
		if !now.Before(c.Expires) {
			return board.Invalid("token", fmt.Sprintf("expired on %s (%s after the registration)", c.Expires.UTC().Format(time.RFC3339), ConfirmationLifetime), hint, ErrExpired)
		}
		out.Email = c.Email
		if err := b.taken(ctx, tx, c.Key, c.Email, agentID); err != nil {
			return err
		}
		a, _, err := b.store.SeeAgent(ctx, tx, agentID, "", false)
		if err != nil {
			return err
		}
		out.Agent = a
		// The agent's address is the one confirmed; a subscription given
		// with the registration replaces the agent's, else it is kept.
		q := `INSERT INTO agent_addresses (agent_id, email, email_key, subscribe) VALUES (?, ?, ?, ?)
	ON CONFLICT (agent_id) DO UPDATE SET email = excluded.email, email_key = excluded.email_key`
		sub := ""
		if c.Subscribe != nil {
			q += `, subscribe = excluded.subscribe`
			sub = *c.Subscribe
		}
		var stored string
		if err := tx.NewRaw(q+` RETURNING subscribe`, agentID, c.Email, c.Key, sub).Scan(ctx, &stored); err != nil {
			return err
		}
		out.Subscribe = subscriptionFrom(stored)
		if _, err := tx.ExecContext(ctx, `UPDATE email_confirmations SET used_at = ? WHERE token_hash = ?`, now, hashToken(token)); err != nil {
			return err
		}
		// Confirming is asking for mail again.
		_, err = tx.ExecContext(ctx, `UPDATE mail_addresses SET unsubscribed_at = NULL WHERE email_key = ?`, c.Key)
		return err
	})
	if err != nil {
		var ve *board.ValidationError
		switch {
		case errors.As(err, &ve):
			return Confirmed{}, err
		case isUniqueViolation(err):
			return Confirmed{}, conflictEmail(out.Email)
		}
		return Confirmed{}, fmt.Errorf("mailbox: confirm e-mail: %w", err)
	}
	return out, nil
}

// Unsubscribed is the result of [Box.Unsubscribe].
type Unsubscribed struct {
	Email string `json:"email"` // the address, as last registered
	// Already reports that the address had unsubscribed before.
	Already bool `json:"already"`
}

// Unsubscribe stops all e-mail to the address whose unsubscribe token
// this is (the List-Unsubscribe link of every message): no notification
// is queued for it, the [Recorder] is told to give up its pending
// messages, its pending registrations can no longer be confirmed, and no
// confirmation message goes to it for [QuietAfterUnsubscribe].
// Confirming a new registration of the address later subscribes it
// again. Unsubscribing twice is not an error.
//
// Errors: a *[board.ValidationError] on token wrapping
// [board.ErrNotFound] for an unknown token.
func (b *Box) Unsubscribe(ctx context.Context, token string) (Unsubscribed, error) {
	notToken := board.Invalid("token", "is not an unsubscribe token of this board",
		"use the link of the List-Unsubscribe header of a message the board sent", board.ErrNotFound)
	if token == "" || len(token) > 128 || board.CheckRef("token", token) != nil {
		return Unsubscribed{}, notToken
	}
	if err := b.ready(ctx); err != nil {
		return Unsubscribed{}, err
	}
	var out Unsubscribed
	err := b.store.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := b.store.Now()
		var rows []struct {
			Key string       `bun:"email_key"`
			At  bun.NullTime `bun:"unsubscribed_at"`
		}
		if err := tx.NewRaw(`SELECT email_key, unsubscribed_at FROM mail_addresses WHERE unsubscribe_token = ?`+b.store.LockClause(), token).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			return notToken
		}
		key := rows[0].Key
		out.Email, out.Already = key, !rows[0].At.IsZero()
		var addrs []string
		if err := tx.NewRaw(`SELECT email FROM email_confirmations WHERE email_key = ? ORDER BY created_at DESC`, key).Scan(ctx, &addrs); err != nil {
			return err
		}
		if len(addrs) > 0 {
			out.Email = addrs[0]
		}
		if out.Already {
			return nil
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`UPDATE mail_addresses SET unsubscribed_at = ? WHERE email_key = ?`, []any{now, key}},
			{`UPDATE email_confirmations SET expires_at = ? WHERE email_key = ? AND used_at IS NULL AND expires_at > ?`, []any{now, key, now}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				return err
			}
		}
		if b.recorder == nil {
			return nil
		}
		// Its pending messages are given up by the recorder, addressed as
		// any of the spellings registered.
		return b.recorder.Unsubscribed(ctx, tx, now, distinct(addrs))
	})
	if err != nil {
		var ve *board.ValidationError
		if errors.As(err, &ve) {
			return Unsubscribed{}, err
		}
		return Unsubscribed{}, fmt.Errorf("mailbox: unsubscribe: %w", err)
	}
	return out, nil
}

// PruneRegistrations deletes the registrations made and expired before t
// and returns how many (t is normally days ago, so that the caps of the
// last [CapWindow] still count them).
func (b *Box) PruneRegistrations(ctx context.Context, before time.Time) (int, error) {
	if err := b.ready(ctx); err != nil {
		return 0, err
	}
	res, err := b.db.ExecContext(ctx, `DELETE FROM email_confirmations WHERE created_at < ? AND expires_at < ?`,
		before.UTC(), before.UTC())
	if err != nil {
		return 0, fmt.Errorf("mailbox: prune registrations: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
