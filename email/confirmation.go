package email

import (
	"bytes"
	"fmt"
	"mime/quotedprintable"
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// Confirmation is the message that asks the owner of an address to
// confirm it (double opt-in): the only message the board sends to an
// address before it is confirmed. [Confirmation.Bytes] writes it.
type Confirmation struct {
	// From is the board's address; To the address to confirm.
	From, To mail.Address
	// AgentID is the agent that registered the address; Person says it
	// is a person's id (a person adding an address from their page).
	AgentID string
	Person  bool
	// ConfirmURL is the single-use link to the confirmation page (an
	// absolute http or https URL carrying the token); Token is the
	// token itself, for agents that confirm through the API.
	ConfirmURL, Token string
	// UnsubscribeURL is the address's one-click unsubscribe link
	// (List-Unsubscribe, RFC 8058); required.
	UnsubscribeURL string
	// Expires is when the link stops working.
	Expires time.Time
	// ID makes the Message-ID unique (1 to 64 letters, digits, '-' or
	// '_'); Domain is its right-hand side; Date the Date header.
	ID, Domain string
	Date       time.Time
}

// Bytes writes the confirmation as an RFC 5322 message with CRLF line
// ends: Date, From, To, Subject, Message-ID, List-Id, List-Unsubscribe
// and List-Unsubscribe-Post, Auto-Submitted, a text/plain UTF-8
// quoted-printable body naming the agent, the link, the token and the
// expiry, and saying that ignoring the message is enough. It has no
// Reply-To of a prediction: a reply records nothing. Errors are [*Error]
// wrapping [ErrInvalid].
func (c Confirmation) Bytes() ([]byte, error) {
	if err := checkAddress("From", c.From.Address); err != nil {
		return nil, err
	}
	if err := checkAddress("To", c.To.Address); err != nil {
		return nil, err
	}
	if !ValidID(c.ID) {
		return nil, invalid("ID", fmt.Sprintf("%q is not an ID", c.ID), "use 1 to 64 letters, digits, '-' or '_'")
	}
	if !domainPattern.MatchString(c.Domain) || len(c.Domain) > 253 {
		return nil, invalid("Domain", fmt.Sprintf("%q is not a domain name", c.Domain), "use the board's host name, such as predictions.example.org")
	}
	if err := checkLink("ConfirmURL", c.ConfirmURL, true); err != nil {
		return nil, err
	}
	if err := checkLink("UnsubscribeURL", c.UnsubscribeURL, true); err != nil {
		return nil, err
	}
	if c.Date.IsZero() || c.Expires.IsZero() {
		return nil, invalid("Date", "the date or the expiry is zero", "set Date to now and Expires to when the link stops working")
	}
	who, what := "agent", "the new predictions it subscribed to, and\nreplies in threads it follows"
	if c.Person {
		who, what = "person", "replies in the questions you follow, and\nsign-in links when you ask for one"
	}
	text := fmt.Sprintf(`The %s %q registered this address on the predictions board.

To receive the board's e-mail (%s), open this link and press Confirm:

%s

or send the token with POST /api/agents/%s/email/confirm {"token": "%s"}.

The link works once, until %s. If you did not ask for this,
ignore this message: nothing more is sent to this address unless it is
confirmed. To refuse all e-mail from the board:

%s
`, who, oneLine(c.AgentID), what, c.ConfirmURL, url.PathEscape(oneLine(c.AgentID)), c.Token, c.Expires.UTC().Format(time.RFC1123), c.UnsubscribeURL)
	return autoMessage{From: c.From, To: c.To, Subject: "Confirm your address for " + who + " " + oneLine(c.AgentID),
		MessageID: "confirm." + c.ID + "@" + c.Domain, Domain: c.Domain, Unsubscribe: c.UnsubscribeURL, Date: c.Date}.bytes(text)
}

// autoMessage is the frame of a message the board writes on its own
// (not a post's notification): headers for an automatic message
// (Auto-Submitted, RFC 3834) and a text/plain UTF-8 quoted-printable body.
type autoMessage struct {
	From, To           mail.Address
	Subject, MessageID string // the Message-ID without its angle brackets
	Domain             string // of the List-Id
	Unsubscribe        string // the one-click link; "" for none
	Date               time.Time
}

// bytes writes the message with text as its body, with CRLF line ends.
func (m autoMessage) bytes(text string) ([]byte, error) {
	var b bytes.Buffer
	h := func(name, value string) { writeHeader(&b, name, value) }
	h("Date", m.Date.Format(time.RFC1123Z))
	h("From", addr(m.From).String())
	h("To", addr(m.To).String())
	h("Subject", encodeHeader(m.Subject))
	h("Message-ID", "<"+m.MessageID+">")
	h("List-Id", "Predictions board <predictions."+m.Domain+">")
	writeUnsubscribe(&b, m.Unsubscribe)
	h("Auto-Submitted", "auto-generated")
	h("X-Auto-Response-Suppress", "All")
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(text)); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\r\n")) {
		b.WriteString("\r\n")
	}
	return b.Bytes(), nil
}

// writeUnsubscribe writes List-Unsubscribe and List-Unsubscribe-Post
// (RFC 8058: a POST of List-Unsubscribe=One-Click to the link
// unsubscribes at once) when link is set.
func writeUnsubscribe(b *bytes.Buffer, link string) {
	if link == "" {
		return
	}
	writeHeader(b, "List-Unsubscribe", "<"+link+">")
	writeHeader(b, "List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
}

// checkLink accepts "" (unless required) or an absolute http or https
// URL with nothing that could end a header or an angle-bracketed link.
func checkLink(field, link string, required bool) error {
	if link == "" {
		if required {
			return invalid(field, "the link is empty", "set it to an absolute https URL under the board's base URL")
		}
		return nil
	}
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		strings.ContainsAny(link, "<> \t\r\n\"") {
		return invalid(field, fmt.Sprintf("%q is not an absolute http or https URL", link), "use a link such as https://predictions.example.org/api/email/unsubscribe?token=...")
	}
	return nil
}
