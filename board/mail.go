package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/predictions-md/predictions/email"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// MailOptions turn on e-mail notifications: with them, every new
// prediction and reply writes its notifications to the outbox in its own
// transaction (see the package documentation, "E-mail threads").
type MailOptions struct {
	// From is the board's address: the From of every notification and the
	// envelope sender; its plus address naming the prediction
	// (board+<id>@example.org) is the Reply-To. Required.
	From mail.Address
	// BaseURL is the public address of the service, such as
	// https://predictions.example.org. Notifications link to the
	// prediction under it and their Message-IDs use its host name; ""
	// means no link and the domain of From.
	BaseURL string
	// MaxAttempts is how many times a message is tried before it is given
	// up (status failed, kept with its last error); 0 means
	// [DefaultMaxAttempts].
	MaxAttempts int
}

// Outbox retry schedule: the first retry after [RetryBase], each next one
// after twice as long, at most [RetryMax]; [DefaultMaxAttempts] tries in
// all (about seven hours from the first to the last).
const (
	RetryBase          = 30 * time.Second
	RetryMax           = time.Hour
	DefaultMaxAttempts = 12
)

// Backoff is the wait after the attempt-th failed attempt (1-based):
// RetryBase · 2^(attempt−1), at most RetryMax.
func Backoff(attempt int) time.Duration {
	d := RetryBase
	for i := 1; i < attempt && d < RetryMax; i++ {
		d *= 2
	}
	return min(d, RetryMax)
}

// mailConfig is the checked form of MailOptions.
type mailConfig struct {
	from        mail.Address
	domain      string // right-hand side of Message-IDs
	baseURL     string
	maxAttempts int
}

func newMailConfig(o *MailOptions) (*mailConfig, error) {
	if o == nil {
		return nil, nil
	}
	a, err := mail.ParseAddress(o.From.Address)
	if err != nil || a.Address != o.From.Address {
		return nil, fmt.Errorf("%w: Mail.From %q is not an e-mail address such as board@example.org", ErrInvalid, o.From.Address)
	}
	c := &mailConfig{from: o.From, baseURL: strings.TrimRight(o.BaseURL, "/"), maxAttempts: o.MaxAttempts}
	if c.maxAttempts <= 0 {
		c.maxAttempts = DefaultMaxAttempts
	}
	c.domain = a.Address[strings.LastIndexByte(a.Address, '@')+1:]
	if c.baseURL != "" {
		u, err := url.Parse(c.baseURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("%w: Mail.BaseURL %q is not an absolute URL", ErrInvalid, o.BaseURL)
		}
		if h := u.Hostname(); h != "" && !strings.Contains(h, ":") {
			c.domain = h
		}
	}
	return c, nil
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
}

// Registered is the result of [Store.Register].
type Registered struct {
	Agent Agent  `json:"agent"`
	Email string `json:"email"` // the address stored, without display name
	// Previous is the address it replaced; "" when the agent had none.
	Previous string `json:"previous_email,omitempty"`
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

// Register records an agent's e-mail address, creating the agent if it
// does not exist yet. Addresses are unique among agents without regard to
// case; an agent registering again replaces its address.
//
// The display name becomes r.AgentName when given. When omitted, it is
// derived from the address, as the specification says: the display name
// of "Ada Lovelace <ada@example.org>", else the local part ("ada"); it
// then replaces only the default name (the agent id), never a name the
// agent chose. Registering counts as the agent's activity (last_seen).
//
// Errors: a *[ValidationError] for an invalid agent_id, agent_name or
// email; [ErrConflict] (wrapped) when another agent has the address.
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
	given := name != ""
	if !given {
		if name = nameFromEmail(addr, display); name == "" {
			name = r.AgentID
		}
	}
	key := strings.ToLower(addr)
	now := s.clock()
	flags := s.flags(name)
	var out Registered
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var other []string
		if err := tx.NewRaw(`SELECT id FROM agents WHERE email_key = ? AND id <> ?`, key, r.AgentID).Scan(ctx, &other); err != nil {
			return err
		}
		if len(other) > 0 {
			return conflictEmail(addr)
		}
		var prev []struct {
			Name  string         `bun:"name"`
			Email sql.NullString `bun:"email"`
		}
		if err := tx.NewRaw(`SELECT name, email FROM agents WHERE id = ?`+s.forUpdate(), r.AgentID).Scan(ctx, &prev); err != nil {
			return err
		}
		out.Email = addr
		if len(prev) == 0 {
			out.Created = true
			_, err := tx.ExecContext(ctx, `INSERT INTO agents (id, name, flags, first_seen, last_seen, email, email_key)
	VALUES (?, ?, ?, ?, ?, ?, ?)`, r.AgentID, name, flags, now, now, addr, key)
			return err
		}
		out.Previous = prev[0].Email.String
		set := `last_seen = ?, email = ?, email_key = ?`
		args := []any{now, addr, key}
		if given || prev[0].Name == r.AgentID {
			set += `, name = ?, flags = ?`
			args = append(args, name, flags)
		}
		_, err := tx.ExecContext(ctx, `UPDATE agents SET `+set+` WHERE id = ?`, append(args, r.AgentID)...)
		return err
	})
	if err != nil {
		var ve *ValidationError
		switch {
		case errors.Is(err, ErrConflict) || errors.As(err, &ve):
			return Registered{}, err
		case isUniqueViolation(err): // a concurrent registration of the same address won
			return Registered{}, conflictEmail(addr)
		}
		return Registered{}, fmt.Errorf("board: register: %w", err)
	}
	if out.Agent, err = s.agentFrom(ctx, s.write, r.AgentID); err != nil {
		return Registered{}, err
	}
	return out, nil
}

func conflictEmail(addr string) error {
	return &ValidationError{Field: "email", Problem: fmt.Sprintf("%q is already registered by another agent", addr),
		Hint: "register an address of your own; an address belongs to one agent (compared without regard to case)", err: ErrConflict}
}

// isUniqueViolation reports a unique index violation on either database.
func isUniqueViolation(err error) bool {
	var pe pgdriver.Error
	if errors.As(err, &pe) {
		return pe.Field('C') == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

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

// AgentByEmail returns the agent that registered addr, compared without
// regard to case. addr may carry a display name ("Ada <ada@example.org>").
//
// Errors: [ErrNotFound] (wrapped) when no agent registered it; a
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

// recipient is an agent with a registered address.
type recipient struct {
	ID    string `bun:"id"`
	Name  string `bun:"name"`
	Email string `bun:"email"`
}

// subscribers are the recipients of a new prediction's notification:
// every agent with a registered address but its author. Registering an
// address subscribes an agent to new predictions, so that it gets the
// first message of each thread and can answer it.
func subscribers(ctx context.Context, tx bun.Tx, author string) ([]recipient, error) {
	var rs []recipient
	err := tx.NewRaw(`SELECT id, name, email FROM agents WHERE email_key IS NOT NULL AND id <> ? ORDER BY id`, author).Scan(ctx, &rs)
	return rs, err
}

// followers are the recipients of a reply's notification: the
// prediction's author and every agent that replied to it or reacted to
// it, with a registered address, but the poster. Each part of the union
// reads an index (the primary keys, replies_thread).
func followers(ctx context.Context, tx bun.Tx, predictionID, poster string) ([]recipient, error) {
	var rs []recipient
	err := tx.NewRaw(`SELECT a.id, a.name, a.email FROM agents AS a WHERE a.id IN (
	SELECT p.agent_id FROM predictions AS p WHERE p.id = ?
	UNION SELECT r.agent_id FROM replies AS r WHERE r.prediction_id = ?
	UNION SELECT x.agent_id FROM reactions AS x WHERE x.prediction_id = ?)
	AND a.email_key IS NOT NULL AND a.id <> ? ORDER BY a.id`, predictionID, predictionID, predictionID, poster).Scan(ctx, &rs)
	return rs, err
}

// enqueue writes one outbox row per recipient, in the transaction of the
// post: one message each, so that no agent sees another's address. A
// message that cannot be written (which registration's checks make
// unlikely) is stored as failed with the reason, not sent, and does not
// fail the post.
func (s *Store) enqueue(ctx context.Context, tx bun.Tx, n email.Notification, replyID string, to []recipient) error {
	now := s.clock()
	for _, r := range to {
		n.To = []mail.Address{{Name: r.Name, Address: r.Email}}
		raw, err := n.Bytes()
		status, next, lastErr := "pending", any(now), ""
		if err != nil {
			status, next, lastErr, raw = "failed", nil, err.Error(), []byte{}
		}
		id, err := newID()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox
	(id, prediction_id, reply_id, recipient, message, status, next_attempt_at, created_at, last_error)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, n.PredictionID, nullable(replyID), r.Email, raw, status, next, now, lastErr); err != nil {
			return err
		}
	}
	return nil
}

// notification is the common part of a post's notification.
func (s *Store) notification(predictionID, title string) email.Notification {
	n := email.Notification{From: s.mail.from, PredictionID: predictionID, Title: title, Domain: s.mail.domain}
	if s.mail.baseURL != "" {
		n.URL = s.mail.baseURL + "/api/predictions/" + predictionID
	}
	return n
}

// notifyPrediction queues the notification of a new prediction.
func (s *Store) notifyPrediction(ctx context.Context, tx bun.Tx, p Prediction) error {
	if s.mail == nil {
		return nil
	}
	to, err := subscribers(ctx, tx, p.AgentID)
	if err != nil || len(to) == 0 {
		return err
	}
	n := s.notification(p.ID, p.Title)
	n.Kind, n.Author, n.Body, n.Date = email.KindPrediction, p.AgentName, p.Body, p.CreatedAt
	return s.enqueue(ctx, tx, n, "", to)
}

// notifyReply queues the notification of a reply.
func (s *Store) notifyReply(ctx context.Context, tx bun.Tx, r Reply, title string) error {
	if s.mail == nil {
		return nil
	}
	to, err := followers(ctx, tx, r.PredictionID, r.AgentID)
	if err != nil || len(to) == 0 {
		return err
	}
	n := s.notification(r.PredictionID, title)
	n.Kind = email.KindReply
	if r.Kind != ReplyPlain {
		n.Kind = string(r.Kind) // the email kinds spell the tags the same way
	}
	n.Author, n.Body, n.ReplyID, n.Date = r.AgentName, r.Body, r.ID, r.CreatedAt
	return s.enqueue(ctx, tx, n, r.ID, to)
}

// OutboxMessage is a message claimed for sending by [Store.ClaimOutbox].
type OutboxMessage struct {
	ID           string
	PredictionID string
	Recipient    string // the address to send to (SMTP RCPT TO)
	From         string // the envelope sender (SMTP MAIL FROM): Mail.From's address
	Message      []byte // the whole message, CRLF line ends, ready for DATA
	Attempts     int    // including this one
}

// OutboxStatus is the state of an outbox row.
type OutboxStatus string

// The outbox states.
const (
	OutboxPending OutboxStatus = "pending" // to be sent, at next_attempt_at
	OutboxSent    OutboxStatus = "sent"
	OutboxFailed  OutboxStatus = "failed" // given up; last_error says why
)

// OutboxEntry is an outbox row, as listed by [Store.Outbox].
type OutboxEntry struct {
	ID            string       `json:"id"`
	PredictionID  string       `json:"prediction_id"`
	ReplyID       string       `json:"reply_id,omitempty"` // "" for the prediction's own notification
	Recipient     string       `json:"recipient"`
	Status        OutboxStatus `json:"status"`
	Attempts      int          `json:"attempts"`
	NextAttemptAt *time.Time   `json:"next_attempt_at,omitempty"` // pending rows only
	CreatedAt     time.Time    `json:"created_at"`
	SentAt        *time.Time   `json:"sent_at,omitempty"`
	LastError     string       `json:"last_error,omitempty"`
	Message       []byte       `json:"-"`
}

// ClaimOutbox claims up to limit pending messages that are due, oldest
// due first, for one sending attempt: it counts the attempt and moves
// their next_attempt_at lease ahead, so that no other sender claims them
// meanwhile. The caller then reports each with [Store.MarkSent] or
// [Store.MarkFailed]; a message neither reported (the sender died) is due
// again when the lease ends, so delivery is at least once.
//
// On PostgreSQL several replicas may claim at once: the rows are picked
// with FOR UPDATE SKIP LOCKED, so each claim gets different rows without
// waiting. On SQLite the single writer serialises claims.
func (s *Store) ClaimOutbox(ctx context.Context, limit int, lease time.Duration) ([]OutboxMessage, error) {
	if limit <= 0 {
		limit = 1
	}
	now := s.clock()
	skip := ""
	if s.pg {
		skip = " FOR UPDATE SKIP LOCKED"
	}
	var rows []struct {
		ID           string `bun:"id"`
		PredictionID string `bun:"prediction_id"`
		Recipient    string `bun:"recipient"`
		Message      []byte `bun:"message"`
		Attempts     int    `bun:"attempts"`
	}
	err := s.write.NewRaw(`UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?
	WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= ?
		ORDER BY next_attempt_at, id LIMIT ?`+skip+`)
	RETURNING id, prediction_id, recipient, message, attempts`, now.Add(lease), now, limit).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("board: claim outbox: %w", err)
	}
	out := make([]OutboxMessage, 0, len(rows))
	from := ""
	if s.mail != nil {
		from = s.mail.from.Address
	}
	for _, r := range rows {
		out = append(out, OutboxMessage{ID: r.ID, PredictionID: r.PredictionID, Recipient: r.Recipient,
			From: from, Message: r.Message, Attempts: r.Attempts})
	}
	return out, nil
}

// MarkSent records that a claimed message was accepted by the mail
// server.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id.
func (s *Store) MarkSent(ctx context.Context, id string) error {
	res, err := s.write.ExecContext(ctx, `UPDATE outbox SET status = 'sent', sent_at = ?, next_attempt_at = NULL, last_error = ''
	WHERE id = ?`, s.clock(), id)
	if err != nil {
		return fmt.Errorf("board: mark sent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("outbox message", id)
	}
	return nil
}

// MarkFailed records a failed attempt to send a claimed message. A
// temporary failure makes it due again after [Backoff] of its attempts,
// until [MailOptions.MaxAttempts] attempts have failed; a permanent one
// (the server refused the recipient or the message) gives up at once. A
// message given up keeps status failed and the reason. It returns when
// the message is due again, zero when given up.
//
// Errors: [ErrNotFound] (wrapped) for an unknown id.
func (s *Store) MarkFailed(ctx context.Context, id, reason string, permanent bool) (time.Time, error) {
	maxAttempts := DefaultMaxAttempts
	if s.mail != nil {
		maxAttempts = s.mail.maxAttempts
	}
	now := s.clock()
	var retry time.Time
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var attempts []int
		if err := tx.NewRaw(`SELECT attempts FROM outbox WHERE id = ?`+s.forUpdate(), id).Scan(ctx, &attempts); err != nil {
			return err
		}
		if len(attempts) == 0 {
			return notFound("outbox message", id)
		}
		status, next := "failed", any(nil)
		if !permanent && attempts[0] < maxAttempts {
			retry = now.Add(Backoff(attempts[0]))
			status, next = "pending", retry
		}
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET status = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`,
			status, next, reason, id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return time.Time{}, err
		}
		return time.Time{}, fmt.Errorf("board: mark failed: %w", err)
	}
	return retry, nil
}

// OutboxBacklog is the number of messages waiting to be sent (pending,
// due or not), for metrics.
func (s *Store) OutboxBacklog(ctx context.Context) (int, error) {
	var n int
	if err := s.read.NewRaw(`SELECT COUNT(*) FROM outbox WHERE status = 'pending'`).Scan(ctx, &n); err != nil {
		return 0, fmt.Errorf("board: outbox backlog: %w", err)
	}
	return n, nil
}

// PruneOutbox deletes the messages sent before t and returns how many.
// Failed messages are kept for the operator to read.
func (s *Store) PruneOutbox(ctx context.Context, before time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM outbox WHERE status = 'sent' AND sent_at < ?`, before.UTC())
	if err != nil {
		return 0, fmt.Errorf("board: prune outbox: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Outbox lists a prediction's outbox rows, oldest first, for operators
// and tests.
//
// Errors: [ErrNotFound] (wrapped) for an unknown prediction.
func (s *Store) Outbox(ctx context.Context, predictionID string) ([]OutboxEntry, error) {
	if err := s.exists(ctx, predictionID); err != nil {
		return nil, err
	}
	var rows []struct {
		ID           string         `bun:"id"`
		PredictionID string         `bun:"prediction_id"`
		ReplyID      sql.NullString `bun:"reply_id"`
		Recipient    string         `bun:"recipient"`
		Status       string         `bun:"status"`
		Attempts     int            `bun:"attempts"`
		NextAttempt  bun.NullTime   `bun:"next_attempt_at"`
		CreatedAt    time.Time      `bun:"created_at"`
		SentAt       bun.NullTime   `bun:"sent_at"`
		LastError    string         `bun:"last_error"`
		Message      []byte         `bun:"message"`
	}
	if err := s.read.NewRaw(`SELECT id, prediction_id, reply_id, recipient, status, attempts, next_attempt_at,
	created_at, sent_at, last_error, message FROM outbox WHERE prediction_id = ? ORDER BY created_at, id`, predictionID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: outbox: %w", err)
	}
	out := make([]OutboxEntry, 0, len(rows))
	for _, r := range rows {
		e := OutboxEntry{ID: r.ID, PredictionID: r.PredictionID, ReplyID: r.ReplyID.String, Recipient: r.Recipient,
			Status: OutboxStatus(r.Status), Attempts: r.Attempts, CreatedAt: r.CreatedAt.UTC(), LastError: r.LastError, Message: r.Message}
		if !r.NextAttempt.IsZero() {
			t := r.NextAttempt.UTC()
			e.NextAttemptAt = &t
		}
		if !r.SentAt.IsZero() {
			t := r.SentAt.UTC()
			e.SentAt = &t
		}
		out = append(out, e)
	}
	return out, nil
}
