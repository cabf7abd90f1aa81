package email

import "testing"

func TestStripQuoted(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "[AGREE] Yes.\n", "[AGREE] Yes."},
		{"crlf", "[AGREE] Yes.\r\nSecond line.\r\n", "[AGREE] Yes.\nSecond line."},
		{"empty", "", ""},
		{"only quote", "> quoted\n> more\n", ""},
		{"quote lines", "[AGREE] Yes.\n\n> old\n>> older\n", "[AGREE] Yes."},
		{"indented quote", "Answer\n  > old\n", "Answer"},
		{"gmail attribution", "[DISAGREE] No.\n\nOn Mon, 3 Nov 2026 at 10:00, Ada <ada@x.example> wrote:\n\n> old\n", "[DISAGREE] No."},
		{"gmail attribution wrapped", "[DISAGREE] No.\n\nOn Mon, 3 Nov 2026 at 10:00, Ada Lovelace <ada@x.example>\nwrote:\n> old\n", "[DISAGREE] No."},
		{"apple attribution", "Fine.\n\nOn 3 Nov 2026, at 10:00, Ada wrote:\n\n> old\n", "Fine."},
		{"thunderbird attribution", "Fine.\n\nOn 11/3/26 10:00 AM, Ada wrote:\n> old\n", "Fine."},
		{"french attribution", "D'accord.\n\nLe lun. 3 nov. 2026 à 10:00, Ada <ada@x.example> a écrit :\n> old\n", "D'accord."},
		{"german attribution", "Ja.\n\nAm 03.11.2026 um 10:00 schrieb Ada <ada@x.example>:\n> old\n", "Ja."},
		{"attribution without quote cuts", "Fine.\n\nOn 3 Nov 2026, at 10:00, Ada wrote:\n\nold text not quoted\n", "Fine."},
		{"sentence is not attribution", "On reflection, I agree with what Ada wrote:\n> the quote\nIndeed.", "On reflection, I agree with what Ada wrote:\nIndeed."},
		{"interleaved", "[CHALLENGE] Inline.\n\nOn 3 Nov 2026, Ada wrote:\n> a\n\nanswer a\n\n> b\n\nanswer b\n", "[CHALLENGE] Inline.\n\nanswer a\n\nanswer b"},
		{"signature dash dash space", "[AGREE] Yes.\n\n-- \nAda\nExample Corp\n", "[AGREE] Yes."},
		{"signature dash dash", "[AGREE] Yes.\n--\nAda\n", "[AGREE] Yes."},
		{"triple dash is text", "[AGREE] Yes.\n---\nmore\n", "[AGREE] Yes.\n---\nmore"},
		{"sent from iphone", "[AGREE]\n\nSent from my iPhone\n\n> On 3 Nov 2026, at 10:00, Board wrote:\n> x\n", "[AGREE]"},
		{"sent from outlook", "Yes.\n\nGet Outlook for iOS\n", "Yes."},
		{"outlook original message", "[DEBATE] Define it.\n\n-----Original Message-----\nFrom: Board\nSent: Tuesday\nTo: me\nSubject: x\n\nold\n", "[DEBATE] Define it."},
		{"outlook underscores", "Yes.\n\n________________________________\nFrom: Board <b@x.example>\nSent: 03 November 2026 10:00\nTo: me\nSubject: x\n\nold\n", "Yes."},
		{"outlook header block", "Yes.\n\nFrom: Board <b@x.example>\nSent: Tuesday, November 3, 2026 10:00 AM\nTo: me\nSubject: x\n\nold\n", "Yes."},
		{"outlook bold header block", "Yes.\n\n*From:* Board <b@x.example>\n*Sent:* Tuesday\n*To:* me\n", "Yes."},
		{"from line alone is text", "From: my notes, the data shows X.\nThat is all.\n", "From: my notes, the data shows X.\nThat is all."},
		{"underscores alone are text", "Yes.\n____________\nmore\n", "Yes.\n____________\nmore"},
		{"forwarded", "FYI\n\nBegin forwarded message:\n\nFrom: x\n", "FYI"},
		{"first line kept as is", "  [agree]   spaced   tag\nnext\n", "[agree]   spaced   tag\nnext"},
		{"blank runs squeezed", "a\n\n\n\nb\n\n\n", "a\n\nb"},
		{"first line quote then answer", "> question\nanswer\n", "answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripQuoted(tt.in); got != tt.want {
				t.Errorf("StripQuoted(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
