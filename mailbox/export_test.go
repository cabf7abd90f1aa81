package mailbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/quotedprintable"
	"regexp"
)

var tokenInLink = regexp.MustCompile(`confirm\?token=([A-Za-z0-9_-]+)`)

// ConfirmationToken returns the token of the latest confirmation message
// queued for addr, read from the message as its recipient would. Test-only.
func ConfirmationToken(ctx context.Context, b *Box, addr string) (string, error) {
	var msgs [][]byte
	if err := b.db.NewRaw(`SELECT payload FROM outbox WHERE kind = 'email' AND topic = '' AND recipient = ? ORDER BY created_at DESC, id DESC`,
		addr).Scan(ctx, &msgs); err != nil {
		return "", err
	}
	if len(msgs) == 0 {
		return "", fmt.Errorf("no confirmation message to %s", addr)
	}
	_, body, _ := bytes.Cut(msgs[0], []byte("\r\n\r\n"))
	text, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
	if err != nil {
		return "", err
	}
	m := tokenInLink.FindSubmatch(text)
	if m == nil {
		return "", fmt.Errorf("no token in the confirmation message to %s:\n%s", addr, msgs[0])
	}
	return string(m[1]), nil
}

// ConfirmationMessages counts the confirmation messages queued for addr.
func ConfirmationMessages(ctx context.Context, b *Box, addr string) (int, error) {
	var n int
	err := b.db.NewRaw(`SELECT COUNT(*) FROM outbox WHERE kind = 'email' AND topic = '' AND recipient = ?`, addr).Scan(ctx, &n)
	return n, err
}

// ResetToken gives the agent's latest pending registration a new token
// and returns it, for boxes without mail (no message to read it from).
func ResetToken(ctx context.Context, b *Box, agentID string) (string, error) {
	tok, hash, err := newToken()
	if err != nil {
		return "", err
	}
	var latest []string
	if err := b.db.NewRaw(`SELECT token_hash FROM email_confirmations WHERE agent_id = ? AND used_at IS NULL
	ORDER BY created_at DESC LIMIT 1`, agentID).Scan(ctx, &latest); err != nil {
		return "", err
	}
	if len(latest) == 0 {
		return "", fmt.Errorf("agent %s has no pending registration", agentID)
	}
	_, err = b.db.ExecContext(ctx, `UPDATE email_confirmations SET token_hash = ? WHERE token_hash = ?`, hash, latest[0])
	return tok, err
}

// DropConfirmations deletes the confirmation messages from the outbox, as
// if they had been delivered and pruned, so that tests of notifications
// count only those; nothing when the box has no recorder. Test-only.
func DropConfirmations(ctx context.Context, b *Box) error {
	if b.recorder == nil {
		return nil
	}
	_, err := b.db.ExecContext(ctx, `DELETE FROM outbox WHERE kind = 'email' AND topic = ''`)
	return err
}

// RowCounts counts the rows of the board's tables that a reply writes.
func RowCounts(ctx context.Context, b *Box) (map[string]int, error) {
	out := map[string]int{}
	for _, table := range []string{"agents", "predictions", "replies", "reactions", "inbound_messages"} {
		var n int
		if err := b.db.NewRaw("SELECT COUNT(*) FROM "+table).Scan(ctx, &n); err != nil {
			return nil, err
		}
		out[table] = n
	}
	return out, nil
}

// ParseSubscribe is parseSubscribe, for the fuzz test.
func ParseSubscribe(raw []byte) (Subscription, bool, error) { return parseSubscribe(raw) }

// NameFromEmail is nameFromEmail, for the fuzz test.
func NameFromEmail(addr, display string) string { return nameFromEmail(addr, display) }

// HashToken is hashToken and InboundKey inboundKey, for writing the rows
// of an old board.
func HashToken(token string) string { return hashToken(token) }
func InboundKey(agentID, predictionID, messageID string) string {
	return inboundKey(agentID, predictionID, messageID)
}

// BoardTables are the box's tables that a board made before the box had
// a package of its own, as the board's migration made them. Test-only.
func BoardTables() []string { return boardTables() }
