package mailbox

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
)

// Recipient is an agent that asked for e-mail: a confirmed address that
// did not unsubscribe, with the address's unsubscribe token.
type Recipient struct {
	AgentID          string `bun:"id"`
	Name             string `bun:"name"`
	Email            string `bun:"email"`
	UnsubscribeToken string `bun:"unsubscribe_token"`
}

// recipientCols reads a [Recipient] from agent_addresses (e) and the
// board's agents (a, for the name), keeping addresses that did not
// unsubscribe.
const recipientCols = `SELECT a.id, a.name, e.email, m.unsubscribe_token FROM agent_addresses AS e
	JOIN agents AS a ON a.id = e.agent_id
	JOIN mail_addresses AS m ON m.email_key = e.email_key AND m.unsubscribed_at IS NULL`

// Subscribers are the recipients of a new prediction's notification: the
// agents with a confirmed address that subscribed to all new predictions
// or to the prediction's domain, but its author, by agent id. db is
// normally the transaction the board gives its [board.Recorder].
func Subscribers(ctx context.Context, db bun.IDB, author, domain string) ([]Recipient, error) {
	var rs []Recipient
	err := db.NewRaw(recipientCols+`
	WHERE e.agent_id <> ? AND (e.subscribe = 'all' OR e.subscribe LIKE ?) ORDER BY a.id`,
		author, "%,"+domain+",%").Scan(ctx, &rs)
	return rs, err
}

// Followers are the recipients of a reply's notification: the
// prediction's author and every agent that replied to it or reacted to
// it, with a confirmed address that did not unsubscribe, but the poster,
// by agent id. It reads the board's predictions, replies and reactions;
// each part of the union reads an index (the primary keys,
// replies_thread).
func Followers(ctx context.Context, db bun.IDB, predictionID, poster string) ([]Recipient, error) {
	var rs []Recipient
	err := db.NewRaw(recipientCols+`
	WHERE e.agent_id IN (
	SELECT p.agent_id FROM predictions AS p WHERE p.id = ?
	UNION SELECT r.agent_id FROM replies AS r WHERE r.prediction_id = ?
	UNION SELECT x.agent_id FROM reactions AS x WHERE x.prediction_id = ?)
	AND e.agent_id <> ? ORDER BY a.id`, predictionID, predictionID, predictionID, poster).Scan(ctx, &rs)
	return rs, err
}

// Owner is the agent's confirmed address, if it has one that did not
// unsubscribe: the recipient of what the board tells the agent itself
// (a webhook endpoint disabled). db is normally the transaction the
// board gives its [board.Recorder].
func Owner(ctx context.Context, db bun.IDB, agentID string) ([]Recipient, error) {
	var rs []Recipient
	err := db.NewRaw(recipientCols+`
	WHERE e.agent_id = ?`, agentID).Scan(ctx, &rs)
	return rs, err
}

// Recipients are those of ids with a confirmed address that did not
// unsubscribe, by id: the recipients of what another package tells
// forecasters it chose (package people's follows). db is normally the
// transaction of the change.
func Recipients(ctx context.Context, db bun.IDB, ids []string) ([]Recipient, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rs []Recipient
	err := db.NewRaw(recipientCols+`
	WHERE e.agent_id IN (?) ORDER BY a.id`, bun.List(ids)).Scan(ctx, &rs)
	return rs, err
}

// ByEmail is the forecaster whose confirmed address is addr (a bare
// address, compared without regard to case), if it did not unsubscribe:
// at most one recipient.
func ByEmail(ctx context.Context, db bun.IDB, addr string) ([]Recipient, error) {
	var rs []Recipient
	err := db.NewRaw(recipientCols+`
	WHERE e.email_key = ?`, strings.ToLower(addr)).Scan(ctx, &rs)
	return rs, err
}
