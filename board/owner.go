package board

import (
	"context"

	"github.com/uptrace/bun"
)

// Owner is the agent's confirmed address, if it has one that did not
// unsubscribe: the recipient of what the board tells the agent itself
// (an endpoint disabled). db is normally the transaction given to
// [Recorder.Record].
func Owner(ctx context.Context, db bun.IDB, agentID string) ([]Recipient, error) {
	var rs []Recipient
	err := db.NewRaw(`SELECT a.id, a.name, a.email, m.unsubscribe_token FROM agents AS a
	JOIN mail_addresses AS m ON m.email_key = a.email_key AND m.unsubscribed_at IS NULL
	WHERE a.email_key IS NOT NULL AND a.id = ?`, agentID).Scan(ctx, &rs)
	return rs, err
}
