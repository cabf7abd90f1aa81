package email

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no input makes Parse panic, that every error is an
// *Error wrapping a sentinel, and that the result is consistent.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.eml")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(""))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x--\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Options{MaxBytes: 64 << 10}.Parse(bytes.NewReader(data))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error %v (%T) is not an *Error", err, err)
			}
			if sentinelName(err) == "none" || e.Problem == "" || e.Hint == "" || e.Field == "" {
				t.Fatalf("Parse error %#v lacks a sentinel, field, problem or hint", e)
			}
			return
		}
		if !utf8.ValidString(m.Text) || strings.Contains(m.Text, "\r") {
			t.Errorf("Text %q is not LF-only UTF-8", m.Text)
		}
		if m.Reply != StripQuoted(m.Text) {
			t.Errorf("Reply %q != StripQuoted(Text) %q", m.Reply, StripQuoted(m.Text))
		}
		if len(m.Reply) > len(m.Text) {
			t.Errorf("Reply is longer than Text")
		}
	})
}

// FuzzStripQuoted checks that StripQuoted keeps only lines of its input and
// is idempotent.
func FuzzStripQuoted(f *testing.F) {
	f.Add("[AGREE] yes\n\nOn Mon, 3 Nov 2026 at 10:00, Ada <a@x> wrote:\n> q\n-- \nsig")
	f.Add("a\r\n> b\r\nc")
	f.Fuzz(func(t *testing.T, s string) {
		got := StripQuoted(s)
		if again := StripQuoted(got); again != got && !strings.Contains(s, "\r") {
			// A second pass may only remove more when the first left
			// an attribution-like line whose quote it removed.
			if len(again) > len(got) {
				t.Errorf("StripQuoted grew on a second pass: %q -> %q", got, again)
			}
		}
		in := strings.ReplaceAll(s, "\r\n", "\n")
		for _, line := range strings.Split(got, "\n") {
			if line != "" && !strings.Contains(in, strings.TrimSpace(line)) {
				t.Errorf("StripQuoted(%q) made up the line %q", s, line)
			}
		}
	})
}

// FuzzNotificationRoundTrip writes notifications with arbitrary text and
// parses them back: the subject, IDs, sender and body survive and no text
// adds a header.
func FuzzNotificationRoundTrip(f *testing.F) {
	f.Add("Fusion plant on the grid by 2035", "Body\nline two", "Grace", "Predictions board", false)
	f.Add("Fusión ⚡ =?utf-8?q?x?= "+strings.Repeat("é", 100), "=3D\r\n.\r\n-- \nsig", "Ada\r\nBcc: x@y", "Bo\"ard\\", true)
	f.Add(strings.Repeat("a", 300), "\x00\x7f\xff", "", "", true)
	f.Fuzz(func(t *testing.T, title, body, author, fromName string, reply bool) {
		n := testNotification(KindPrediction)
		if reply {
			n = testNotification(KindChallenge)
		}
		n.Title, n.Body, n.Author, n.From.Name = title, body, author, fromName
		raw, err := n.Bytes()
		if err != nil {
			t.Fatalf("Bytes: %v", err)
		}
		m, err := Parse(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("Parse(Bytes()): %v\n%s", err, raw)
		}
		if m.Subject != n.Subject() {
			t.Errorf("Subject = %q, want %q", m.Subject, n.Subject())
		}
		if m.MessageID != n.MessageID() {
			t.Errorf("MessageID = %q, want %q", m.MessageID, n.MessageID())
		}
		if m.From.Address != n.From.Address || m.From.Name != oneLine(fromName) {
			t.Errorf("From = %+v, want name %q", m.From, oneLine(fromName))
		}
		if b := bodyText(body); !strings.Contains(m.Text, b) {
			t.Errorf("Text %q does not hold the body %q", m.Text, b)
		}
		if id, _, ok := PredictionID(&Message{InReplyTo: []string{m.MessageID}}, testDomain, n.From); !ok || id != n.PredictionID {
			t.Errorf("PredictionID of an answer = %q, %v", id, ok)
		}
		if len(m.To) != len(n.To) {
			t.Errorf("To = %v, want %v", m.To, n.To)
		}
	})
}
