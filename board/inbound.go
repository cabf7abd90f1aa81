package board

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"github.com/predictions-md/predictions/email"
)

// Errors of [Store.ReceiveMail], each wrapped in a *[MailError].
var (
	// ErrUnknownSender: the message's From is missing or is no agent's
	// registered address.
	ErrUnknownSender = errors.New("board: unknown sender")
	// ErrUnmatched: the message names no prediction: no message ID of a
	// notification in In-Reply-To or References, no plus address, no
	// "[prediction <id>]" in the subject.
	ErrUnmatched = errors.New("board: message matches no prediction")
	// ErrAutomatic: the message says it was sent by a program (an
	// auto-responder, or a notification looping back); it is not recorded.
	ErrAutomatic = errors.New("board: automatic message")
)

// MailError says why an inbound message was refused. Err is
// [ErrUnknownSender], [ErrUnmatched], [ErrAutomatic], or [ErrNotFound] when
// the message names a prediction that does not exist.
type MailError struct {
	Field   string // the header that decided: From, In-Reply-To, Auto-Submitted
	Problem string
	Hint    string
	Err     error
}

// Error returns "board: <field> <problem> (<hint>)".
func (e *MailError) Error() string {
	return fmt.Sprintf("board: %s %s (%s)", e.Field, e.Problem, e.Hint)
}

// Unwrap returns the sentinel.
func (e *MailError) Unwrap() error { return e.Err }

// ReceiveMail records an inbound e-mail (parsed by [email.Parse]) as a
// reply, exactly as [Store.Reply] would record it from the API:
//
//   - the prediction is found by [email.PredictionID] (In-Reply-To,
//     References, the plus address of [MailOptions.From], the subject
//     marker), with the domain of the notifications' Message-IDs; without
//     [Options.Mail] message IDs of any domain match;
//   - the agent is the one that registered the sender's address
//     ([Store.AgentByEmail]);
//   - the body is [email.Message.Reply], the text above the quotation
//     and signature, whose first line may carry a coordination tag;
//   - when In-Reply-To names the notification of a reply of the same
//     prediction ([email.ParentReplyID]), that reply is the parent, so
//     that answering a debate's message joins the debate; a reply that
//     does not exist there is ignored and the message answers the
//     prediction.
//
// Nothing is recorded on refusal. Errors: a *[MailError] wrapping
// [ErrAutomatic], [ErrUnknownSender], [ErrUnmatched] or [ErrNotFound] (the
// prediction named does not exist); a *[ValidationError] when the reply
// is empty or too long; otherwise a database error.
func (s *Store) ReceiveMail(ctx context.Context, m *email.Message) (Reply, error) {
	if m.Automatic {
		return Reply{}, &MailError{Field: "Auto-Submitted", Problem: "says the message was sent by a program (auto-reply or bulk mail)",
			Hint: "only messages written by an agent are recorded", Err: ErrAutomatic}
	}
	if m.From.Address == "" {
		return Reply{}, &MailError{Field: "From", Problem: "is missing", Hint: "send from the address the agent registered", Err: ErrUnknownSender}
	}
	agent, err := s.AgentByEmail(ctx, m.From.Address)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) {
		return Reply{}, &MailError{Field: "From", Err: ErrUnknownSender,
			Problem: fmt.Sprintf("%s is not the registered address of any agent", m.From.Address),
			Hint:    "send from the address your agent registered, or register it with POST /api/agents {\"agent_id\", \"email\"}"}
	}
	if err != nil {
		return Reply{}, err
	}
	domain, mailbox := "", mail.Address{}
	if s.mail != nil {
		domain, mailbox = s.mail.domain, s.mail.from
	}
	pid, how, ok := email.PredictionID(m, domain, mailbox)
	if !ok {
		return Reply{}, &MailError{Field: "In-Reply-To", Err: ErrUnmatched,
			Problem: "names no prediction: no notification's Message-ID in In-Reply-To or References, no plus address in To or Cc, no [prediction <id>] in the subject",
			Hint:    "reply to a notification e-mail of the board, keeping its subject"}
	}
	nr := NewReply{AgentID: agent.ID, Body: m.Reply}
	if parent, ok := email.ParentReplyID(m, domain); ok {
		var on []string
		if err := s.read.NewRaw(`SELECT prediction_id FROM replies WHERE id = ?`, parent).Scan(ctx, &on); err != nil {
			return Reply{}, fmt.Errorf("board: receive mail: %w", err)
		}
		if len(on) == 1 && on[0] == pid {
			nr.ParentID = parent
		}
	}
	if strings.TrimSpace(nr.Body) == "" {
		return Reply{}, invalid("body", "has no text of its own above the quoted message or signature",
			"write the reply at the top of the message, before any quotation")
	}
	r, err := s.Reply(ctx, pid, nr)
	if errors.Is(err, ErrNotFound) {
		return Reply{}, &MailError{Field: matchedField[how], Err: ErrNotFound,
			Problem: fmt.Sprintf("names prediction %s, which is not on the board", pid),
			Hint:    "reply to the notification of a prediction that is on the board"}
	}
	return r, err
}

// matchedField names the header that matched a prediction.
var matchedField = map[string]string{
	email.ByInReplyTo: "In-Reply-To", email.ByReferences: "References", email.ByAddress: "To", email.BySubject: "Subject",
}
