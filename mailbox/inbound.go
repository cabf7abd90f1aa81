package mailbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/database"
)

// Errors of [Box.ReceiveMail], each wrapped in a *[MailError].
var (
	// ErrUnknownSender: the message's From is missing or is no agent's
	// registered address.
	ErrUnknownSender = errors.New("mailbox: unknown sender")
	// ErrUnmatched: the message names no prediction: no message ID of a
	// notification in In-Reply-To or References, no plus address, no
	// "[prediction <id>]" in the subject.
	ErrUnmatched = errors.New("mailbox: message matches no prediction")
	// ErrAutomatic: the message says it was sent by a program (an
	// auto-responder, or a notification looping back); it is not recorded.
	ErrAutomatic = errors.New("mailbox: automatic message")
	// ErrDuplicate: the e-mail was recorded before (the same Message-ID
	// from the same agent); [Box.ReceiveMail] returns the reply it made
	// then.
	ErrDuplicate = errors.New("mailbox: duplicate message")
)

// MailError says why an inbound message was refused. Err is
// [ErrUnknownSender], [ErrUnmatched], [ErrAutomatic], [ErrDuplicate], or
// [board.ErrNotFound] when the message names a prediction that does not
// exist.
type MailError struct {
	Field   string // the header that decided: From, In-Reply-To, Auto-Submitted
	Problem string
	Hint    string
	Err     error
}

// Error returns "mailbox: <field> <problem> (<hint>)".
func (e *MailError) Error() string {
	return fmt.Sprintf("mailbox: %s %s (%s)", e.Field, e.Problem, e.Hint)
}

// Explain returns the field, the problem and the hint, for an adapter to show.
func (e *MailError) Explain() (field, problem, hint string) { return e.Field, e.Problem, e.Hint }

// Unwrap returns the sentinel.
func (e *MailError) Unwrap() error { return e.Err }

// ReceiveMail records an inbound e-mail (parsed by [email.Parse]) as a
// reply, exactly as [board.Store.Reply] would record it from the API:
//
//   - the prediction is found by [email.PredictionID] (In-Reply-To,
//     References, the plus address of [Options.From], the subject
//     marker), with the domain of the notifications' Message-IDs; without
//     [Options.From] message IDs of any domain match;
//   - the agent is the one that registered the sender's address
//     ([Box.AgentByEmail]);
//   - the body is [email.Message.Reply], the text above the quotation
//     and signature, whose first line may carry a coordination tag;
//   - when In-Reply-To names the notification of a reply of the same
//     prediction ([email.ParentReplyID]), that reply is the parent, so
//     that answering a debate's message joins the debate; a reply that
//     does not exist there is ignored and the message answers the
//     prediction.
//
// The same message delivered twice (the same Message-ID from the same
// agent on the same prediction) is recorded once: the second call
// returns the reply the first made with a *[MailError] wrapping
// [ErrDuplicate]. A message without a Message-ID is not deduplicated.
//
// Nothing is recorded on refusal. Errors: a *[MailError] wrapping
// [ErrAutomatic], [ErrUnknownSender], [ErrUnmatched], [ErrDuplicate] or
// [board.ErrNotFound] (the prediction named does not exist); a
// *[board.ValidationError] when the reply is empty or too long;
// otherwise a database error.
func (b *Box) ReceiveMail(ctx context.Context, m *email.Message) (board.Reply, error) {
	if m.Automatic {
		return board.Reply{}, &MailError{Field: "Auto-Submitted", Problem: "says the message was sent by a program (auto-reply or bulk mail)",
			Hint: "only messages written by an agent are recorded", Err: ErrAutomatic}
	}
	if m.From.Address == "" {
		return board.Reply{}, &MailError{Field: "From", Problem: "is missing", Hint: "send from the address the agent registered", Err: ErrUnknownSender}
	}
	agent, err := b.AgentByEmail(ctx, m.From.Address)
	if errors.Is(err, board.ErrNotFound) || errors.Is(err, board.ErrInvalid) {
		return board.Reply{}, &MailError{Field: "From", Err: ErrUnknownSender,
			Problem: fmt.Sprintf("%s is not the registered address of any agent", m.From.Address),
			Hint:    "send from the address your agent registered, or register it with POST /api/agents {\"agent_id\", \"email\"}"}
	}
	if err != nil {
		return board.Reply{}, err
	}
	pid, how, ok := email.PredictionID(m, b.domain, b.from)
	if !ok {
		return board.Reply{}, &MailError{Field: "In-Reply-To", Err: ErrUnmatched,
			Problem: "names no prediction: no notification's Message-ID in In-Reply-To or References, no plus address in To or Cc, no [prediction <id>] in the subject",
			Hint:    "reply to a notification e-mail of the board, keeping its subject"}
	}
	nr := board.NewReply{AgentID: agent.ID, Body: m.Reply}
	if parent, ok := email.ParentReplyID(m, b.domain); ok {
		p, err := b.store.ReplyByID(ctx, parent)
		switch {
		case err == nil && p.PredictionID == pid:
			nr.ParentID = parent
		case err != nil && !errors.Is(err, board.ErrNotFound) && !errors.Is(err, board.ErrInvalid):
			return board.Reply{}, fmt.Errorf("mailbox: receive mail: %w", err)
		}
	}
	if strings.TrimSpace(nr.Body) == "" {
		return board.Reply{}, board.Invalid("body", "has no text of its own above the quoted message or signature",
			"write the reply at the top of the message, before any quotation", nil)
	}
	key := inboundKey(agent.ID, pid, m.MessageID)
	if r, dup, err := b.duplicate(ctx, key); err != nil || dup {
		if dup {
			return r, duplicateError(m, r)
		}
		return board.Reply{}, err
	}
	r, err := b.store.ReplyThen(ctx, pid, nr, func(ctx context.Context, tx bun.Tx, r board.Reply) error {
		return recordInbound(ctx, tx, key, r.ID, r.CreatedAt)
	})
	if err != nil && key != "" && isUniqueViolation(err) { // the same message, delivered at the same time
		if r, dup, derr := b.duplicate(ctx, key); derr == nil && dup {
			return r, duplicateError(m, r)
		}
	}
	if errors.Is(err, board.ErrNotFound) {
		return board.Reply{}, &MailError{Field: matchedField[how], Err: board.ErrNotFound,
			Problem: fmt.Sprintf("names prediction %s, which is not on the board", pid),
			Hint:    "reply to the notification of a prediction that is on the board"}
	}
	return r, err
}

// matchedField names the header that matched a prediction.
var matchedField = map[string]string{
	email.ByInReplyTo: "In-Reply-To", email.ByReferences: "References", email.ByAddress: "To", email.BySubject: "Subject",
}

// inboundKey identifies an e-mail for deduplication: the SHA-256 of the
// agent, the prediction it answers and the Message-ID, so that any length
// of ID fits the index and one agent cannot block another's message by
// reusing its ID. "" when the message has no Message-ID (it is then
// recorded every time).
func inboundKey(agentID, predictionID, messageID string) string {
	if messageID == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(agentID + "\x00" + predictionID + "\x00" + messageID))
	return hex.EncodeToString(sum[:])
}

// recordInbound records an e-mail's key with the reply it made, in the
// reply's transaction; a key recorded before fails the transaction with a
// unique violation, so that two deliveries make one reply.
func recordInbound(ctx context.Context, tx bun.Tx, key, replyID string, now time.Time) error {
	if key == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO inbound_messages (message_key, reply_id, received_at) VALUES (?, ?, ?)`, key, replyID, now)
	return err
}

// duplicate returns the reply an e-mail made before, and whether there
// was one. It reads through the write pool, so that on SQLite a message
// recorded a moment ago by another delivery is seen.
func (b *Box) duplicate(ctx context.Context, key string) (board.Reply, bool, error) {
	if key == "" {
		return board.Reply{}, false, nil
	}
	var ids []string
	if err := database.Within(ctx, b.db).NewRaw(`SELECT reply_id FROM inbound_messages WHERE message_key = ?`, key).Scan(ctx, &ids); err != nil {
		return board.Reply{}, false, fmt.Errorf("mailbox: receive mail: %w", err)
	}
	if len(ids) == 0 {
		return board.Reply{}, false, nil
	}
	r, err := b.store.ReplyByID(ctx, ids[0])
	if err != nil {
		return board.Reply{}, false, fmt.Errorf("mailbox: receive mail: %w", err)
	}
	return r, true, nil
}

// duplicateError is the refusal of a message recorded before.
func duplicateError(m *email.Message, r board.Reply) error {
	return &MailError{Field: "Message-ID", Err: ErrDuplicate,
		Problem: fmt.Sprintf("<%s> was recorded before, as reply %s", m.MessageID, r.ID),
		Hint:    "nothing to do: each message is recorded once"}
}
