package email

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"strings"
	"unicode/utf8"
)

// header is the header of the message or of a MIME part.
type header map[string][]string

func (h header) get(key string) string {
	if v := h[textproto.CanonicalMIMEHeaderKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// found is the text of a part: plain, or HTML still to be converted.
type found struct {
	text string
	html bool
	ok   bool
}

// body returns the text of the message body and whether it came from HTML.
func (p *parser) body(h header, r io.Reader) (string, bool, error) {
	f, err := p.walk(h, r, 0)
	if err != nil {
		return "", false, err
	}
	if !f.ok {
		return "", false, &Error{Field: "body", Err: ErrNoText,
			Problem: "the message has no text/plain or text/html part, only attachments or other types",
			Hint:    "write the reply as text in the body of the message, not as an attachment"}
	}
	if f.html {
		return htmlToText(f.text), true, nil
	}
	return f.text, false, nil
}

// mediaType reads a Content-Type; missing or unreadable is text/plain
// (RFC 2045 section 5.2).
func mediaType(h header) (string, map[string]string) {
	v := h.get("Content-Type")
	if strings.TrimSpace(v) == "" {
		return "text/plain", map[string]string{}
	}
	mt, params, err := mime.ParseMediaType(v)
	if err != nil && mt == "" {
		return "text/plain", map[string]string{}
	}
	if params == nil {
		params = map[string]string{}
	}
	return mt, params
}

func isAttachment(h header) bool {
	d := h.get("Content-Disposition")
	if d == "" {
		return false
	}
	disp, _, err := mime.ParseMediaType(d)
	if err != nil {
		disp = strings.ToLower(strings.TrimSpace(strings.SplitN(d, ";", 2)[0]))
	}
	return disp == "attachment"
}

// walk finds the text of one part (the whole message at depth 0).
func (p *parser) walk(h header, r io.Reader, depth int) (found, error) {
	p.parts++
	if p.parts > maxParts {
		return found{}, malformed("body", fmt.Sprintf("the message has more than %d MIME parts", maxParts), "send the reply as a simple text message")
	}
	mt, params := mediaType(h)
	switch {
	case strings.HasPrefix(mt, "multipart/"):
		return p.multipart(mt, params, r, depth)
	case mt == "text/plain" || mt == "text/html":
		if depth > 0 && isAttachment(h) {
			return found{}, nil
		}
		text, err := p.decode(h, params, r)
		if err != nil {
			return found{}, err
		}
		if mt == "text/plain" && strings.EqualFold(params["format"], "flowed") {
			text = unflow(text, strings.EqualFold(params["delsp"], "yes"))
		}
		return found{text: text, html: mt == "text/html", ok: true}, nil
	}
	return found{}, nil // attachments, images, message/rfc822...
}

func (p *parser) multipart(mt string, params map[string]string, r io.Reader, depth int) (found, error) {
	if depth >= maxDepth {
		return found{}, malformed("Content-Type", fmt.Sprintf("multiparts are nested more than %d deep", maxDepth), "send the reply as a simple text message")
	}
	boundary := params["boundary"]
	if boundary == "" {
		return found{}, malformed("Content-Type", mt+" has no boundary parameter", `the header needs Content-Type: `+mt+`; boundary="..." matching the lines that separate the parts`)
	}
	mr := multipart.NewReader(r, boundary)
	var plain, html []found
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return found{}, malformed("body", fmt.Sprintf("the %s body cannot be read: %v", mt, err),
				fmt.Sprintf("each part must start with --%s and the body must end with --%s--", boundary, boundary))
		}
		f, err := p.walk(header(part.Header), part, depth+1)
		if err != nil {
			return found{}, err
		}
		switch {
		case !f.ok:
		case f.html:
			html = append(html, f)
		default:
			plain = append(plain, f)
		}
	}
	if mt == "multipart/alternative" {
		// The alternatives say the same thing: the first plain text,
		// else the first HTML.
		if len(plain) > 0 {
			return plain[0], nil
		}
		if len(html) > 0 {
			return html[0], nil
		}
		return found{}, nil
	}
	// mixed, related, signed...: the inline text parts in order (Apple
	// Mail splits the text around an inline image).
	if len(plain) > 0 {
		texts := make([]string, len(plain))
		for i, f := range plain {
			texts[i] = strings.TrimRight(f.text, "\n")
		}
		return found{text: strings.Join(texts, "\n\n"), ok: true}, nil
	}
	if len(html) > 0 {
		return html[0], nil
	}
	return found{}, nil
}

// decode undoes the transfer encoding and the charset of a text part and
// turns CRLF (and lone CR) into LF.
func (p *parser) decode(h header, params map[string]string, r io.Reader) (string, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		// Only a multipart part fails to read: its boundary is missing.
		return "", malformed("body", "the message ends inside a MIME part, before its closing boundary: "+err.Error(),
			"send the whole message; a multipart body must end with its closing boundary line")
	}
	var body io.Reader
	cte := strings.ToLower(strings.TrimSpace(h.get("Content-Transfer-Encoding")))
	switch cte {
	case "", "7bit", "8bit", "binary":
	case "quoted-printable":
		body = quotedprintable.NewReader(bytes.NewReader(raw))
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, &spaceless{r: bytes.NewReader(raw)})
	default:
		return "", malformed("Content-Transfer-Encoding", fmt.Sprintf("the text part uses the transfer encoding %q, which is not one of 7bit, 8bit, binary, quoted-printable, base64", cte),
			"send the text as quoted-printable, base64 or plain 8bit")
	}
	if body != nil {
		if raw, err = io.ReadAll(body); err != nil {
			return "", malformed("Content-Transfer-Encoding", fmt.Sprintf("the %s text cannot be decoded: %v", cte, err),
				"check that the body matches its Content-Transfer-Encoding header")
		}
	}
	text, err := p.convert(params["charset"], raw)
	if err != nil {
		return "", err
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n"), nil
}

// spaceless drops the whitespace a base64 body is wrapped with (the
// decoder itself skips only CR and LF).
type spaceless struct{ r io.Reader }

func (s *spaceless) Read(b []byte) (int, error) {
	for {
		n, err := s.r.Read(b)
		j := 0
		for _, c := range b[:n] {
			if c != ' ' && c != '\t' {
				b[j] = c
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}

// convert decodes raw from charset to UTF-8.
func (p *parser) convert(charset string, raw []byte) (string, error) {
	r, err := p.charsetReader(charset, bytes.NewReader(raw))
	if err != nil {
		if errors.Is(err, errNeedsDecoder) {
			return "", &Error{Field: "Content-Type", Err: ErrCharset,
				Problem: fmt.Sprintf("the text is in the charset %q, which this server does not decode", charset),
				Hint:    "send the message as UTF-8 (charset=utf-8)"}
		}
		return "", &Error{Field: "Content-Type", Err: ErrCharset,
			Problem: fmt.Sprintf("the text in charset %q cannot be decoded: %v", charset, err),
			Hint:    "send the message as UTF-8 (charset=utf-8)"}
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return "", &Error{Field: "Content-Type", Err: ErrCharset,
			Problem: fmt.Sprintf("the text in charset %q cannot be decoded: %v", charset, err),
			Hint:    "send the message as UTF-8 (charset=utf-8)"}
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), nil
}

// charsetReader returns a reader of UTF-8 for charset: the built-in ones,
// then Options.CharsetReader.
func (p *parser) charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch normalizeCharset(charset) {
	case "", "utf8", "usascii", "ascii", "ansix3.41968", "iso646us", "us":
		// us-ascii text with 8-bit bytes is nearly always UTF-8 in
		// practice; invalid bytes become U+FFFD in convert.
		return input, nil
	case "iso88591", "latin1", "l1", "iso885911987", "cp819", "ibm819":
		return &singleByte{r: input}, nil
	case "windows1252", "cp1252", "xcp1252":
		return &singleByte{r: input, table: &cp1252}, nil
	}
	if p.opts.CharsetReader != nil {
		return p.opts.CharsetReader(charset, input)
	}
	return nil, fmt.Errorf("%w %q", errNeedsDecoder, charset)
}

// normalizeCharset lowercases and drops "-", "_" and ":" so that aliases
// compare equal ("ISO_8859-1:1987" -> "iso885911987").
func normalizeCharset(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ':' || r == ' ' {
			return -1
		}
		return r
	}, s)
}

// cp1252 maps bytes 0x80-0x9F of windows-1252; the rest equals latin-1.
// Unassigned bytes map to U+FFFD. Source: the WHATWG Encoding Standard.
var cp1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}

// singleByte decodes latin-1 (table nil) or windows-1252 into UTF-8.
type singleByte struct {
	r     io.Reader
	table *[32]rune
	buf   []byte // decoded bytes not yet returned
}

func (s *singleByte) Read(b []byte) (int, error) {
	for len(s.buf) == 0 {
		in := make([]byte, 512)
		n, err := s.r.Read(in)
		for _, c := range in[:n] {
			r := rune(c)
			if s.table != nil && c >= 0x80 && c < 0xA0 {
				r = s.table[c-0x80]
			}
			s.buf = utf8.AppendRune(s.buf, r)
		}
		if n == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(b, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// unflow joins the soft line breaks of format=flowed text (RFC 3676): a
// line ending in a space continues on the next line of the same quote
// depth. The signature separator "-- " is never joined, and space-stuffing
// is undone.
func unflow(text string, delsp bool) string {
	lines := strings.Split(text, "\n")
	var out []string
	var cur strings.Builder
	curDepth, open := 0, false
	flush := func() {
		if open {
			out = append(out, cur.String())
			cur.Reset()
			open = false
		}
	}
	for _, line := range lines {
		depth := 0
		for depth < len(line) && line[depth] == '>' {
			depth++
		}
		// Undo space-stuffing, or drop the space after ">".
		content := strings.TrimPrefix(line[depth:], " ")
		if open && depth != curDepth {
			flush()
		}
		prefix := ""
		if depth > 0 {
			prefix = strings.Repeat(">", depth) + " "
		}
		if !open {
			cur.WriteString(prefix)
			curDepth, open = depth, true
		}
		soft := strings.HasSuffix(content, " ") && content != "-- "
		if soft && delsp {
			content = content[:len(content)-1]
		}
		cur.WriteString(content)
		if !soft {
			flush()
		}
	}
	flush()
	return strings.Join(out, "\n")
}
