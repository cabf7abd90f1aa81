package email

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"strings"
	"time"
)

// DefaultMaxBytes is the size limit of a message when [Options.MaxBytes] is 0.
const DefaultMaxBytes = 1 << 20

// Limits that keep a hostile message from costing much; a message beyond
// them is refused with [ErrMalformed].
const (
	maxHeaderFields = 1000 // header fields of the message
	maxDepth        = 10   // nesting of multiparts
	maxParts        = 200  // MIME parts in the whole message
)

// Message is an inbound e-mail reduced to what the board needs.
type Message struct {
	// From is the sender (Name may be ""); zero when the message has no
	// From header.
	From mail.Address
	// To and Cc are the recipients; a list that cannot be parsed is
	// left empty rather than refusing the message (only the sender and
	// the thread matter to the board).
	To, Cc []mail.Address
	// Subject is decoded (RFC 2047 encoded words); an encoded word in an
	// unknown charset is left as it is.
	Subject string
	// MessageID is the Message-ID without angle brackets.
	MessageID string
	// InReplyTo and References are message IDs without angle brackets,
	// in header order.
	InReplyTo  []string
	References []string
	// Date is zero if the header is absent or cannot be parsed.
	Date time.Time
	// Automatic reports that the message says it was sent by a program,
	// not a person: Auto-Submitted other than "no" (RFC 3834), Precedence
	// bulk, junk or list, or an X-Autoreply/X-Autorespond header. The
	// board should not record such a message as a reply (a vacation
	// responder, or its own notification looping back).
	Automatic bool
	// HTML reports that Text was converted from a text/html part because
	// the message had no text/plain one.
	HTML bool
	// Text is the whole text part, decoded to UTF-8 with CRLF turned into
	// LF (and format=flowed lines joined).
	Text string
	// Reply is Text with quoted text, attribution lines and signature
	// removed, trimmed: [StripQuoted] of Text.
	Reply string
}

// Options tune [Options.Parse]. The zero value is ready to use.
type Options struct {
	// MaxBytes is the largest message accepted, in bytes; 0 (or a
	// negative value) means [DefaultMaxBytes]. A larger message is an
	// [ErrTooLarge] error, not a truncation.
	MaxBytes int64
	// CharsetReader decodes a text part or an encoded word in a charset
	// other than the built-in ones (utf-8, us-ascii, iso-8859-1 and
	// windows-1252, under their usual aliases), as
	// [mime.WordDecoder.CharsetReader] does. Nil: such a text part is an
	// [ErrCharset] error naming the charset, and such an encoded word in
	// a header is left undecoded.
	CharsetReader func(charset string, input io.Reader) (io.Reader, error)
}

// Parse reads one RFC 5322 message with the zero [Options]: see
// [Options.Parse].
func Parse(r io.Reader) (*Message, error) { return Options{}.Parse(r) }

// Parse reads one RFC 5322 message from r (CRLF or LF line ends) and keeps
// what the board needs. The body is the best text of the MIME tree: in a
// multipart/alternative the text/plain part, else the text/html one
// converted to text; in other multiparts (mixed, related, nested) the
// inline text parts in order, attachments skipped. A message without
// Content-Type is text/plain in us-ascii (RFC 2045).
//
// Every error is an [*Error] wrapping [ErrTooLarge], [ErrMalformed],
// [ErrNoText] or [ErrCharset].
func (o Options) Parse(r io.Reader) (*Message, error) {
	max := o.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	raw, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, malformed("message", "reading the message failed: "+err.Error(), "send the whole message")
	}
	if int64(len(raw)) > max {
		return nil, &Error{Field: "message", Err: ErrTooLarge,
			Problem: fmt.Sprintf("the message is larger than the limit of %d bytes", max),
			Hint:    "send the reply without attachments or quoted history"}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, malformed("message", "the message is empty", "send the raw RFC 5322 message: header fields, a blank line, then the body")
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, malformed("header", "the header cannot be read: "+err.Error(),
			`send the raw RFC 5322 message: "Name: value" header lines, a blank line, then the body`)
	}
	n := 0
	for _, v := range msg.Header {
		n += len(v)
	}
	if n > maxHeaderFields {
		return nil, malformed("header", fmt.Sprintf("the message has %d header fields, more than %d", n, maxHeaderFields), "send the message as your mail client wrote it")
	}

	p := parser{opts: o}
	m := &Message{
		MessageID:  firstID(msg.Header.Get("Message-Id")),
		InReplyTo:  msgIDs(msg.Header.Get("In-Reply-To")),
		References: msgIDs(msg.Header.Get("References")),
		Automatic:  automatic(msg.Header),
	}
	m.Subject = strings.ToValidUTF8(p.decodeHeader(msg.Header.Get("Subject")), "\uFFFD")
	if d, err := msg.Header.Date(); err == nil {
		m.Date = d
	}
	ap := mail.AddressParser{WordDecoder: p.wordDecoder()}
	if from := strings.TrimSpace(msg.Header.Get("From")); from != "" {
		a, err := sender(ap, from)
		if err != nil {
			return nil, malformed("From", fmt.Sprintf("the sender %q cannot be parsed: %v", from, err),
				`write it as "Name <agent@example.org>" or "agent@example.org"`)
		}
		m.From = *a
	}
	m.To = addressList(ap, msg.Header.Get("To"))
	m.Cc = addressList(ap, msg.Header.Get("Cc"))

	text, html, err := p.body(header(msg.Header), msg.Body)
	if err != nil {
		return nil, err
	}
	m.Text, m.HTML = text, html
	m.Reply = StripQuoted(m.Text)
	return m, nil
}

// sender parses the From header. A list of mailboxes gives its first one;
// a header net/mail refuses (raw 8-bit bytes in the name, say) falls back
// to the address in its last angle brackets, with the text before them as
// the name.
//
// The name is valid UTF-8 in every case: an encoded word may decode to
// invalid bytes (=?UTF-8?Q?=80?=), which become U+FFFD.
func sender(ap mail.AddressParser, from string) (*mail.Address, error) {
	a, err := ap.Parse(from)
	if err == nil {
		a.Name = strings.ToValidUTF8(a.Name, "\uFFFD")
		return a, nil
	}
	if list, lerr := ap.ParseList(from); lerr == nil && len(list) > 0 {
		list[0].Name = strings.ToValidUTF8(list[0].Name, "\uFFFD")
		return list[0], nil
	}
	lt, gt := strings.LastIndexByte(from, '<'), strings.LastIndexByte(from, '>')
	if lt >= 0 && gt > lt && strings.TrimSpace(from[gt+1:]) == "" {
		if addr, aerr := mail.ParseAddress(from[lt : gt+1]); aerr == nil {
			addr.Name = strings.ToValidUTF8(strings.Trim(strings.TrimSpace(from[:lt]), `"`), "\uFFFD")
			return addr, nil
		}
	}
	return nil, err
}

// addressList parses a To or Cc header; what cannot be parsed is dropped.
func addressList(ap mail.AddressParser, v string) []mail.Address {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	list, err := ap.ParseList(v)
	if err != nil {
		// Salvage the entries that parse on their own.
		for _, s := range strings.Split(v, ",") {
			if a, err := ap.Parse(s); err == nil {
				list = append(list, a)
			}
		}
	}
	out := make([]mail.Address, 0, len(list))
	for _, a := range list {
		a.Name = strings.ToValidUTF8(a.Name, "\uFFFD")
		out = append(out, *a)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// msgIDs reads a list of message IDs ("<a@b> <c@d>", with or without
// brackets, comments ignored) as IDs without brackets.
func msgIDs(v string) []string {
	var ids []string
	rest := v
	for {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '>')
		if j < 0 {
			break
		}
		if id := strings.TrimSpace(rest[i+1 : i+j]); id != "" && !strings.ContainsAny(id, " \t") {
			ids = append(ids, id)
		}
		rest = rest[i+j+1:]
	}
	if ids == nil {
		// Some clients drop the brackets.
		for _, f := range strings.Fields(v) {
			if strings.Contains(f, "@") && !strings.ContainsAny(f, "()") {
				ids = append(ids, strings.Trim(f, "<>"))
			}
		}
	}
	return ids
}

func firstID(v string) string {
	if ids := msgIDs(v); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// automatic applies RFC 3834 and the common conventions of auto-responders.
func automatic(h mail.Header) bool {
	if a := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); a != "" && !strings.HasPrefix(a, "no") {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("Precedence"))) {
	case "bulk", "junk", "list", "auto_reply":
		return true
	}
	return h.Get("X-Autoreply") != "" || h.Get("X-Autorespond") != ""
}

// parser carries the options through the MIME walk.
type parser struct {
	opts  Options
	parts int
}

func (p *parser) wordDecoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: func(charset string, input io.Reader) (io.Reader, error) {
		return p.charsetReader(charset, input)
	}}
}

// decodeHeader decodes the encoded words of v; if a charset is unknown, v
// is kept as it is.
func (p *parser) decodeHeader(v string) string {
	s, err := p.wordDecoder().DecodeHeader(v)
	if err != nil {
		return v
	}
	return s
}

// errNeedsDecoder marks a charset that neither the built-in decoders nor
// Options.CharsetReader handle.
var errNeedsDecoder = errors.New("unknown charset")
