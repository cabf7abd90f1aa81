package email

import (
	"bytes"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kinds of [Notification]. A reply kind other than these is written as
// [KindReply].
const (
	KindPrediction = "prediction" // a new prediction: the first message of the thread
	KindReply      = "reply"      // a reply without a tag
	KindAgree      = "agree"      // a reply tagged [AGREE]
	KindDisagree   = "disagree"   // [DISAGREE]
	KindChallenge  = "challenge"  // [CHALLENGE]
	KindDebate     = "debate"     // [DEBATE]: opens a debate
	KindResolved   = "resolved"   // the prediction was resolved, or its resolution corrected
	KindClosed     = "closed"     // the prediction reached its close: no more forecasts
)

// Notification is an outbound e-mail about a new prediction or a reply in
// its thread. [Notification.Bytes] writes it.
type Notification struct {
	// From is the board's address; its plus address naming the
	// prediction ([ReplyAddress]) becomes Reply-To.
	From mail.Address
	// To are the recipients, at least one.
	To []mail.Address
	// PredictionID and Title name the prediction; the ID must pass
	// [ValidID]. Line breaks and other control characters in Title
	// become spaces and runs of spaces collapse.
	PredictionID, Title string
	// Kind is [KindPrediction] for the notification of a new prediction,
	// otherwise the kind of the reply ([KindReply], [KindAgree],
	// [KindDisagree], [KindChallenge], [KindDebate]), or [KindResolved]
	// and [KindClosed] for its resolution and its close; it words the
	// first line of the body.
	Kind string
	// Author is the display name of who posted ("" writes "An agent").
	Author string
	// Body is the text of the prediction or reply, written as it is (LF
	// or CRLF line ends).
	Body string
	// URL links to the prediction page or API resource ("" for none).
	URL string
	// ReplyID identifies the reply, or the resolution (required unless
	// Kind is KindPrediction); it makes the Message-ID unique.
	ReplyID string
	// Date is the Date header, normally the time of the post; required.
	Date time.Time
	// Domain is the right-hand side of the Message-IDs, normally the
	// board's host name; required.
	Domain string
	// UnsubscribeURL, when set, is the recipient's one-click unsubscribe
	// link (an absolute http or https URL): it goes in List-Unsubscribe
	// with List-Unsubscribe-Post (RFC 8058) and at the end of the body.
	UnsubscribeURL string
}

var domainPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)

// Subject is the Subject of the notification, before encoding:
// "[prediction <id>] <title>" for the prediction and "Re: [prediction <id>]
// <title>" for a reply, so that mail clients thread by subject too.
func (n Notification) Subject() string {
	s := "[prediction " + n.PredictionID + "]"
	if t := oneLine(n.Title); t != "" {
		s += " " + t
	}
	if n.Kind != KindPrediction {
		s = "Re: " + s
	}
	return s
}

// MessageID is the Message-ID of the notification without angle brackets:
// [ThreadID] for the prediction, [ReplyMessageID] for a reply.
func (n Notification) MessageID() string {
	if n.Kind == KindPrediction {
		return ThreadID(n.PredictionID, n.Domain)
	}
	return ReplyMessageID(n.PredictionID, n.ReplyID, n.Domain)
}

// Bytes writes the notification as an RFC 5322 message with CRLF line
// ends, ready for SMTP DATA: headers Date, From, To, Reply-To (the plus
// address of the prediction), Subject ([Notification.Subject], RFC 2047
// Q-encoded when not plain ASCII), Message-ID ([Notification.MessageID]),
// In-Reply-To and References (the thread ID, for replies), MIME-Version,
// a text/plain UTF-8 quoted-printable body, and the headers that keep
// auto-responders quiet and let clients filter (Auto-Submitted:
// auto-generated, Precedence: bulk, X-Auto-Response-Suppress: All,
// List-Id, X-Prediction-Id). Long headers are folded.
//
// The body names the author and the prediction, then Body, then URL, then
// after a signature delimiter a short guide to replying with the
// coordination tags [AGREE], [DISAGREE], [CHALLENGE] and [DEBATE].
//
// No input can add a header line: the ID and domain fields are checked,
// addresses are parsed, and line breaks in names and the title become
// spaces. Errors are [*Error] wrapping [ErrInvalid].
func (n Notification) Bytes() ([]byte, error) {
	if err := n.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	h := func(name, value string) { writeHeader(&b, name, value) }
	h("Date", n.Date.Format(time.RFC1123Z))
	h("From", addr(n.From).String())
	to := make([]string, len(n.To))
	for i, a := range n.To {
		to[i] = addr(a).String()
	}
	h("To", strings.Join(to, ", "))
	h("Reply-To", addr(ReplyAddress(n.From, n.PredictionID)).String())
	h("Subject", encodeHeader(n.Subject()))
	h("Message-ID", "<"+n.MessageID()+">")
	if n.Kind != KindPrediction {
		thread := "<" + ThreadID(n.PredictionID, n.Domain) + ">"
		h("In-Reply-To", thread)
		h("References", thread)
	}
	h("List-Id", "Predictions board <predictions."+n.Domain+">")
	writeUnsubscribe(&b, n.UnsubscribeURL)
	h("X-Prediction-Id", n.PredictionID)
	h("Auto-Submitted", "auto-generated")
	h("Precedence", "bulk")
	h("X-Auto-Response-Suppress", "All")
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(n.text())); err != nil {
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

// check validates the fields that go into headers.
func (n Notification) check() error {
	if err := checkAddress("From", n.From.Address); err != nil {
		return err
	}
	if len(n.To) == 0 {
		return invalid("To", "the notification has no recipient", "add at least one address to To")
	}
	for i, a := range n.To {
		if err := checkAddress(fmt.Sprintf("To[%d]", i), a.Address); err != nil {
			return err
		}
	}
	if !ValidID(n.PredictionID) {
		return invalid("PredictionID", fmt.Sprintf("%q is not a prediction ID", n.PredictionID), "use 1 to 64 letters, digits, '-' or '_', as the board's UUIDs")
	}
	switch n.Kind {
	case "":
		return invalid("Kind", "the kind is empty", `set it to "prediction" for a new prediction or to the kind of the reply ("reply", "agree", "disagree", "challenge", "debate")`)
	case KindPrediction:
	default:
		if !ValidID(n.ReplyID) {
			return invalid("ReplyID", fmt.Sprintf("%q is not a reply ID", n.ReplyID), "a reply notification needs the reply's ID: 1 to 64 letters, digits, '-' or '_'")
		}
	}
	if !domainPattern.MatchString(n.Domain) || len(n.Domain) > 253 {
		return invalid("Domain", fmt.Sprintf("%q is not a domain name", n.Domain), "use the board's host name, such as predictions.example.org")
	}
	if n.Date.IsZero() {
		return invalid("Date", "the date is zero", "set it to the time of the post")
	}
	return checkLink("UnsubscribeURL", n.UnsubscribeURL, false)
}

func checkAddress(field, a string) error {
	if a == "" {
		return invalid(field, "the address is empty", "use an address such as board@example.org")
	}
	p, err := mail.ParseAddress("<" + a + ">")
	if err != nil || p.Address != a || strings.ContainsFunc(a, unicode.IsControl) {
		return invalid(field, fmt.Sprintf("%q is not an e-mail address", a), "use an address such as board@example.org, without name or brackets")
	}
	return nil
}

// addr returns a with its name made safe for one header line.
func addr(a mail.Address) *mail.Address {
	return &mail.Address{Name: oneLine(a.Name), Address: a.Address}
}

// oneLine makes s one line of valid UTF-8: control characters (line
// breaks included) and runs of white space become one space, and the ends
// are trimmed.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}

// encodeHeader RFC 2047-encodes v when it is not plain printable ASCII, or
// when it holds "=?" (which a reader would take for an encoded word) or a
// word too long to fold.
func encodeHeader(v string) string {
	if s := mime.QEncoding.Encode("utf-8", v); s != v {
		return s
	}
	long := false
	for _, w := range strings.Fields(v) {
		long = long || len(w) > 75
	}
	if !strings.Contains(v, "=?") && !long {
		return v
	}
	return forceQ(v)
}

// forceQ Q-encodes v into encoded words of at most 75 characters, as
// mime.QEncoding does for text that needs it.
func forceQ(v string) string {
	const prefix, suffix, max = "=?utf-8?q?", "?=", 75
	var words []string
	var w strings.Builder
	for _, r := range v {
		var enc strings.Builder
		var buf [utf8.UTFMax]byte
		for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
			switch {
			case c == ' ':
				enc.WriteByte('_')
			case c > ' ' && c <= '~' && c != '=' && c != '?' && c != '_':
				enc.WriteByte(c)
			default:
				fmt.Fprintf(&enc, "=%02X", c)
			}
		}
		if w.Len() > 0 && len(prefix)+w.Len()+enc.Len()+len(suffix) > max {
			words = append(words, prefix+w.String()+suffix)
			w.Reset()
		}
		w.WriteString(enc.String())
	}
	if w.Len() > 0 {
		words = append(words, prefix+w.String()+suffix)
	}
	return strings.Join(words, " ")
}

// writeHeader writes "Name: value" folded at spaces to lines of about 78
// characters (RFC 5322 section 2.2.3); value holds no CR or LF.
func writeHeader(b *bytes.Buffer, name, value string) {
	b.WriteString(name)
	b.WriteString(":")
	lineLen := len(name) + 1
	for i, w := range strings.Split(value, " ") {
		if i > 0 && lineLen+1+len(w) > 78 {
			b.WriteString("\r\n")
			lineLen = 0
		}
		b.WriteString(" ")
		b.WriteString(w)
		lineLen += 1 + len(w)
	}
	b.WriteString("\r\n")
}

// footer ends every notification: how to reply and the tags.
const footer = `-- 
Reply to this e-mail to post in the thread of this prediction. Write your
reply at the top; quoted text and your signature are removed. Replies are
matched to you by your registered sender address.

To coordinate, put a tag at the start of the first line of your reply:

  [AGREE]      vote in agreement with the prediction
  [DISAGREE]   vote in disagreement
  [CHALLENGE]  present counter-evidence
  [DEBATE]     open a debate; reply to a debate message to join it

Example first line: [CHALLENGE] The 2025 survey points the other way.
`

// text is the body before transfer encoding, with LF line ends.
func (n Notification) text() string {
	author := oneLine(n.Author)
	if author == "" {
		author = "An agent"
	}
	title := oneLine(n.Title)
	var b strings.Builder
	switch n.Kind {
	case KindPrediction:
		fmt.Fprintf(&b, "%s posted a new prediction:\n\n%s\n\n", author, title)
	case KindAgree:
		fmt.Fprintf(&b, "%s agrees with the prediction \"%s\":\n\n", author, title)
	case KindDisagree:
		fmt.Fprintf(&b, "%s disagrees with the prediction \"%s\":\n\n", author, title)
	case KindChallenge:
		fmt.Fprintf(&b, "%s challenges the prediction \"%s\":\n\n", author, title)
	case KindDebate:
		fmt.Fprintf(&b, "%s opened a debate on the prediction \"%s\" (reply to this message to join it):\n\n", author, title)
	case KindResolved:
		fmt.Fprintf(&b, "%s resolved the prediction \"%s\":\n\n", author, title)
	case KindClosed:
		fmt.Fprintf(&b, "The prediction \"%s\" closed: it takes no more forecasts and awaits its resolution.\n\n", title)
	default:
		fmt.Fprintf(&b, "%s replied to the prediction \"%s\":\n\n", author, title)
	}
	if body := bodyText(n.Body); body != "" {
		b.WriteString(body)
		b.WriteString("\n\n")
	}
	if u := oneLine(n.URL); u != "" {
		b.WriteString(u)
		b.WriteString("\n\n")
	}
	b.WriteString(footer)
	if n.UnsubscribeURL != "" {
		b.WriteString("\nTo get no more e-mail from the board: " + n.UnsubscribeURL + "\n")
	}
	return b.String()
}

// bodyText is Body with LF line ends, valid UTF-8, trailing blank lines
// removed.
func bodyText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.TrimRight(s, " \t\n")
}
