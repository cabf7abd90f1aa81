package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The board keeps the agents' webhook endpoints as records: who owns
// one, where it points, what it wants and whether it still works. It
// delivers nothing: a reader of the event log outside the board matches
// events to the active endpoints and queues the deliveries (see package
// hooks), and reports back failures ([Store.WebhookFailed]) and
// successes ([Store.WebhookDelivered]).

// WebhookStatus is the state of an endpoint.
type WebhookStatus string

// The states of an endpoint.
const (
	WebhookActive   WebhookStatus = "active"   // events are delivered to it
	WebhookDisabled WebhookStatus = "disabled" // no more deliveries; status_reason says why
)

// Limits of the endpoints.
const (
	// MaxWebhooksPerAgent is how many endpoints an agent may have,
	// active or disabled.
	MaxWebhooksPerAgent = 10
	// MaxWebhookURL is the longest endpoint URL, in bytes.
	MaxWebhookURL = 2048
)

// Webhook is an endpoint as its owner lists it. Secret is set only in
// the answer of [Store.CreateWebhook] (shown once) and for the senders
// ([Store.WebhookByID], [Store.ActiveWebhooks]); it is never listed.
type Webhook struct {
	ID      string `json:"id"`
	AgentID string `json:"agent_id"`
	URL     string `json:"url"`
	// Types are the event types delivered; empty means every type.
	Types        []EventType   `json:"types"`
	PredictionID string        `json:"prediction_id,omitempty"`
	Domain       string        `json:"domain,omitempty"`
	Status       WebhookStatus `json:"status"`
	// StatusReason says why a disabled endpoint was disabled.
	StatusReason string     `json:"status_reason,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	DisabledAt   *time.Time `json:"disabled_at,omitempty"`
	// FailingSince is the first failed delivery since the last success.
	FailingSince *time.Time `json:"failing_since,omitempty"`
	// AfterEvent is the newest event when the endpoint was registered:
	// it gets the events after it.
	AfterEvent int64  `json:"-"`
	Secret     string `json:"-"`
}

// Query is the endpoint's filters as an [EventQuery], whose Match is the
// one statement of what they mean.
func (w Webhook) Query() EventQuery {
	return EventQuery{Types: w.Types, PredictionID: w.PredictionID, Domain: w.Domain}
}

// Wants reports whether e is delivered to the endpoint: an event after
// its registration that passes its filters.
func (w Webhook) Wants(e Event) bool { return e.ID > w.AfterEvent && w.Query().Match(e) }

// NewWebhook is the input of [Store.CreateWebhook]. The URL's scheme and
// address are the adapter's to check (package webhook knows which
// addresses a delivery may reach); the store checks its length and form.
type NewWebhook struct {
	AgentID      string
	URL          string
	Types        []string
	PredictionID string
	Domain       string
	// Secret is the endpoint's signing secret, as shown to its owner.
	Secret string
}

// ErrWebhookCap: the agent has [MaxWebhooksPerAgent] endpoints. The
// error is a *[ValidationError] on url wrapping [ErrConflict].
var ErrWebhookCap = errors.New("board: too many webhooks")

type webhookRow struct {
	ID           string       `bun:"id"`
	AgentID      string       `bun:"agent_id"`
	URL          string       `bun:"url"`
	Types        string       `bun:"types"`
	PredictionID string       `bun:"prediction_id"`
	Domain       string       `bun:"domain"`
	Secret       string       `bun:"secret"`
	AfterEvent   int64        `bun:"after_event"`
	Status       string       `bun:"status"`
	StatusReason string       `bun:"status_reason"`
	CreatedAt    time.Time    `bun:"created_at"`
	DisabledAt   bun.NullTime `bun:"disabled_at"`
	FailingSince bun.NullTime `bun:"failing_since"`
}

const webhookCols = `id, agent_id, url, types, prediction_id, domain, secret, after_event, status, status_reason, created_at, disabled_at, failing_since`

func (r webhookRow) webhook() Webhook {
	w := Webhook{ID: r.ID, AgentID: r.AgentID, URL: r.URL, Types: []EventType{}, PredictionID: r.PredictionID, Domain: r.Domain,
		Status: WebhookStatus(r.Status), StatusReason: r.StatusReason, CreatedAt: r.CreatedAt.UTC(), AfterEvent: r.AfterEvent, Secret: r.Secret}
	_ = json.Unmarshal([]byte(r.Types), &w.Types)
	if !r.DisabledAt.IsZero() {
		t := r.DisabledAt.UTC()
		w.DisabledAt = &t
	}
	if !r.FailingSince.IsZero() {
		t := r.FailingSince.UTC()
		w.FailingSince = &t
	}
	return w
}

// checkWebhook validates nw and returns its event types and domain.
func checkWebhook(nw *NewWebhook) ([]EventType, error) {
	if err := checkAgentID(nw.AgentID); err != nil {
		return nil, err
	}
	const urlHint = "send the https URL of your receiver, such as https://agent.example.org/hooks/predictions"
	switch {
	case strings.TrimSpace(nw.URL) == "":
		return nil, invalid("url", "is required", urlHint)
	case len(nw.URL) > MaxWebhookURL:
		return nil, invalid("url", fmt.Sprintf("is %d bytes long; the maximum is %d", len(nw.URL), MaxWebhookURL), urlHint)
	case !utf8.ValidString(nw.URL) || strings.ContainsFunc(nw.URL, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return nil, invalid("url", "contains white space, a control character or invalid UTF-8", urlHint)
	}
	types := []EventType{}
	for _, t := range nw.Types {
		got, err := ParseEventTypes("types", t)
		if err != nil {
			return nil, err
		}
		for _, g := range got {
			if !containsType(types, g) {
				types = append(types, g)
			}
		}
	}
	q := EventQuery{PredictionID: nw.PredictionID, Domain: nw.Domain}
	if _, _, err := q.check(); err != nil {
		return nil, err
	}
	nw.Domain = q.Domain
	if nw.Secret == "" {
		return nil, invalid("secret", "is required", "the adapter makes one (webhook.NewSecret)")
	}
	return types, nil
}

func containsType(ts []EventType, t EventType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// CreateWebhook records an active endpoint for nw.AgentID and returns it
// with its secret. It is sent the events committed after it.
//
// Errors: a *[ValidationError] for an invalid agent_id, url, types,
// prediction_id or domain; a *[ValidationError] on url wrapping
// [ErrConflict] and [ErrWebhookCap] when the agent has
// [MaxWebhooksPerAgent] endpoints.
func (s *Store) CreateWebhook(ctx context.Context, nw NewWebhook) (Webhook, error) {
	types, err := checkWebhook(&nw)
	if err != nil {
		return Webhook{}, err
	}
	id, err := newID()
	if err != nil {
		return Webhook{}, err
	}
	typesJSON, _ := json.Marshal(types)
	now := s.clock()
	var out Webhook
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// A lock on the owner's id serialises its registrations on
		// PostgreSQL (SQLite's single writer does so already), so that
		// two at once cannot both pass the cap; the agent need not exist.
		if s.pg {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, "webhooks:"+nw.AgentID); err != nil {
				return err
			}
		}
		var n int
		if err := tx.NewRaw(`SELECT COUNT(*) FROM webhooks WHERE agent_id = ?`, nw.AgentID).Scan(ctx, &n); err != nil {
			return err
		}
		if n >= MaxWebhooksPerAgent {
			return &ValidationError{Field: "url", err: errors.Join(ErrConflict, ErrWebhookCap),
				Problem: fmt.Sprintf("cannot be registered: agent %q has %d endpoints, the most an agent may have", nw.AgentID, n),
				Hint:    "delete an endpoint you no longer use (DELETE /api/agents/{id}/webhooks/{webhook_id}), or filter one endpoint by types instead of registering several"}
		}
		var after int64
		if err := tx.NewRaw(`SELECT COALESCE(MAX(id), 0) FROM board_events`).Scan(ctx, &after); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhooks (id, agent_id, url, types, prediction_id, domain, secret, after_event, status, created_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)`, id, nw.AgentID, nw.URL, string(typesJSON), nw.PredictionID, nw.Domain, nw.Secret, after, now); err != nil {
			return err
		}
		out = Webhook{ID: id, AgentID: nw.AgentID, URL: nw.URL, Types: types, PredictionID: nw.PredictionID, Domain: nw.Domain,
			Status: WebhookActive, CreatedAt: now, AfterEvent: after, Secret: nw.Secret}
		return nil
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("board: create webhook: %w", err)
	}
	return out, nil
}

// Webhooks lists an agent's endpoints, oldest first, without secrets.
//
// Errors: a *[ValidationError] for an invalid agent id.
func (s *Store) Webhooks(ctx context.Context, agentID string) ([]Webhook, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	var rows []webhookRow
	if err := s.read.NewRaw(`SELECT `+webhookCols+` FROM webhooks WHERE agent_id = ? ORDER BY created_at, id`, agentID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: webhooks: %w", err)
	}
	out := make([]Webhook, 0, len(rows))
	for _, r := range rows {
		w := r.webhook()
		w.Secret = ""
		out = append(out, w)
	}
	return out, nil
}

// ActiveWebhooks returns every active endpoint with its secret, for the
// reader that matches events to them.
func (s *Store) ActiveWebhooks(ctx context.Context) ([]Webhook, error) {
	var rows []webhookRow
	if err := s.read.NewRaw(`SELECT `+webhookCols+` FROM webhooks WHERE status = 'active' ORDER BY id`).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: active webhooks: %w", err)
	}
	out := make([]Webhook, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.webhook())
	}
	return out, nil
}

// WebhookByID returns an endpoint with its secret, for its sender.
//
// Errors: [ErrNotFound] (wrapped) when no endpoint has the id (it was
// deleted).
func (s *Store) WebhookByID(ctx context.Context, id string) (Webhook, error) {
	var rows []webhookRow
	if err := s.read.NewRaw(`SELECT `+webhookCols+` FROM webhooks WHERE id = ?`, id).Scan(ctx, &rows); err != nil {
		return Webhook{}, fmt.Errorf("board: webhook: %w", err)
	}
	if len(rows) == 0 {
		return Webhook{}, notFound("webhook", id)
	}
	return rows[0].webhook(), nil
}

// DeleteWebhook removes an agent's endpoint; nothing more is delivered
// to it (its sender finds it gone).
//
// Errors: a *[ValidationError] for an invalid agent id; [ErrNotFound]
// (wrapped) when the agent has no endpoint with the id.
func (s *Store) DeleteWebhook(ctx context.Context, agentID, id string) error {
	if err := checkAgentID(agentID); err != nil {
		return err
	}
	if err := checkRef("webhook_id", id); err != nil {
		return err
	}
	var n int64
	err := s.retry(ctx, func() error {
		res, err := s.write.ExecContext(ctx, `DELETE FROM webhooks WHERE id = ? AND agent_id = ?`, id, agentID)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return fmt.Errorf("board: delete webhook: %w", err)
	}
	if n == 0 {
		return notFound("webhook", id)
	}
	return nil
}

// WebhookDelivered records a delivery the endpoint accepted: it is no
// longer failing.
func (s *Store) WebhookDelivered(ctx context.Context, id string) error {
	err := s.retry(ctx, func() error {
		_, err := s.write.ExecContext(ctx, `UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("board: webhook delivered: %w", err)
	}
	return nil
}

// WebhookFailed records a failed delivery at t and returns since when
// the endpoint has been failing (t for its first failure since a
// success).
//
// Errors: [ErrNotFound] (wrapped) when the endpoint was deleted.
func (s *Store) WebhookFailed(ctx context.Context, id string, t time.Time) (time.Time, error) {
	t = t.UTC().Truncate(time.Microsecond)
	var since []time.Time
	err := s.retry(ctx, func() error {
		since = since[:0]
		return s.write.NewRaw(`UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ? RETURNING failing_since`,
			t, id).Scan(ctx, &since)
	})
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, fmt.Errorf("board: webhook failed: %w", err)
	}
	if len(since) == 0 {
		return time.Time{}, notFound("webhook", id)
	}
	return since[0].UTC(), nil
}

// WebhookDisabledChange: Change.Webhook was disabled
// ([Store.DisableWebhook]); the [Recorder] tells its owner.
const WebhookDisabledChange ChangeKind = "webhook_disabled"

// DisableWebhook disables an active endpoint with reason, at the store's
// time, and tells the [Recorder] (Change.Webhook), in the same
// transaction, so that its owner is told (by e-mail when it has a
// confirmed address). It reports whether it disabled it: false when it
// was disabled already.
//
// Errors: [ErrNotFound] (wrapped) when the endpoint was deleted.
func (s *Store) DisableWebhook(ctx context.Context, id, reason string) (bool, error) {
	now := s.clock()
	done := false
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		done = false
		var rows []webhookRow
		if err := tx.NewRaw(`SELECT `+webhookCols+` FROM webhooks WHERE id = ?`+s.forUpdate(), id).Scan(ctx, &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			return notFound("webhook", id)
		}
		if rows[0].Status != string(WebhookActive) {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET status = 'disabled', status_reason = ?, disabled_at = ? WHERE id = ?`,
			reason, now, id); err != nil {
			return err
		}
		w := rows[0].webhook()
		w.Status, w.StatusReason, w.DisabledAt, w.Secret = WebhookDisabled, reason, &now, ""
		done = true
		_, err := s.record(ctx, tx, Change{Kind: WebhookDisabledChange, At: now, Webhook: &w})
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, err
		}
		return false, fmt.Errorf("board: disable webhook: %w", err)
	}
	return done, nil
}
