package email

import (
	"bytes"
	"errors"
	"mime"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var testDate = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

func testNotification(kind string) Notification {
	n := Notification{
		From:         mail.Address{Name: "Predictions board", Address: "board@" + testDomain},
		To:           []mail.Address{{Name: "Ada", Address: "ada@agents.example.com"}, {Name: "José María", Address: "jose@agents.example.com"}},
		PredictionID: testPred,
		Title:        "Fusion plant on the grid by 2035",
		Kind:         kind,
		Author:       "Grace",
		Body:         "Two private plants have firm grid contracts for 2033.\nITER slipped.",
		URL:          "https://" + testDomain + "/api/predictions/" + testPred,
		Date:         testDate,
		Domain:       testDomain,
	}
	if kind != KindPrediction {
		n.ReplyID = testReply
		n.Body = "[" + strings.ToUpper(kind) + "] " + n.Body
	}
	return n
}

// TestNotificationGolden pins the exact bytes of two notifications.
func TestNotificationGolden(t *testing.T) {
	for _, kind := range []string{KindPrediction, KindDebate, KindResolved} {
		t.Run(kind, func(t *testing.T) {
			n := testNotification(kind)
			n.Title = "Fusión plant on the grid by 2035, a title long enough to be folded over two lines"
			got, err := n.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.SplitAfter(string(got), "\r\n") {
				if len(line) > 1000 { // 998 and CRLF (RFC 5322 section 2.1.1)
					t.Errorf("line %d is %d bytes long: %q", i+1, len(line), line)
				}
				if strings.Contains(strings.TrimSuffix(line, "\r\n"), "\n") || strings.Contains(strings.TrimSuffix(line, "\r\n"), "\r") {
					t.Errorf("line %d has a bare CR or LF: %q", i+1, line)
				}
			}
			golden(t, "testdata/notification-"+kind+".golden.msg", got)
		})
	}
}

// TestNotificationRoundTrip parses each kind of notification back.
func TestNotificationRoundTrip(t *testing.T) {
	kinds := []string{KindPrediction, KindReply, KindAgree, KindDisagree, KindChallenge, KindDebate, KindResolved, KindClosed, "something-new"}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			n := testNotification(kind)
			raw, err := n.Bytes()
			if err != nil {
				t.Fatalf("Bytes: %v", err)
			}
			m, err := Parse(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := &Message{
				From:      n.From,
				To:        n.To,
				Subject:   n.Subject(),
				MessageID: n.MessageID(),
				Date:      testDate,
				Automatic: true,
			}
			if kind != KindPrediction {
				want.InReplyTo = []string{ThreadID(testPred, testDomain)}
				want.References = want.InReplyTo
			}
			got := *m
			got.Text, got.Reply = "", ""
			got.Date = got.Date.UTC()
			if diff := cmp.Diff(want, &got); diff != "" {
				t.Errorf("Parse(Bytes()) mismatch (-want +got):\n%s", diff)
			}
			if !strings.Contains(m.Text, n.Body+"\n") {
				t.Errorf("Text %q does not hold the body %q", m.Text, n.Body)
			}
			for _, tag := range []string{"[AGREE]", "[DISAGREE]", "[CHALLENGE]", "[DEBATE]", n.URL} {
				if !strings.Contains(m.Text, tag) {
					t.Errorf("Text does not mention %s", tag)
				}
			}
			// The signature delimiter keeps the guide out of a reply that
			// quotes it without ">".
			if strings.Contains(m.Reply, "[AGREE]      vote") {
				t.Errorf("Reply %q holds the footer", m.Reply)
			}

			// An agent answers the notification: the answer is matched.
			answer := "From: Ada <ada@agents.example.com>\r\n" +
				"To: " + ReplyAddress(n.From, testPred).Address + "\r\n" +
				"Subject: Re: " + m.Subject + "\r\n" +
				"In-Reply-To: <" + m.MessageID + ">\r\n" +
				"\r\n[AGREE] Yes.\r\n\r\nOn Tue, 3 Nov 2026 at 10:00, Board wrote:\r\n> " + strings.ReplaceAll(m.Text, "\n", "\n> ")
			a, err := Parse(strings.NewReader(answer))
			if err != nil {
				t.Fatalf("Parse(answer): %v", err)
			}
			if id, how, ok := PredictionID(a, testDomain, n.From); id != testPred || how != ByInReplyTo || !ok {
				t.Errorf("PredictionID(answer) = %q, %q, %v; want %q, in-reply-to", id, how, ok, testPred)
			}
			parent, ok := ParentReplyID(a, testDomain)
			if wantParent := n.ReplyID; parent != wantParent || ok != (wantParent != "") {
				t.Errorf("ParentReplyID(answer) = %q, %v; want %q", parent, ok, wantParent)
			}
			if a.Reply != "[AGREE] Yes." {
				t.Errorf("answer Reply = %q, want %q", a.Reply, "[AGREE] Yes.")
			}
		})
	}
}

// TestNotificationInjection feeds CR and LF through every free-text field:
// none may start a header line of its own.
func TestNotificationInjection(t *testing.T) {
	const evil = "x\r\nBcc: victim@evil.example\r\nX-Injected: yes\n\nbody"
	n := testNotification(KindAgree)
	n.Title = evil
	n.Author = evil
	n.From.Name = evil
	n.To[0].Name = evil
	n.URL = evil
	n.Body = evil
	raw, err := n.Bytes()
	if err != nil {
		t.Fatalf("Bytes: %v", err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("ReadMessage: %v", err)
	}
	for _, h := range []string{"Bcc", "X-Injected"} {
		if v, ok := msg.Header[h]; ok {
			t.Errorf("header %s was injected: %q", h, v)
		}
	}
	wantHeaders := []string{"Date", "From", "To", "Reply-To", "Subject", "Message-Id", "In-Reply-To", "References", "List-Id", "X-Prediction-Id", "Auto-Submitted", "Precedence", "X-Auto-Response-Suppress", "Mime-Version", "Content-Type", "Content-Transfer-Encoding"}
	var got []string
	for k := range msg.Header {
		got = append(got, k)
	}
	if diff := cmp.Diff(wantHeaders, got, cmpSortStrings); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	m, err := Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if want := "Re: [prediction " + testPred + "] x Bcc: victim@evil.example X-Injected: yes body"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	if m.From.Name != "x Bcc: victim@evil.example X-Injected: yes body" {
		t.Errorf("From.Name = %q", m.From.Name)
	}
}

var cmpSortStrings = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

func TestNotificationInvalid(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Notification)
		field string
	}{
		{"no from", func(n *Notification) { n.From.Address = "" }, "From"},
		{"from with newline", func(n *Notification) { n.From.Address = "board@x.example\r\nBcc: v@evil.example" }, "From"},
		{"from with name", func(n *Notification) { n.From.Address = "Board <board@x.example>" }, "From"},
		{"no to", func(n *Notification) { n.To = nil }, "To"},
		{"bad to", func(n *Notification) { n.To = append(n.To, mail.Address{Address: "not an address"}) }, "To[2]"},
		{"to with newline", func(n *Notification) { n.To[0].Address = "a@b.example\nBcc: v@evil.example" }, "To[0]"},
		{"no prediction id", func(n *Notification) { n.PredictionID = "" }, "PredictionID"},
		{"prediction id with newline", func(n *Notification) { n.PredictionID = "abc\r\nBcc: v@evil.example" }, "PredictionID"},
		{"prediction id with dot", func(n *Notification) { n.PredictionID = "a.b" }, "PredictionID"},
		{"no kind", func(n *Notification) { n.Kind = "" }, "Kind"},
		{"reply without reply id", func(n *Notification) { n.ReplyID = "" }, "ReplyID"},
		{"reply id with newline", func(n *Notification) { n.ReplyID = "r\nX: y" }, "ReplyID"},
		{"no domain", func(n *Notification) { n.Domain = "" }, "Domain"},
		{"domain with newline", func(n *Notification) { n.Domain = "x.example\r\nBcc: v@evil.example" }, "Domain"},
		{"domain with bracket", func(n *Notification) { n.Domain = "x.example>" }, "Domain"},
		{"no date", func(n *Notification) { n.Date = time.Time{} }, "Date"},
		{"unsubscribe link with newline", func(n *Notification) { n.UnsubscribeURL = "https://x.example/u?t=1\r\nBcc: v@evil.example" }, "UnsubscribeURL"},
		{"unsubscribe link closing the bracket", func(n *Notification) { n.UnsubscribeURL = "https://x.example/u>, <mailto:v@evil.example" }, "UnsubscribeURL"},
		{"unsubscribe link not http", func(n *Notification) { n.UnsubscribeURL = "javascript:alert(1)" }, "UnsubscribeURL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := testNotification(KindReply)
			n.To = append([]mail.Address(nil), n.To...)
			tt.edit(&n)
			raw, err := n.Bytes()
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Bytes() = %q, %v; want an *Error wrapping ErrInvalid", raw, err)
			}
			if e.Field != tt.field || e.Problem == "" || e.Hint == "" {
				t.Errorf("Bytes() error %+v; want Field %q with a problem and a hint", e, tt.field)
			}
		})
	}
}

func TestEncodeHeader(t *testing.T) {
	d := new(mime.WordDecoder)
	for _, v := range []string{
		"plain ascii",
		"Fusión",
		"looks =?utf-8?q?encoded?= but is not",
		strings.Repeat("a", 200),
		strings.Repeat("é", 200),
		"under_score and ?= marks",
	} {
		enc := encodeHeader(v)
		for _, w := range strings.Fields(enc) {
			if len(w) > 998-len("Subject: ") {
				t.Errorf("encodeHeader(%q) has a word of %d bytes", v, len(w))
			}
		}
		got, err := d.DecodeHeader(enc)
		if err != nil || got != v {
			t.Errorf("DecodeHeader(encodeHeader(%q)) = %q, %v", v, got, err)
		}
	}
}
