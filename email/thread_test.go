package email

import (
	"net/mail"
	"testing"
)

func TestPredictionID(t *testing.T) {
	const p, q, r = "0192f3a4-aaaa", "0192f3a4-bbbb", "0192f3b0-cccc"
	thread := ThreadID(p, testDomain)
	tests := []struct {
		name    string
		m       *Message
		wantID  string
		wantHow string
	}{
		{"nil message", nil, "", ""},
		{"nothing", &Message{Subject: "hello"}, "", ""},
		{"in-reply-to thread", &Message{InReplyTo: []string{thread}}, p, ByInReplyTo},
		{"in-reply-to reply", &Message{InReplyTo: []string{ReplyMessageID(p, r, testDomain)}}, p, ByInReplyTo},
		{"in-reply-to domain case", &Message{InReplyTo: []string{"prediction." + p + "@PREDICTIONS.Example.ORG"}}, p, ByInReplyTo},
		{"in-reply-to other domain", &Message{InReplyTo: []string{"prediction." + p + "@evil.example"}}, "", ""},
		{"in-reply-to wins over references", &Message{InReplyTo: []string{thread}, References: []string{ThreadID(q, testDomain)}}, p, ByInReplyTo},
		{"unknown in-reply-to, references", &Message{InReplyTo: []string{"x@y"}, References: []string{"a@b", thread}}, p, ByReferences},
		{"references newest first", &Message{References: []string{ThreadID(q, testDomain), thread}}, p, ByReferences},
		{"bad id in message id", &Message{InReplyTo: []string{"prediction.a b@" + testDomain}}, "", ""},
		{"reply id without prediction", &Message{InReplyTo: []string{"reply." + r + "@" + testDomain}}, "", ""},
		{"plus address to", &Message{To: []mail.Address{{Address: "board+" + p + "@" + testDomain}}}, p, ByAddress},
		{"plus address cc, any case", &Message{Cc: []mail.Address{{Address: "other@x.example"}, {Address: "BOARD+" + p + "@Predictions.Example.Org"}}}, p, ByAddress},
		{"plus address of another mailbox", &Message{To: []mail.Address{{Address: "alice+" + p + "@" + testDomain}}}, "", ""},
		{"plus address of another domain", &Message{To: []mail.Address{{Address: "board+" + p + "@evil.example"}}}, "", ""},
		{"address wins over subject", &Message{To: []mail.Address{{Address: "board+" + p + "@" + testDomain}}, Subject: "[prediction " + q + "]"}, p, ByAddress},
		{"subject", &Message{Subject: "Re: [prediction " + p + "] Fusion"}, p, BySubject},
		{"subject any case and spaces", &Message{Subject: "AW: [ Prediction  " + p + " ]"}, p, BySubject},
		{"subject without id", &Message{Subject: "[prediction] Fusion"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, how, ok := PredictionID(tt.m, testDomain, testMailbox)
			if id != tt.wantID || how != tt.wantHow || ok != (tt.wantID != "") {
				t.Errorf("PredictionID = %q, %q, %v; want %q, %q, %v", id, how, ok, tt.wantID, tt.wantHow, tt.wantID != "")
			}
		})
	}
}

func TestPredictionIDNoMailbox(t *testing.T) {
	m := &Message{To: []mail.Address{{Address: "board+abc@" + testDomain}}}
	if id, how, ok := PredictionID(m, testDomain, mail.Address{}); ok {
		t.Errorf("PredictionID with no mailbox = %q, %q, true; want no match", id, how)
	}
}

func TestParseMessageID(t *testing.T) {
	tests := []struct {
		in, domain, wantP, wantR string
		ok                       bool
	}{
		{"prediction.abc@d.example", "d.example", "abc", "", true},
		{"<prediction.abc@d.example>", "d.example", "abc", "", true},
		{"reply.r1.abc@d.example", "d.example", "abc", "r1", true},
		{"reply.r1.abc@d.example", "", "abc", "r1", true},
		{"reply.r1.abc@d.example", "e.example", "", "", false},
		{"reply.r1.x.abc@d.example", "d.example", "", "", false},
		{"prediction.@d.example", "d.example", "", "", false},
		{"prediction.abc", "d.example", "", "", false},
		{"CAF123@mail.gmail.com", "d.example", "", "", false},
	}
	for _, tt := range tests {
		p, r, ok := ParseMessageID(tt.in, tt.domain)
		if p != tt.wantP || r != tt.wantR || ok != tt.ok {
			t.Errorf("ParseMessageID(%q, %q) = %q, %q, %v; want %q, %q, %v", tt.in, tt.domain, p, r, ok, tt.wantP, tt.wantR, tt.ok)
		}
	}
}

func TestParentReplyID(t *testing.T) {
	tests := []struct {
		name string
		m    *Message
		want string
	}{
		{"nil", nil, ""},
		{"answers the prediction", &Message{InReplyTo: []string{ThreadID("p1", testDomain)}}, ""},
		{"answers a reply", &Message{InReplyTo: []string{ReplyMessageID("p1", "r1", testDomain)}}, "r1"},
		{"only references", &Message{References: []string{ReplyMessageID("p1", "r1", testDomain)}}, ""},
	}
	for _, tt := range tests {
		got, ok := ParentReplyID(tt.m, testDomain)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: ParentReplyID = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}

func TestReplyAddress(t *testing.T) {
	tests := []struct {
		in   mail.Address
		want mail.Address
	}{
		{mail.Address{Name: "Board", Address: "board@example.org"}, mail.Address{Name: "Board", Address: "board+p1@example.org"}},
		{mail.Address{Address: "board+old@example.org"}, mail.Address{Address: "board+p1@example.org"}},
		{mail.Address{Address: "nobody"}, mail.Address{Address: "nobody"}},
	}
	for _, tt := range tests {
		if got := ReplyAddress(tt.in, "p1"); got != tt.want {
			t.Errorf("ReplyAddress(%v, p1) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
