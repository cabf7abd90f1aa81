package notify_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
)

func ExampleParseURL() {
	cfg, err := notify.ParseURL("smtp://board:s3cret@mail.example.org?from=Board%20%3Cboard@example.org%3E")
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg) // without the password
	fmt.Println(cfg.From.Name, cfg.From.Address, cfg.ImplicitTLS)
	// Output:
	// smtp://board@mail.example.org:587
	// Board board@example.org false
}

// oneMessage is an outbox holding one message, for the example.
type oneMessage struct{ claimed bool }

func (o *oneMessage) Claim(context.Context, outbox.Kind, int, time.Duration) ([]outbox.Message, error) {
	if o.claimed {
		return nil, nil
	}
	o.claimed = true
	return []outbox.Message{{ID: "1", Kind: outbox.Email, Recipient: "ada@example.org", Payload: []byte("Subject: hi\r\n\r\nhi\r\n")}}, nil
}
func (o *oneMessage) Renew(_ context.Context, msgs []outbox.Message, _ time.Duration) (int, error) {
	return len(msgs), nil
}
func (o *oneMessage) MarkSent(context.Context, string) error { return nil }
func (o *oneMessage) MarkFailed(context.Context, string, string, bool) (time.Time, error) {
	return time.Now().Add(outbox.Backoff(1)), nil
}
func (o *oneMessage) Prune(context.Context, time.Time) (int, error) { return 0, nil }

// A mail server that cannot be reached leaves the message for later.
func ExampleSender_Drain() {
	snd := &notify.Sender{
		Outbox: &oneMessage{},
		From:   "board@example.org",
		SMTP:   notify.SMTP{Host: "127.0.0.1", Port: "1", Timeout: time.Second}, // nothing listens on port 1
		Log:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	res, err := snd.Drain(context.Background())
	fmt.Printf("%+v %v\n", res, err)
	// Output: {Sent:0 Retried:1 GaveUp:0} <nil>
}
