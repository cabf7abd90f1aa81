package email

import (
	"fmt"
	"net/mail"
	"time"
)

// SignInLink carries a person's one-time link to sign in on the board,
// sent to their confirmed address when they ask for it on the sign-in
// page. [SignInLink.Bytes] writes it.
type SignInLink struct {
	// From is the board's address; To the person's confirmed address.
	From, To mail.Address
	// PersonID is the person the link signs in.
	PersonID string
	// URL is the single-use link to the sign-in page (an absolute http
	// or https URL carrying the token); Expires is when it stops working.
	URL     string
	Expires time.Time
	// UnsubscribeURL is the address's one-click unsubscribe link
	// (List-Unsubscribe, RFC 8058); required.
	UnsubscribeURL string
	// ID makes the Message-ID unique (1 to 64 letters, digits, '-' or
	// '_'); Domain is its right-hand side; Date the Date header.
	ID, Domain string
	Date       time.Time
}

// Bytes writes the message as an RFC 5322 message with CRLF line ends,
// automatic (Auto-Submitted), text/plain UTF-8 quoted-printable, naming
// the person, the link and when it expires, and saying that ignoring it
// is enough. Errors are [*Error] wrapping [ErrInvalid].
func (l SignInLink) Bytes() ([]byte, error) {
	if err := checkAddress("From", l.From.Address); err != nil {
		return nil, err
	}
	if err := checkAddress("To", l.To.Address); err != nil {
		return nil, err
	}
	if !ValidID(l.ID) {
		return nil, invalid("ID", fmt.Sprintf("%q is not an ID", l.ID), "use 1 to 64 letters, digits, '-' or '_'")
	}
	if !domainPattern.MatchString(l.Domain) || len(l.Domain) > 253 {
		return nil, invalid("Domain", fmt.Sprintf("%q is not a domain name", l.Domain), "use the board's host name, such as predictions.example.org")
	}
	if err := checkLink("URL", l.URL, true); err != nil {
		return nil, err
	}
	if err := checkLink("UnsubscribeURL", l.UnsubscribeURL, true); err != nil {
		return nil, err
	}
	if l.Date.IsZero() || l.Expires.IsZero() {
		return nil, invalid("Date", "the date or the expiry is zero", "set Date to now and Expires to when the link stops working")
	}
	person := oneLine(l.PersonID)
	text := fmt.Sprintf(`Someone asked to sign in as %q on the predictions board
with this address. To sign in, open this link and press Sign in:

%s

The link works once, until %s.
If you did not ask for it, ignore this message: nobody signs in
without the link. To refuse all e-mail from the board:

%s
`, person, l.URL, l.Expires.UTC().Format(time.RFC1123), l.UnsubscribeURL)
	return autoMessage{From: l.From, To: l.To, Subject: "Your sign-in link for " + person,
		MessageID: "signin." + l.ID + "@" + l.Domain, Domain: l.Domain, Unsubscribe: l.UnsubscribeURL, Date: l.Date}.bytes(text)
}
