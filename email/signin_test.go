package email

import (
	"bytes"
	"errors"
	"net/mail"
	"strings"
	"testing"
	"time"
)

func testSignInLink() SignInLink {
	return SignInLink{
		From: mail.Address{Name: "Predictions board", Address: "board@" + testDomain}, To: mail.Address{Name: "Ada", Address: "ada@people.example.com"},
		PersonID:       "ada",
		URL:            "https://" + testDomain + "/signin/link?token=q5Jr0c3hXk2m9QZs6Pn1y4Vb8Wd7Ft0aLgE3uTiRoYw",
		UnsubscribeURL: "https://" + testDomain + "/api/email/unsubscribe?token=Zk1oN2xYc0V3dTRhQmNkZWZnaGlqa2xtbm9wcXJzdHU",
		Expires:        testDate.Add(15 * time.Minute), ID: "0190f5a2-7b3c-7d4e-8f90-123456789abd", Domain: testDomain, Date: testDate,
	}
}

// TestSignInLinkGolden pins the bytes of a sign-in link's message and
// reads it back: automatic, the RFC 8058 headers, the link whole after
// quoted-printable decoding.
func TestSignInLinkGolden(t *testing.T) {
	l := testSignInLink()
	raw, err := l.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/signin.golden.msg", raw)
	m, err := Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Automatic || m.Subject != "Your sign-in link for ada" || m.MessageID != "signin."+l.ID+"@"+testDomain {
		t.Errorf("read back: automatic %v, subject %q, Message-ID %q", m.Automatic, m.Subject, m.MessageID)
	}
	for _, want := range []string{l.URL, l.UnsubscribeURL, "works once", "ignore this message"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, m.Text)
		}
	}
}

func TestSignInLinkInvalid(t *testing.T) {
	for _, tt := range []struct {
		field string
		edit  func(*SignInLink)
	}{
		{"To", func(l *SignInLink) { l.To.Address = "nobody" }},
		{"URL", func(l *SignInLink) { l.URL = "javascript:alert(1)" }},
		{"URL", func(l *SignInLink) { l.URL = "" }},
		{"UnsubscribeURL", func(l *SignInLink) { l.UnsubscribeURL = "" }},
		{"ID", func(l *SignInLink) { l.ID = "a b" }},
		{"Date", func(l *SignInLink) { l.Expires = time.Time{} }},
	} {
		l := testSignInLink()
		tt.edit(&l)
		_, err := l.Bytes()
		var e *Error
		if !errors.As(err, &e) || e.Field != tt.field || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Bytes() = %v, want an *Error on %s", tt.field, err, tt.field)
		}
	}
}

// TestConfirmationPerson: a person's confirmation says person and what a
// person gets.
func TestConfirmationPerson(t *testing.T) {
	c := testConfirmation()
	c.Person = true
	raw, err := c.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Confirm your address for person ada-7" || !strings.Contains(m.Text, `The person "ada-7"`) || !strings.Contains(m.Text, "sign-in links") {
		t.Errorf("subject %q, text:\n%s", m.Subject, m.Text)
	}
}
