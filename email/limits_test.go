package email

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParseSizeLimit(t *testing.T) {
	head := "From: a@b.example\r\nSubject: x\r\n\r\n"
	tests := []struct {
		name string
		opts Options
		size int
		want error
	}{
		{"default limit, at it", Options{}, DefaultMaxBytes, nil},
		{"default limit, one byte over", Options{}, DefaultMaxBytes + 1, ErrTooLarge},
		{"negative means default", Options{MaxBytes: -1}, DefaultMaxBytes + 1, ErrTooLarge},
		{"small limit", Options{MaxBytes: 100}, 101, ErrTooLarge},
		{"small limit, at it", Options{MaxBytes: 100}, 100, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := head + strings.Repeat("a", tt.size-len(head))
			m, err := tt.opts.Parse(strings.NewReader(msg))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse(%d bytes) error = %v, want %v", tt.size, err, tt.want)
			}
			if err == nil && len(m.Text) != tt.size-len(head) {
				t.Errorf("Text has %d bytes, want %d (no truncation)", len(m.Text), tt.size-len(head))
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  error
		field string
	}{
		{"empty", "", ErrMalformed, "message"},
		{"blank", "\r\n\r\n", ErrMalformed, "message"},
		{"broken header", "no colon here\r\n\r\nbody", ErrMalformed, "header"},
		{"bad from", "From: <unclosed@x.example\r\n\r\nbody", ErrMalformed, "From"},
		{"no boundary", "Content-Type: multipart/mixed\r\n\r\nbody", ErrMalformed, "Content-Type"},
		{"no closing boundary", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n", ErrMalformed, "body"},
		{"no text", "Content-Type: image/png\r\n\r\nxx", ErrNoText, "body"},
		{"empty multipart", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b--\r\n", ErrNoText, "body"},
		{"only attachment text", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Disposition: attachment\r\n\r\nhi\r\n--b--\r\n", ErrNoText, "body"},
		{"bad base64", "Content-Transfer-Encoding: base64\r\n\r\n!!!!\r\n", ErrMalformed, "Content-Transfer-Encoding"},
		{"unknown encoding", "Content-Transfer-Encoding: x-uuencode\r\n\r\nbegin 644\r\n", ErrMalformed, "Content-Transfer-Encoding"},
		{"unknown charset", "Content-Type: text/plain; charset=shift_jis\r\n\r\nhi", ErrCharset, "Content-Type"},
		{"too many headers", strings.Repeat("X-A: b\r\n", maxHeaderFields+1) + "\r\nhi", ErrMalformed, "header"},
		{"too deep", nested(maxDepth + 1), ErrMalformed, "Content-Type"},
		{"too many parts", manyParts(maxParts + 1), ErrMalformed, "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tt.want) {
				t.Fatalf("Parse error = %v, want an *Error wrapping %v", err, tt.want)
			}
			if e.Field != tt.field || e.Problem == "" || e.Hint == "" {
				t.Errorf("Parse error %+v: want Field %q with a problem and a hint", e, tt.field)
			}
			if !strings.HasPrefix(err.Error(), "email: "+tt.field+": ") {
				t.Errorf("Error() = %q, want it to start with the field", err)
			}
		})
	}
}

func TestParseReadError(t *testing.T) {
	_, err := Parse(iotest.ErrReader(io.ErrUnexpectedEOF))
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("Parse(failing reader) = %v, want ErrMalformed", err)
	}
}

// nested is a message of n multiparts one inside the other.
func nested(n int) string {
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=b0\r\n\r\n")
	for i := 1; i < n; i++ {
		b.WriteString("--b" + strconv.Itoa(i-1) + "\r\nContent-Type: multipart/mixed; boundary=b" + strconv.Itoa(i) + "\r\n\r\n")
	}
	b.WriteString("--b" + strconv.Itoa(n-1) + "\r\nContent-Type: text/plain\r\n\r\nhi\r\n")
	for i := n - 1; i >= 0; i-- {
		b.WriteString("--b" + strconv.Itoa(i) + "--\r\n")
	}
	return b.String()
}

func manyParts(n int) string {
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=b\r\n\r\n")
	for i := 0; i < n; i++ {
		b.WriteString("--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n")
	}
	b.WriteString("--b--\r\n")
	return b.String()
}

func TestParseCharsets(t *testing.T) {
	tests := []struct {
		name, charset string
		body          []byte
		want          string
	}{
		{"utf-8", "UTF-8", []byte("caf\xc3\xa9"), "café"},
		{"invalid utf-8", "utf-8", []byte("caf\xe9"), "caf\uFFFD"},
		{"us-ascii with 8 bit", "us-ascii", []byte("caf\xc3\xa9"), "café"},
		{"latin1", "ISO-8859-1", []byte("caf\xe9 \xa0\xff"), "café \u00a0ÿ"},
		{"latin1 alias", "latin1", []byte("\xe9"), "é"},
		{"windows-1252", "windows-1252", []byte("\x93quoted\x94 \x80 \x81"), "“quoted” € \uFFFD"},
		{"cp1252", "cp1252", []byte("\x85"), "…"},
		{"no charset", "", []byte("plain"), "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := "text/plain"
			if tt.charset != "" {
				ct += "; charset=" + tt.charset
			}
			msg := append([]byte("Content-Type: "+ct+"\r\n\r\n"), tt.body...)
			m, err := Parse(bytes.NewReader(msg))
			if err != nil {
				t.Fatal(err)
			}
			if m.Text != tt.want {
				t.Errorf("Text = %q, want %q", m.Text, tt.want)
			}
		})
	}
}

func TestCharsetReader(t *testing.T) {
	upper := Options{CharsetReader: func(charset string, input io.Reader) (io.Reader, error) {
		if charset != "x-upper" {
			return nil, errors.New("no")
		}
		b, err := io.ReadAll(input)
		return strings.NewReader(strings.ToUpper(string(b))), err
	}}
	msg := "Subject: =?x-upper?q?hi?= and =?x-other?q?there?=\r\nContent-Type: text/plain; charset=x-upper\r\n\r\nhello"
	m, err := upper.Parse(strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "HELLO" {
		t.Errorf("Text = %q, want HELLO", m.Text)
	}
	// A refused encoded word leaves the subject as it was.
	if want := "=?x-upper?q?hi?= and =?x-other?q?there?="; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	_, err = upper.Parse(strings.NewReader("Content-Type: text/plain; charset=x-other\r\n\r\nhello"))
	if !errors.Is(err, ErrCharset) || !strings.Contains(err.Error(), "x-other") {
		t.Errorf("refused charset: error %v, want ErrCharset naming x-other", err)
	}
}

// TestParseLarge parses large inputs built to trip
// quadratic behaviour; it finishes quickly when every pass is linear.
func TestParseLarge(t *testing.T) {
	const n = 256 << 10 // quadratic work on this many bytes would not finish
	bodies := map[string]string{
		"script tags":     strings.Repeat("<script>x</script>", n/18),
		"unclosed script": strings.Repeat("<script>", n/8),
		"open tags":       strings.Repeat("<a href='", n/9),
		"blockquotes":     strings.Repeat("<blockquote>", n/12),
		"quote lines":     strings.Repeat(">\n", n/2),
		"from lines":      strings.Repeat("From: x\n", n/8),
		"attributions":    strings.Repeat("On 1 wrote\n", n/11),
		"one long line":   strings.Repeat("a", n),
		"lt signs":        strings.Repeat("<", n),
	}
	for name, body := range bodies {
		for _, ct := range []string{"text/plain", "text/html"} {
			t.Run(name+" "+ct, func(t *testing.T) {
				msg := "Content-Type: " + ct + "\r\n\r\n" + body
				if _, err := Parse(strings.NewReader(msg)); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestParseHeaders(t *testing.T) {
	msg := "From: \"Ada, Countess\" <ada@x.example>, other@x.example\r\n" +
		"To: undisclosed-recipients:;\r\n" +
		"Cc: good@x.example, <<bad>>, also@x.example\r\n" +
		"Message-ID: no-brackets@x.example\r\n" +
		"In-Reply-To: <a@x.example> (comment) <b@x.example>\r\n" +
		"References: a@x.example\r\n  b@x.example\r\n" +
		"Date: not a date\r\n" +
		"Precedence: bulk\r\n" +
		"\r\nhi"
	m, err := Parse(strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	if m.From.Address != "ada@x.example" || m.From.Name != "Ada, Countess" {
		t.Errorf("From = %+v", m.From)
	}
	if len(m.To) != 0 {
		t.Errorf("To = %v, want none", m.To)
	}
	if len(m.Cc) != 2 || m.Cc[0].Address != "good@x.example" || m.Cc[1].Address != "also@x.example" {
		t.Errorf("Cc = %v, want the two good addresses", m.Cc)
	}
	if m.MessageID != "no-brackets@x.example" {
		t.Errorf("MessageID = %q", m.MessageID)
	}
	if strings.Join(m.InReplyTo, " ") != "a@x.example b@x.example" || strings.Join(m.References, " ") != "a@x.example b@x.example" {
		t.Errorf("InReplyTo = %q, References = %q", m.InReplyTo, m.References)
	}
	if !m.Date.IsZero() || !m.Automatic {
		t.Errorf("Date = %v, Automatic = %v; want zero, true", m.Date, m.Automatic)
	}
}

func TestAutomatic(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"Auto-Submitted: no\r\n", false},
		{"Auto-Submitted: auto-replied\r\n", true},
		{"Auto-Submitted: auto-generated\r\n", true},
		{"Precedence: junk\r\n", true},
		{"Precedence: first-class\r\n", false},
		{"X-Autoreply: yes\r\n", true},
		{"X-Autorespond: yes\r\n", true},
	}
	for _, tt := range tests {
		m, err := Parse(strings.NewReader(tt.header + "Subject: x\r\n\r\nhi"))
		if err != nil {
			t.Fatal(err)
		}
		if m.Automatic != tt.want {
			t.Errorf("Automatic with %q = %v, want %v", tt.header, m.Automatic, tt.want)
		}
	}
}
