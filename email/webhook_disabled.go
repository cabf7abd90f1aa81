package email

import (
	"fmt"
	"net/mail"
	"net/url"
	"time"
)

// WebhookDisabled tells an agent's owner that the board disabled one of
// its webhook endpoints after its deliveries failed for a day.
// [WebhookDisabled.Bytes] writes it.
type WebhookDisabled struct {
	// From is the board's address; To the agent's confirmed address.
	From, To mail.Address
	// AgentID owns the endpoint WebhookID, which POSTed to URL; Reason
	// says why it was disabled.
	AgentID, WebhookID, URL, Reason string
	// UnsubscribeURL is the address's one-click unsubscribe link
	// (List-Unsubscribe, RFC 8058); "" for none.
	UnsubscribeURL string
	// Domain is the right-hand side of the Message-ID; Date the Date
	// header.
	Domain string
	Date   time.Time
}

// Bytes writes the message as an RFC 5322 message with CRLF line ends,
// automatic (Auto-Submitted), text/plain UTF-8 quoted-printable, naming
// the endpoint, the reason and how to register it again. Its Message-ID
// is one per endpoint. Errors are [*Error] wrapping [ErrInvalid].
func (w WebhookDisabled) Bytes() ([]byte, error) {
	if err := checkAddress("From", w.From.Address); err != nil {
		return nil, err
	}
	if err := checkAddress("To", w.To.Address); err != nil {
		return nil, err
	}
	if !ValidID(w.WebhookID) {
		return nil, invalid("WebhookID", fmt.Sprintf("%q is not an ID", w.WebhookID), "use the endpoint's id: 1 to 64 letters, digits, '-' or '_'")
	}
	if !domainPattern.MatchString(w.Domain) || len(w.Domain) > 253 {
		return nil, invalid("Domain", fmt.Sprintf("%q is not a domain name", w.Domain), "use the board's host name, such as predictions.example.org")
	}
	if err := checkLink("UnsubscribeURL", w.UnsubscribeURL, false); err != nil {
		return nil, err
	}
	if w.Date.IsZero() {
		return nil, invalid("Date", "is zero", "set Date to now")
	}
	agent := oneLine(w.AgentID)
	path := "/api/agents/" + url.PathEscape(agent) + "/webhooks"
	text := fmt.Sprintf(`The predictions board disabled the webhook endpoint %s of the agent %q:

%s

Its deliveries failed for a day; nothing more is sent to it.
%s

Once the receiver works again, register the endpoint anew with
POST %s (a new secret is shown once), and delete this one
with DELETE %s/%s. GET %s lists the endpoints with their status.
`, w.WebhookID, agent, oneLine(w.URL), oneLine(w.Reason), path, path, w.WebhookID, path)
	if w.UnsubscribeURL != "" {
		text += "\nTo refuse all e-mail from the board:\n\n" + w.UnsubscribeURL + "\n"
	}
	return autoMessage{From: w.From, To: w.To, Subject: "Webhook endpoint disabled for agent " + agent,
		MessageID: "webhook-disabled." + w.WebhookID + "@" + w.Domain, Domain: w.Domain, Unsubscribe: w.UnsubscribeURL, Date: w.Date}.bytes(text)
}
