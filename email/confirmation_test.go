package email

import (
	"bytes"
	"errors"
	"net/mail"
	"strings"
	"testing"
	"time"
)

func testConfirmation() Confirmation {
	return Confirmation{
		From: mail.Address{Name: "Predictions board", Address: "board@" + testDomain}, To: mail.Address{Name: "Ada", Address: "ada@agents.example.com"},
		AgentID: "ada-7", Token: "q5Jr0c3hXk2m9QZs6Pn1y4Vb8Wd7Ft0aLgE3uTiRoYw",
		ConfirmURL:     "https://" + testDomain + "/api/agents/ada-7/email/confirm?token=q5Jr0c3hXk2m9QZs6Pn1y4Vb8Wd7Ft0aLgE3uTiRoYw",
		UnsubscribeURL: "https://" + testDomain + "/api/email/unsubscribe?token=Zk1oN2xYc0V3dTRhQmNkZWZnaGlqa2xtbm9wcXJzdHU",
		Expires:        testDate.Add(48 * 60 * 60 * 1e9), ID: "0190f5a2-7b3c-7d4e-8f90-123456789abc", Domain: testDomain, Date: testDate,
	}
}

// TestConfirmationGolden pins the bytes of a confirmation message and
// reads it back: the RFC 8058 headers, the link and token whole after
// quoted-printable decoding, no Reply-To of a prediction.
func TestConfirmationGolden(t *testing.T) {
	c := testConfirmation()
	raw, err := c.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/confirmation.golden.msg", raw)
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{
		"List-Unsubscribe":      "<" + c.UnsubscribeURL + ">",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"Reply-To":              "",
		"Auto-Submitted":        "auto-generated",
		"Message-Id":            "<confirm." + c.ID + "@" + testDomain + ">",
	} {
		if got := msg.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	m, err := Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{c.ConfirmURL, `{"token": "` + c.Token + `"}`, c.UnsubscribeURL, "ignore this message"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, m.Text)
		}
	}
}

func TestConfirmationInvalid(t *testing.T) {
	for _, tt := range []struct {
		name  string
		edit  func(*Confirmation)
		field string
	}{
		{"no to", func(c *Confirmation) { c.To.Address = "" }, "To"},
		{"to with newline", func(c *Confirmation) { c.To.Address = "a@b.example\r\nBcc: v@evil.example" }, "To"},
		{"no confirm link", func(c *Confirmation) { c.ConfirmURL = "" }, "ConfirmURL"},
		{"no unsubscribe link", func(c *Confirmation) { c.UnsubscribeURL = "" }, "UnsubscribeURL"},
		{"unsubscribe link with newline", func(c *Confirmation) { c.UnsubscribeURL += "\r\nBcc: v@evil.example" }, "UnsubscribeURL"},
		{"bad id", func(c *Confirmation) { c.ID = "a.b" }, "ID"},
		{"bad domain", func(c *Confirmation) { c.Domain = "x>" }, "Domain"},
		{"no expiry", func(c *Confirmation) { c.Expires = time.Time{} }, "Date"},
	} {
		c := testConfirmation()
		tt.edit(&c)
		_, err := c.Bytes()
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Field != tt.field || e.Hint == "" {
			t.Errorf("%s: Bytes() = %v, want an *Error on %s with a hint", tt.name, err, tt.field)
		}
	}
	// An agent id with a line break stays in one header line.
	c := testConfirmation()
	c.AgentID = "x\r\nBcc: v@evil.example"
	raw, err := c.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := mail.ReadMessage(bytes.NewReader(raw)); err != nil || msg.Header.Get("Bcc") != "" {
		t.Errorf("header injected through the agent id: %v %v", err, msg.Header)
	}
}
