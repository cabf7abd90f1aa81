package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database"
)

// The agents' webhook endpoints, as records: who owns one, where it
// points, what it wants and whether it still works. The [FanOut] matches
// events to the active ones and queues the deliveries, and the [Sender]
// reports back failures ([Store.WebhookFailed]) and successes
// ([Store.WebhookDelivered]).

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
	// DefaultMaxActive is how many active endpoints a board has at most
	// unless [Options.MaxActive] says otherwise: the bound of one event's
	// fan-out, since agent ids cost nothing and each may have
	// [MaxWebhooksPerAgent]. At 200 a post's median time stays within
	// twice the time without endpoints while each post is delivered to
	// all of them (docs/RELIABILITY.md, "Fan-out").
	DefaultMaxActive = 200
)

// Webhook is an endpoint as its owner lists it. Secret is set only in
// the answer of [Store.CreateWebhook] (shown once) and for the senders
// ([Store.WebhookByID], [Store.ActiveWebhooks]); it is never listed.
type Webhook struct {
	ID      string `json:"id"`
	AgentID string `json:"agent_id"`
	URL     string `json:"url"`
	// Types are the event types delivered; empty means every type.
	Types        []board.EventType `json:"types"`
	PredictionID string            `json:"prediction_id,omitempty"`
	Domain       string            `json:"domain,omitempty"`
	Status       WebhookStatus     `json:"status"`
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

// Query is the endpoint's filters as a [board.EventQuery], whose Match
// is the one statement of what they mean.
func (w Webhook) Query() board.EventQuery {
	return board.EventQuery{Types: w.Types, PredictionID: w.PredictionID, Domain: w.Domain}
}

// Wants reports whether e is delivered to the endpoint: an event after
// its registration that passes its filters.
func (w Webhook) Wants(e board.Event) bool { return e.ID > w.AfterEvent && w.Query().Match(e) }

// NewWebhook is the input of [Store.CreateWebhook]. The URL's scheme and
// address are the adapter's to check ([CheckURL] knows which addresses a
// delivery may reach); the store checks its length and form.
type NewWebhook struct {
	AgentID      string
	URL          string
	Types        []string
	PredictionID string
	Domain       string
	// Secret is the endpoint's signing secret, as shown to its owner.
	Secret string
}

// ErrWebhookCap: the agent has [MaxWebhooksPerAgent] endpoints, or the
// board its most active ones ([Options.MaxActive]). The error is a
// *[board.ValidationError] on url wrapping [board.ErrConflict].
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
	w := Webhook{ID: r.ID, AgentID: r.AgentID, URL: r.URL, Types: []board.EventType{}, PredictionID: r.PredictionID, Domain: r.Domain,
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
func checkWebhook(nw *NewWebhook) ([]board.EventType, error) {
	if err := board.CheckAgentID(nw.AgentID); err != nil {
		return nil, err
	}
	const urlHint = "send the https URL of your receiver, such as https://agent.example.org/hooks/predictions"
	switch {
	case strings.TrimSpace(nw.URL) == "":
		return nil, board.Invalid("url", "is required", urlHint)
	case len(nw.URL) > MaxWebhookURL:
		return nil, board.Invalid("url", fmt.Sprintf("is %d bytes long; the maximum is %d", len(nw.URL), MaxWebhookURL), urlHint)
	case !utf8.ValidString(nw.URL) || strings.ContainsFunc(nw.URL, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return nil, board.Invalid("url", "contains white space, a control character or invalid UTF-8", urlHint)
	}
	types := []board.EventType{}
	for _, t := range nw.Types {
		got, err := board.ParseEventTypes("types", t)
		if err != nil {
			return nil, err
		}
		for _, g := range got {
			if !containsType(types, g) {
				types = append(types, g)
			}
		}
	}
	q, err := board.EventQuery{PredictionID: nw.PredictionID, Domain: nw.Domain}.Checked()
	if err != nil {
		return nil, err
	}
	nw.Domain = q.Domain
	if nw.Secret == "" {
		return nil, board.Invalid("secret", "is required", "the adapter makes one (signature.NewSecret)")
	}
	return types, nil
}

func containsType(ts []board.EventType, t board.EventType) bool {
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
// Errors: a *[board.ValidationError] for an invalid agent_id, url,
// types, prediction_id or domain; a *[board.ValidationError] on url
// wrapping [board.ErrConflict] and [ErrWebhookCap] when the agent has
// [MaxWebhooksPerAgent] endpoints or the board its most active ones
// ([Options.MaxActive]).
func (s *Store) CreateWebhook(ctx context.Context, nw NewWebhook) (Webhook, error) {
	types, err := checkWebhook(&nw)
	if err != nil {
		return Webhook{}, err
	}
	uid, err := uuid.NewV7()
	if err != nil {
		return Webhook{}, fmt.Errorf("board: generating an id: %w", err)
	}
	id := uid.String()
	typesJSON, _ := json.Marshal(types)
	// The newest event, read before the endpoint is: an event committed
	// meanwhile is delivered to it too, never one it was registered after.
	after, err := s.board.LastEventID(ctx)
	if err != nil {
		return Webhook{}, fmt.Errorf("board: create webhook: %w", err)
	}
	now := s.clock()
	var out Webhook
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// One lock serialises registrations on PostgreSQL (SQLite's
		// single writer does so already), so that two at once cannot
		// both pass a cap; registrations are rare.
		if s.pg {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, "webhooks:register"); err != nil {
				return err
			}
		}
		var active int
		if err := tx.NewRaw(`SELECT COUNT(*) FROM webhooks WHERE status = 'active'`).Scan(ctx, &active); err != nil {
			return err
		}
		if active >= s.maxActive {
			return board.Invalid("url", fmt.Sprintf("cannot be registered: this board delivers to at most %d active endpoints, and has them", s.maxActive),
				"try again later, when endpoints have been deleted or disabled, or follow the events with GET /api/events or /api/events.json; "+
					"the server's operator sets the bound (--webhooks-max-endpoints)",
				board.ErrConflict, ErrWebhookCap)
		}
		var n int
		if err := tx.NewRaw(`SELECT COUNT(*) FROM webhooks WHERE agent_id = ?`, nw.AgentID).Scan(ctx, &n); err != nil {
			return err
		}
		if n >= MaxWebhooksPerAgent {
			return board.Invalid("url", fmt.Sprintf("cannot be registered: agent %q has %d endpoints, the most an agent may have", nw.AgentID, n),
				"delete an endpoint you no longer use (DELETE /api/agents/{id}/webhooks/{webhook_id}), or filter one endpoint by types instead of registering several",
				board.ErrConflict, ErrWebhookCap)
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
// Errors: a *[board.ValidationError] for an invalid agent id.
func (s *Store) Webhooks(ctx context.Context, agentID string) ([]Webhook, error) {
	if err := board.CheckAgentID(agentID); err != nil {
		return nil, err
	}
	var rows []webhookRow
	if err := s.read.NewRaw(`SELECT `+webhookCols+` FROM webhooks WHERE agent_id = ? ORDER BY created_at, id`, agentID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: webhooks: %w", board.Classify(err))
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
// [FanOut] that matches events to them.
func (s *Store) ActiveWebhooks(ctx context.Context) ([]Webhook, error) {
	var rows []webhookRow
	if err := s.read.NewRaw(`SELECT `+webhookCols+` FROM webhooks WHERE status = 'active' ORDER BY id`).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("board: active webhooks: %w", board.Classify(err))
	}
	out := make([]Webhook, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.webhook())
	}
	return out, nil
}

// WebhookByID returns an endpoint with its secret, for its [Sender].
//
// Errors: [board.ErrNotFound] (wrapped) when no endpoint has the id (it
// was deleted).
func (s *Store) WebhookByID(ctx context.Context, id string) (Webhook, error) {
	var rows []webhookRow
	if err := s.read.NewRaw(`SELECT `+webhookCols+` FROM webhooks WHERE id = ?`, id).Scan(ctx, &rows); err != nil {
		return Webhook{}, fmt.Errorf("board: webhook: %w", board.Classify(err))
	}
	if len(rows) == 0 {
		return Webhook{}, notFound(id)
	}
	return rows[0].webhook(), nil
}

// notFound wraps [board.ErrNotFound] with the endpoint's id, as the
// board says of its own records.
func notFound(id string) error {
	return fmt.Errorf("%w: no webhook with id %q", board.ErrNotFound, id)
}

// DeleteWebhook removes an agent's endpoint; nothing more is delivered
// to it (its sender finds it gone).
//
// Errors: a *[board.ValidationError] for an invalid agent id;
// [board.ErrNotFound] (wrapped) when the agent has no endpoint with the
// id.
func (s *Store) DeleteWebhook(ctx context.Context, agentID, id string) error {
	if err := board.CheckAgentID(agentID); err != nil {
		return err
	}
	if err := board.CheckRef("webhook_id", id); err != nil {
		return err
	}
	res, err := database.Within(ctx, s.write).ExecContext(ctx, `DELETE FROM webhooks WHERE id = ? AND agent_id = ?`, id, agentID)
	if err != nil {
		return fmt.Errorf("board: delete webhook: %w", board.Classify(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound(id)
	}
	return nil
}

// WebhookDelivered records a delivery the endpoint accepted: it is no
// longer failing.
func (s *Store) WebhookDelivered(ctx context.Context, id string) error {
	_, err := s.write.ExecContext(ctx, `UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`, id)
	if err != nil {
		return fmt.Errorf("board: webhook delivered: %w", board.Classify(err))
	}
	return nil
}

// WebhookFailed records a failed delivery at t and returns since when
// the endpoint has been failing (t for its first failure since a
// success).
//
// Errors: [board.ErrNotFound] (wrapped) when the endpoint was deleted.
func (s *Store) WebhookFailed(ctx context.Context, id string, t time.Time) (time.Time, error) {
	t = t.UTC().Truncate(time.Microsecond)
	var since []time.Time
	err := s.write.NewRaw(`UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ? RETURNING failing_since`,
		t, id).Scan(ctx, &since)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, fmt.Errorf("board: webhook failed: %w", board.Classify(err))
	}
	if len(since) == 0 {
		return time.Time{}, notFound(id)
	}
	return since[0].UTC(), nil
}

// DisableWebhook disables an active endpoint with reason, at the store's
// time, and tells the [Notifier], in the same transaction, so that its
// owner is told (by e-mail when it has a confirmed address). It reports
// whether it disabled it: false when it was disabled already.
//
// Errors: [board.ErrNotFound] (wrapped) when the endpoint was deleted.
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
			return notFound(id)
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
		if s.notifier == nil {
			return nil
		}
		_, err := s.notifier.WebhookDisabled(ctx, tx, w, now)
		return err
	})
	if err != nil {
		if errors.Is(err, board.ErrNotFound) {
			return false, err
		}
		return false, fmt.Errorf("board: disable webhook: %w", err)
	}
	return done, nil
}
