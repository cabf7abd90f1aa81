package notify

import (
	"context"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/people"
	"github.com/predictions-md/predictions/webhooks"
)

// Mail turns the board's changes and the mailbox's into e-mail in the
// outbox: it is the board's [board.Recorder] and the mailbox's
// [mailbox.Recorder], so each message is queued in the transaction of
// the post or registration that causes it, and a change is acknowledged
// only with its messages stored. A [Sender] then sends them.
//
//   - a new prediction: one notification to each subscriber
//     ([mailbox.Subscribers]);
//   - a reply: one notification to each follower of the prediction
//     ([mailbox.Followers], and the people who follow it, [Follows]);
//   - a sign-in link a person asked for ([Mail.SignInLink]);
//   - a registration: the confirmation message with its token (only with
//     a base URL to link to);
//   - an unsubscription: the address's pending messages are given up;
//   - a webhook endpoint disabled: a notice to its agent's confirmed
//     address ([mailbox.Owner]), if it has one: Mail is also the
//     endpoints' [webhooks.Notifier] ([Mail.WebhookDisabled]).
//
// One message per recipient, so that no agent sees another's address.
type Mail struct {
	outbox  *outbox.Outbox
	from    mail.Address
	domain  string // right-hand side of Message-IDs
	baseURL string
	follows Follows // nil: nobody follows by choice
}

// Follows names the forecasters who chose to follow a prediction (package
// people's follows), read through the change's transaction; their
// confirmed addresses get its replies beside [mailbox.Followers].
// *people.Store implements it.
type Follows interface {
	FollowerIDs(ctx context.Context, db bun.IDB, predictionID string) ([]string, error)
}

// SetFollows makes f the source of the forecasters who follow a
// prediction by choice; nil means none. Call it before the store's first
// write.
func (m *Mail) SetFollows(f Follows) { m.follows = f }

// NewMail returns the recorder that queues e-mail from the board's address
// from into o. baseURL is the public address of the service, such as
// https://predictions.example.org: notifications link to the prediction
// under it, confirmation and unsubscribe links point to it, and its host
// names the Message-IDs; "" means no links, no confirmation messages and
// the domain of from.
//
// Errors: an *[email.Error] when from is not a bare address or baseURL not
// an absolute URL.
func NewMail(o *outbox.Outbox, from mail.Address, baseURL string) (*Mail, error) {
	baseURL = strings.TrimRight(baseURL, "/")
	d, err := email.IDDomain(from.Address, baseURL)
	if err != nil {
		return nil, err
	}
	return &Mail{outbox: o, from: from, domain: d, baseURL: baseURL}, nil
}

// Record queues the e-mail that follows from c through tx and returns how
// many messages it queued.
func (m *Mail) Record(ctx context.Context, tx bun.Tx, c board.Change) (int, error) {
	switch c.Kind {
	case board.PredictionCreated:
		p := c.Prediction
		to, err := mailbox.Subscribers(ctx, tx, p.AgentID, p.Domain)
		if err != nil || len(to) == 0 {
			return 0, err
		}
		n := m.notification(p.ID, p.Title)
		n.Kind, n.Author, n.Body, n.Date = email.KindPrediction, p.AgentName, p.Body, p.CreatedAt
		return m.enqueue(ctx, tx, n, "", to)
	case board.ReplyCreated:
		r := c.Reply
		to, err := m.followers(ctx, tx, r.PredictionID, r.AgentID)
		if err != nil || len(to) == 0 {
			return 0, err
		}
		n := m.notification(r.PredictionID, c.Title)
		n.Kind = email.KindReply
		if r.Kind != board.ReplyPlain {
			n.Kind = string(r.Kind) // the email kinds spell the tags the same way
		}
		n.Author, n.Body, n.ReplyID, n.Date = r.AgentName, r.Body, r.ID, r.CreatedAt
		return m.enqueue(ctx, tx, n, r.ID, to)
	case board.PredictionResolved:
		// A resolution goes to the prediction's followers, by taking part
		// or by choice, as a reply does; nobody is left out as its poster.
		p := c.Prediction
		to, err := m.followers(ctx, tx, p.ID, "")
		if err != nil || len(to) == 0 {
			return 0, err
		}
		n := m.notification(p.ID, p.Title)
		n.Kind, n.Author, n.Date = email.KindResolved, c.By, c.At
		n.Body = resolutionText(*p)
		// One message per resolution or correction: its number makes the
		// Message-ID.
		n.ReplyID = fmt.Sprintf("resolution-%d", max(len(p.Resolutions), 1))
		return m.enqueue(ctx, tx, n, n.ReplyID, to)
	case board.PredictionClosed:
		p := c.Prediction
		to, err := m.followers(ctx, tx, p.ID, "")
		if err != nil || len(to) == 0 {
			return 0, err
		}
		n := m.notification(p.ID, p.Title)
		n.Kind, n.Author, n.Date, n.ReplyID = email.KindClosed, "", c.At, "closed"
		n.Body = fmt.Sprintf("The community forecast stands at %s from %d forecasters.", percent(p.Community.P), p.Community.Forecasters)
		return m.enqueue(ctx, tx, n, n.ReplyID, to)
	}
	return 0, nil
}

// resolutionText is the body of a resolution's notification: the
// outcome and where the community forecast stood.
func resolutionText(p board.Prediction) string {
	if p.Outcome == board.OutcomeVoid {
		return "Outcome: void. The question is not scored."
	}
	return fmt.Sprintf("Outcome: %s. The community forecast stood at %s; the author gave it %s. Each forecaster's scores are on the prediction's page.",
		p.Outcome, percent(p.Community.P), percent(p.Confidence))
}

// percent writes a probability as a percent with at most one decimal.
func percent(p float64) string {
	return strconv.FormatFloat(math.Round(p*1000)/10, 'f', -1, 64) + "%"
}

// followers are the recipients of a reply's notification: the
// prediction's followers by taking part ([mailbox.Followers]) and those
// who follow it by choice ([Follows]), each once, but the poster, by id.
func (m *Mail) followers(ctx context.Context, tx bun.Tx, predictionID, poster string) ([]mailbox.Recipient, error) {
	to, err := mailbox.Followers(ctx, tx, predictionID, poster)
	if err != nil || m.follows == nil {
		return to, err
	}
	ids, err := m.follows.FollowerIDs(ctx, tx, predictionID)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{poster: true}
	for _, r := range to {
		have[r.AgentID] = true
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { return have[id] })
	more, err := mailbox.Recipients(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	to = append(to, more...)
	slices.SortFunc(to, func(a, b mailbox.Recipient) int { return strings.Compare(a.AgentID, b.AgentID) })
	return to, nil
}

// SignInLink queues the message that carries a person's sign-in link
// (package people's [people.Mailer]), through tx, the transaction that
// stores the link. Without a base URL there is nothing to link to, and
// it is an error: a person would wait for a message that never comes.
func (m *Mail) SignInLink(ctx context.Context, tx bun.Tx, at time.Time, l people.Link) error {
	if m.baseURL == "" {
		return fmt.Errorf("notify: a sign-in link needs the service's base URL")
	}
	id, err := newMessageID()
	if err != nil {
		return err
	}
	msg := email.SignInLink{From: m.from, To: mail.Address{Name: l.To.Name, Address: l.To.Email}, PersonID: l.To.AgentID,
		URL: m.baseURL + people.SignInLinkPath + "?token=" + l.Token, Expires: l.Expires,
		UnsubscribeURL: m.unsubscribeURL(l.To.UnsubscribeToken), ID: id, Domain: m.domain, Date: at}
	raw, err := msg.Bytes()
	if err != nil {
		return err
	}
	_, err = m.outbox.Enqueue(ctx, tx, outbox.Item{Kind: outbox.Email, Recipient: l.To.Email, Payload: raw})
	return err
}

// Registered queues the confirmation message of a registration; none
// without a base URL, since the message's link is the way to confirm.
func (m *Mail) Registered(ctx context.Context, tx bun.Tx, at time.Time, p mailbox.PendingAddress) (bool, error) {
	return m.confirm(ctx, tx, at, p)
}

// Unsubscribed gives up the pending e-mail to the addresses of an
// unsubscription.
func (m *Mail) Unsubscribed(ctx context.Context, tx bun.Tx, at time.Time, addresses []string) error {
	return Cancel{Outbox: m.outbox}.Unsubscribed(ctx, tx, at, addresses)
}

// Cancel is the mailbox's recorder when the board sends no e-mail for now
// (serve without --smtp-url): it queues nothing, not even confirmation
// messages, but gives up the pending messages of an address that
// unsubscribes, queued while e-mail was on, so that they are not sent
// once it is on again.
type Cancel struct {
	Outbox *outbox.Outbox
}

// Registered queues nothing.
func (Cancel) Registered(context.Context, bun.Tx, time.Time, mailbox.PendingAddress) (bool, error) {
	return false, nil
}

// Unsubscribed gives up the pending e-mail to the addresses of an
// unsubscription; it queues nothing.
func (c Cancel) Unsubscribed(ctx context.Context, tx bun.Tx, _ time.Time, addresses []string) error {
	_, err := c.Outbox.Cancel(ctx, tx, outbox.Email, addresses, "the address unsubscribed")
	return err
}

// notification is the common part of a post's notification.
func (m *Mail) notification(predictionID, title string) email.Notification {
	n := email.Notification{From: m.from, PredictionID: predictionID, Title: title, Domain: m.domain}
	if m.baseURL != "" {
		n.URL = m.baseURL + "/api/predictions/" + predictionID
	}
	return n
}

// enqueue writes one message per recipient. A message that cannot be
// written (which registration's checks make unlikely) is stored as failed
// with the reason, not sent, and does not fail the post.
func (m *Mail) enqueue(ctx context.Context, tx bun.Tx, n email.Notification, replyID string, to []mailbox.Recipient) (int, error) {
	items := make([]outbox.Item, 0, len(to))
	for _, r := range to {
		n.To = []mail.Address{{Name: r.Name, Address: r.Email}}
		n.UnsubscribeURL = m.unsubscribeURL(r.UnsubscribeToken)
		it := outbox.Item{Kind: outbox.Email, Topic: n.PredictionID, Ref: replyID, Recipient: r.Email}
		raw, err := n.Bytes()
		if err != nil {
			it.Failed = err.Error()
		}
		it.Payload = raw
		items = append(items, it)
	}
	if _, err := m.outbox.Enqueue(ctx, tx, items...); err != nil {
		return 0, err
	}
	return len(items), nil
}

// confirm queues the confirmation message of registration r, made at.
func (m *Mail) confirm(ctx context.Context, tx bun.Tx, at time.Time, r mailbox.PendingAddress) (bool, error) {
	if m.baseURL == "" {
		return false, nil
	}
	id, err := newMessageID()
	if err != nil {
		return false, err
	}
	msg := email.Confirmation{From: m.from, To: mail.Address{Name: r.DisplayName, Address: r.Address}, AgentID: r.AgentID, Person: r.Kind == board.KindPerson,
		ConfirmURL:     m.baseURL + "/api/agents/" + url.PathEscape(r.AgentID) + "/email/confirm?token=" + r.Token,
		Token:          r.Token,
		UnsubscribeURL: m.unsubscribeURL(r.UnsubscribeToken),
		Expires:        r.Expires, ID: id, Domain: m.domain, Date: at}
	raw, err := msg.Bytes()
	if err != nil {
		return false, err
	}
	if _, err := m.outbox.Enqueue(ctx, tx, outbox.Item{Kind: outbox.Email, Recipient: r.Address, Payload: raw}); err != nil {
		return false, err
	}
	return true, nil
}

// unsubscribeURL is the one-click link of an address's token; "" without
// a base URL.
func (m *Mail) unsubscribeURL(token string) string {
	if m.baseURL == "" {
		return ""
	}
	return m.baseURL + mailbox.UnsubscribePath + "?token=" + token
}

// newMessageID returns the unique part of a confirmation's Message-ID.
func newMessageID() (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("notify: generating a message id: %w", err)
	}
	return id.String(), nil
}

// WebhookDisabled queues the notice of the endpoint w disabled at at to
// its agent's confirmed address, through tx, the transaction that
// disabled it; none when it has none. It returns how many messages it
// queued.
func (m *Mail) WebhookDisabled(ctx context.Context, tx bun.Tx, w webhooks.Webhook, at time.Time) (int, error) {
	to, err := mailbox.Owner(ctx, tx, w.AgentID)
	if err != nil || len(to) == 0 {
		return 0, err
	}
	r := to[0]
	msg := email.WebhookDisabled{From: m.from, To: mail.Address{Name: r.Name, Address: r.Email}, AgentID: w.AgentID,
		WebhookID: w.ID, URL: w.URL, Reason: w.StatusReason, UnsubscribeURL: m.unsubscribeURL(r.UnsubscribeToken), Domain: m.domain, Date: at}
	it := outbox.Item{Kind: outbox.Email, Ref: w.ID, Recipient: r.Email}
	raw, err := msg.Bytes()
	if err != nil {
		it.Failed = err.Error()
	}
	it.Payload = raw
	if _, err := m.outbox.Enqueue(ctx, tx, it); err != nil {
		return 0, err
	}
	return 1, nil
}
