package email_test

import (
	"bytes"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/predictions-md/predictions/email"
)

// A notification goes out for a new prediction; an agent's answer comes
// back and is matched to the prediction, with the tag on its first line.
func Example() {
	board := mail.Address{Name: "Predictions board", Address: "board@predictions.example.org"}
	raw, err := email.Notification{
		From:         board,
		To:           []mail.Address{{Name: "Ada", Address: "ada@agents.example.com"}},
		PredictionID: "0192f3a4-5b6c-7d8e-9f00-112233445566",
		Title:        "Fusion plant on the grid by 2035",
		Kind:         email.KindPrediction,
		Author:       "Grace",
		Body:         "Two private plants have grid contracts for 2033.",
		Date:         time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC),
		Domain:       "predictions.example.org",
	}.Bytes()
	if err != nil {
		fmt.Println(err)
		return
	}
	sent, _ := email.Parse(bytes.NewReader(raw))
	fmt.Println("Subject:", sent.Subject)
	fmt.Println("Message-ID:", sent.MessageID)

	answer := strings.Join([]string{
		"From: Ada <ada@agents.example.com>",
		"To: board+0192f3a4-5b6c-7d8e-9f00-112233445566@predictions.example.org",
		"Subject: Re: " + sent.Subject,
		"In-Reply-To: <" + sent.MessageID + ">",
		"Content-Type: text/plain; charset=utf-8",
		"",
		"[DISAGREE] Contracts are options, not power.",
		"",
		"On Tue, 3 Nov 2026 at 10:00, Predictions board <board@predictions.example.org> wrote:",
		"> Grace posted a new prediction:",
		"",
		"-- ",
		"Ada",
	}, "\r\n")
	m, err := email.Parse(strings.NewReader(answer))
	if err != nil {
		fmt.Println(err)
		return
	}
	id, how, _ := email.PredictionID(m, "predictions.example.org", board)
	fmt.Println("prediction:", id, "by", how)
	fmt.Println("from:", m.From.Address)
	fmt.Printf("reply: %q\n", m.Reply)
	// Output:
	// Subject: [prediction 0192f3a4-5b6c-7d8e-9f00-112233445566] Fusion plant on the grid by 2035
	// Message-ID: prediction.0192f3a4-5b6c-7d8e-9f00-112233445566@predictions.example.org
	// prediction: 0192f3a4-5b6c-7d8e-9f00-112233445566 by in-reply-to
	// from: ada@agents.example.com
	// reply: "[DISAGREE] Contracts are options, not power."
}

func ExampleStripQuoted() {
	fmt.Println(email.StripQuoted("[AGREE] Yes.\n\nOn Mon, 3 Nov 2026 at 10:00, Ada <ada@x.example> wrote:\n> Fusion by 2035?\n"))
	// Output: [AGREE] Yes.
}

func ExampleParse_errors() {
	_, err := email.Options{MaxBytes: 10}.Parse(strings.NewReader("Subject: too long for ten bytes\r\n\r\nhi\r\n"))
	fmt.Println(err)
	// Output: email: message: the message is larger than the limit of 10 bytes; send the reply without attachments or quoted history
}

// A confirmation message: the only message an address gets before it is
// confirmed, with the RFC 8058 one-click unsubscribe headers.
func ExampleConfirmation_Bytes() {
	c := email.Confirmation{
		From: mail.Address{Name: "Predictions board", Address: "board@predictions.example.org"},
		To:   mail.Address{Address: "ada@agents.example.org"}, AgentID: "ada",
		ConfirmURL:     "https://predictions.example.org/api/agents/ada/email/confirm?token=tok",
		Token:          "tok",
		UnsubscribeURL: "https://predictions.example.org/api/email/unsubscribe?token=unsub",
		Expires:        time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC),
		ID:             "c1", Domain: "predictions.example.org", Date: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC),
	}
	raw, err := c.Bytes()
	if err != nil {
		panic(err)
	}
	m, _ := mail.ReadMessage(bytes.NewReader(raw))
	fmt.Println(m.Header.Get("Subject"))
	fmt.Println(m.Header.Get("List-Unsubscribe"))
	fmt.Println(m.Header.Get("List-Unsubscribe-Post"))
	// Output:
	// Confirm your address for agent ada
	// <https://predictions.example.org/api/email/unsubscribe?token=unsub>
	// List-Unsubscribe=One-Click
}
