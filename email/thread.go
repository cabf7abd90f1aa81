package email

import (
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
)

// How a message was matched to its prediction by [PredictionID], in the
// order the rules are tried.
const (
	ByInReplyTo  = "in-reply-to" // In-Reply-To names a thread or reply message ID
	ByReferences = "references"  // References does
	ByAddress    = "address"     // a To or Cc address is the plus address of the mailbox
	BySubject    = "subject"     // the subject has the marker "[prediction <id>]"
)

// ValidID reports whether s has the shape of the prediction and reply IDs
// this package writes into message IDs and addresses: letters, digits, "-"
// and "_", 1 to 64 of them (the board's UUIDv7 strings fit). Dots are
// excluded because they separate the parts of a reply's message ID.
func ValidID(s string) bool { return idPattern.MatchString(s) }

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ThreadID is the message ID (without angle brackets) of the notification
// of a new prediction, which every later message of the thread refers to:
// "prediction.<id>@<domain>".
func ThreadID(predictionID, domain string) string {
	return "prediction." + predictionID + "@" + domain
}

// ReplyMessageID is the message ID (without angle brackets) of the
// notification of a reply: "reply.<replyid>.<predictionid>@<domain>". It
// names the prediction too, so an answer to a reply notification is
// matched to its prediction even by a client that drops References.
func ReplyMessageID(predictionID, replyID, domain string) string {
	return "reply." + replyID + "." + predictionID + "@" + domain
}

// ParseMessageID reads a message ID written by [ThreadID] or
// [ReplyMessageID] (angle brackets optional). replyID is "" for a thread
// ID. The domain must match, ignoring case; an empty domain accepts any.
func ParseMessageID(id, domain string) (predictionID, replyID string, ok bool) {
	id = strings.Trim(strings.TrimSpace(id), "<>")
	local, dom, found := strings.Cut(id, "@")
	if !found || (domain != "" && !strings.EqualFold(dom, domain)) {
		return "", "", false
	}
	if rest, ok := strings.CutPrefix(local, "prediction."); ok {
		if ValidID(rest) {
			return rest, "", true
		}
		return "", "", false
	}
	if rest, ok := strings.CutPrefix(local, "reply."); ok {
		r, p, found := strings.Cut(rest, ".")
		if found && ValidID(r) && ValidID(p) {
			return p, r, true
		}
	}
	return "", "", false
}

// ReplyAddress is the plus address that names a prediction: the local part
// of from gets "+<id>" (board@example.org -> board+<id>@example.org; a
// plus part already there is replaced). The name is kept. An address
// without "@" is returned unchanged.
func ReplyAddress(from mail.Address, predictionID string) mail.Address {
	at := strings.LastIndexByte(from.Address, '@')
	if at < 0 {
		return from
	}
	local, domain := from.Address[:at], from.Address[at:]
	if plus := strings.IndexByte(local, '+'); plus >= 0 {
		local = local[:plus]
	}
	return mail.Address{Name: from.Name, Address: local + "+" + predictionID + domain}
}

// subjectMarker finds "[prediction <id>]" in a subject, any case.
var subjectMarker = regexp.MustCompile(`(?i)\[\s*prediction\s+([A-Za-z0-9_-]{1,64})\s*\]`)

// PredictionID finds the prediction an inbound message answers. The rules,
// first match wins: an ID of In-Reply-To, then of References (newest
// first), that [ParseMessageID] reads with domain; a To or Cc address that
// is the plus address of mailbox ([ReplyAddress], compared without regard
// to case; skipped when mailbox.Address is ""); the subject marker
// "[prediction <id>]" that notifications carry. how is one of
// [ByInReplyTo], [ByReferences], [ByAddress], [BySubject].
func PredictionID(m *Message, domain string, mailbox mail.Address) (id, how string, ok bool) {
	if m == nil {
		return "", "", false
	}
	for _, ref := range m.InReplyTo {
		if p, _, ok := ParseMessageID(ref, domain); ok {
			return p, ByInReplyTo, true
		}
	}
	for i := len(m.References) - 1; i >= 0; i-- {
		if p, _, ok := ParseMessageID(m.References[i], domain); ok {
			return p, ByReferences, true
		}
	}
	if at := strings.LastIndexByte(mailbox.Address, '@'); at > 0 {
		local, dom := mailbox.Address[:at], mailbox.Address[at+1:]
		if plus := strings.IndexByte(local, '+'); plus >= 0 {
			local = local[:plus]
		}
		for _, list := range [][]mail.Address{m.To, m.Cc} {
			for _, a := range list {
				at := strings.LastIndexByte(a.Address, '@')
				if at < 0 || !strings.EqualFold(a.Address[at+1:], dom) {
					continue
				}
				l, tag, found := strings.Cut(a.Address[:at], "+")
				if found && strings.EqualFold(l, local) && ValidID(tag) {
					return tag, ByAddress, true
				}
			}
		}
	}
	if sm := subjectMarker.FindStringSubmatch(m.Subject); sm != nil {
		return sm[1], BySubject, true
	}
	return "", "", false
}

// ParentReplyID is the reply whose notification m answers directly: the
// reply ID of the first In-Reply-To that [ParseMessageID] reads as a reply
// message ID. The board uses it as the parent of the new reply, which is
// how a reply joins a [DEBATE] by e-mail. ok is false when m answers the
// prediction itself or an unknown message.
func ParentReplyID(m *Message, domain string) (replyID string, ok bool) {
	if m == nil {
		return "", false
	}
	for _, ref := range m.InReplyTo {
		if _, r, ok := ParseMessageID(ref, domain); ok {
			return r, r != ""
		}
	}
	return "", false
}

// IDDomain is the right-hand side of the board's Message-IDs: the host
// name of baseURL (the service's public address, such as
// https://predictions.example.org) when it has one that is not an IPv6
// literal, else the domain of from, the board's address. baseURL may be
// "".
//
// Errors: an *[Error] wrapping [ErrInvalid] on From when from is not a bare
// address such as board@example.org, on BaseURL when baseURL is not an
// absolute URL.
func IDDomain(from string, baseURL string) (string, error) {
	a, err := mail.ParseAddress(from)
	if err != nil || a.Address != from {
		return "", invalid("From", fmt.Sprintf("%q is not an e-mail address", from), "give an address such as board@example.org")
	}
	domain := a.Address[strings.LastIndexByte(a.Address, '@')+1:]
	if baseURL == "" {
		return domain, nil
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return "", invalid("BaseURL", fmt.Sprintf("%q is not an absolute URL", baseURL), "give the service's public address, such as https://predictions.example.org")
	}
	if h := u.Hostname(); h != "" && !strings.Contains(h, ":") {
		domain = h
	}
	return domain, nil
}
