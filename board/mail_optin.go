package board

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

// More sentinel errors of the e-mail methods.
var (
	// ErrLimit: a cap on registrations or confirmation messages is
	// reached. The error is a *[LimitError].
	ErrLimit = errors.New("board: limit reached")
	// ErrExpired: a confirmation token was used already or is past its
	// lifetime. The error is a *[ValidationError] on token.
	ErrExpired = errors.New("board: token expired or used")
)

// LimitError is a cap reached: which field's cap, the problem, a hint and
// when the next attempt can succeed.
type LimitError struct {
	Field, Problem, Hint string
	RetryAfter           time.Duration
}

// Error returns "board: <field> <problem> (<hint>)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("board: %s %s (%s)", e.Field, e.Problem, e.Hint)
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

// stored is the agents.subscribe value: "", "all" or ",AI,Science,".
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
	hint := `send "all", "none" or a list of domains such as ["AI", "Science"]; domains: ` + strings.Join(domains, ", ")
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
		if d, err := canonicalDomain("subscribe", word); err == nil {
			return Subscription{Domains: []string{d}}, true, nil
		}
		return Subscription{}, false, invalid("subscribe", fmt.Sprintf("%q is not all, none or a domain", word), hint)
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return Subscription{}, false, invalid("subscribe", "is neither a string nor a list of strings", hint)
	}
	seen := map[string]bool{}
	var s Subscription
	for i, w := range list {
		d, err := canonicalDomain(fmt.Sprintf("subscribe[%d]", i), w)
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
		return "", "", fmt.Errorf("board: generating a token: %w", err)
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
func (s *Store) addressToken(ctx context.Context, tx bun.Tx, key string, now time.Time) (string, time.Time, error) {
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
	if err := tx.NewRaw(`SELECT unsubscribe_token, unsubscribed_at FROM mail_addresses WHERE email_key = ?`+s.forUpdate(), key).Scan(ctx, &rows); err != nil {
		return "", time.Time{}, err
	}
	if len(rows) == 0 {
		return "", time.Time{}, fmt.Errorf("board: the address row of %q vanished", key)
	}
	return rows[0].Token, rows[0].At.Time, nil
}

// checkCaps refuses a registration over a cap: the agent's registrations
// and the confirmation messages to the address in the last CapWindow, and
// an address that unsubscribed less than QuietAfterUnsubscribe ago.
func (s *Store) checkCaps(ctx context.Context, tx bun.Tx, agentID, key, addr string, unsubscribed, now time.Time) error {
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
func (s *Store) startConfirmation(ctx context.Context, tx bun.Tx, agentID, addr, display, key string, sub *Subscription, now time.Time) (time.Time, bool, error) {
	unsubTok, unsubscribed, err := s.addressToken(ctx, tx, key, now)
	if err != nil {
		return time.Time{}, false, err
	}
	if err := s.checkCaps(ctx, tx, agentID, key, addr, unsubscribed, now); err != nil {
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
	n, err := s.record(ctx, tx, Change{Kind: AddressRegistered, At: now, Registration: &PendingAddress{
		AgentID: agentID, Address: addr, DisplayName: display, Token: tok, UnsubscribeToken: unsubTok, Expires: expires}})
	if err != nil {
		return time.Time{}, false, err
	}
	return expires, n > 0, nil
}

// UnsubscribePath is where the one-click unsubscribe links point, under
// the service's public address.
const UnsubscribePath = "/api/email/unsubscribe"

// Confirmed is the result of [Store.ConfirmEmail].
type Confirmed struct {
	Agent     Agent        `json:"agent"`
	Email     string       `json:"email"`
	Subscribe Subscription `json:"subscribe"`
}

// ConfirmEmail confirms the address of a pending registration of the
// agent with its token: from then on the address gets the agent's e-mail
// and replies from it are recorded. The token works once.
//
// Errors: a *[ValidationError] on token wrapping [ErrNotFound] (no such
// token for this agent) or [ErrExpired] (used, or past its lifetime);
// [ErrConflict] (wrapped) when another agent confirmed the address first.
func (s *Store) ConfirmEmail(ctx context.Context, agentID, token string) (Confirmed, error) {
	if err := checkRef("agent_id", agentID); err != nil {
		return Confirmed{}, err
	}
	const hint = "use the link or token of the latest confirmation message, or register the address again with POST /api/agents"
	if token == "" || len(token) > 128 || checkRef("token", token) != nil {
		return Confirmed{}, &ValidationError{Field: "token", Problem: "is not a confirmation token", Hint: hint, err: ErrNotFound}
	}
	now := s.clock()
	var out Confirmed
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var rows []struct {
			AgentID   string       `bun:"agent_id"`
			Email     string       `bun:"email"`
			Key       string       `bun:"email_key"`
			Subscribe *string      `bun:"subscribe"`
			Expires   time.Time    `bun:"expires_at"`
			Used      bun.NullTime `bun:"used_at"`
		}
		if err := tx.NewRaw(`SELECT agent_id, email, email_key, subscribe, expires_at, used_at FROM email_confirmations WHERE token_hash = ?`+s.forUpdate(),
			hashToken(token)).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 || rows[0].AgentID != agentID {
			return &ValidationError{Field: "token", Problem: fmt.Sprintf("is not a confirmation token of agent %q", agentID), Hint: hint, err: ErrNotFound}
		}
		c := rows[0]
		if !c.Used.IsZero() {
			return &ValidationError{Field: "token", Problem: "was used already, on " + c.Used.UTC().Format(time.RFC3339), Hint: hint, err: ErrExpired}
		}
		if !now.Before(c.Expires) {
			return &ValidationError{Field: "token", Problem: fmt.Sprintf("expired on %s (%s after the registration)", c.Expires.UTC().Format(time.RFC3339), ConfirmationLifetime), Hint: hint, err: ErrExpired}
		}
		var other []string
		if err := tx.NewRaw(`SELECT id FROM agents WHERE email_key = ? AND id <> ?`, c.Key, agentID).Scan(ctx, &other); err != nil {
			return err
		}
		if len(other) > 0 {
			return conflictEmail(c.Email)
		}
		set, args := `email = ?, email_key = ?, last_seen = ?`, []any{c.Email, c.Key, now}
		if c.Subscribe != nil {
			set += `, subscribe = ?`
			args = append(args, *c.Subscribe)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE agents SET `+set+` WHERE id = ?`, append(args, agentID)...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE email_confirmations SET used_at = ? WHERE token_hash = ?`, now, hashToken(token)); err != nil {
			return err
		}
		// Confirming is asking for mail again.
		_, err := tx.ExecContext(ctx, `UPDATE mail_addresses SET unsubscribed_at = NULL WHERE email_key = ?`, c.Key)
		out.Email = c.Email
		return err
	})
	if err != nil {
		var ve *ValidationError
		switch {
		case errors.As(err, &ve):
			return Confirmed{}, err
		case isUniqueViolation(err):
			return Confirmed{}, conflictEmail(out.Email)
		}
		return Confirmed{}, fmt.Errorf("board: confirm e-mail: %w", err)
	}
	a, sub, err := s.agentWithSubscription(ctx, agentID)
	if err != nil {
		return Confirmed{}, err
	}
	out.Agent, out.Subscribe = a, sub
	return out, nil
}

func (s *Store) agentWithSubscription(ctx context.Context, agentID string) (Agent, Subscription, error) {
	a, err := s.agentFrom(ctx, s.write, agentID)
	if err != nil {
		return Agent{}, Subscription{}, err
	}
	var sub []string
	if err := s.write.NewRaw(`SELECT subscribe FROM agents WHERE id = ?`, agentID).Scan(ctx, &sub); err != nil {
		return Agent{}, Subscription{}, fmt.Errorf("board: agent: %w", err)
	}
	if len(sub) == 0 {
		return a, Subscription{}, nil
	}
	return a, subscriptionFrom(sub[0]), nil
}

// Unsubscribed is the result of [Store.Unsubscribe].
type Unsubscribed struct {
	Email string `json:"email"` // the address, as last registered
	// Already reports that the address had unsubscribed before.
	Already bool `json:"already"`
}

// Unsubscribe stops all e-mail to the address whose unsubscribe token
// this is (the List-Unsubscribe link of every message): no notification
// is queued for it, the [Recorder] is told to give up its pending
// messages, its pending registrations can no longer be confirmed, and no
// confirmation message
// goes to it for [QuietAfterUnsubscribe]. Confirming a new registration
// of the address later subscribes it again. Unsubscribing twice is not an
// error.
//
// Errors: a *[ValidationError] on token wrapping [ErrNotFound] for an
// unknown token.
func (s *Store) Unsubscribe(ctx context.Context, token string) (Unsubscribed, error) {
	notToken := &ValidationError{Field: "token", Problem: "is not an unsubscribe token of this board",
		Hint: "use the link of the List-Unsubscribe header of a message the board sent", err: ErrNotFound}
	if token == "" || len(token) > 128 || checkRef("token", token) != nil {
		return Unsubscribed{}, notToken
	}
	now := s.clock()
	var out Unsubscribed
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var rows []struct {
			Key string       `bun:"email_key"`
			At  bun.NullTime `bun:"unsubscribed_at"`
		}
		if err := tx.NewRaw(`SELECT email_key, unsubscribed_at FROM mail_addresses WHERE unsubscribe_token = ?`+s.forUpdate(), token).Scan(ctx, &rows); err != nil {
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
		// Its pending messages are given up by the recorder, addressed as
		// any of the spellings registered.
		_, err := s.record(ctx, tx, Change{Kind: AddressUnsubscribed, At: now, Addresses: distinct(addrs)})
		return err
	})
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			return Unsubscribed{}, err
		}
		return Unsubscribed{}, fmt.Errorf("board: unsubscribe: %w", err)
	}
	return out, nil
}

// distinct returns ss without repeats, in their first order.
func distinct(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// PruneRegistrations deletes the registrations made and expired before t
// and returns how many (t is normally days ago, so that the caps of the
// last [CapWindow] still count them).
func (s *Store) PruneRegistrations(ctx context.Context, before time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM email_confirmations WHERE created_at < ? AND expires_at < ?`,
		before.UTC(), before.UTC())
	if err != nil {
		return 0, fmt.Errorf("board: prune registrations: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
