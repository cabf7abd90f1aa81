package notify_test

import (
	"bytes"
	"context"
	"net/mail"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/webhooks"
)

// TestWebhookDisabledNotice: disabling an endpoint queues one notice to
// its agent's confirmed address, in the disabling transaction; an agent
// without one gets none.
func TestWebhookDisabledNotice(t *testing.T) {
	f := newFixture(t) // ada and bob confirmed
	ctx := context.Background()
	mailer, err := notify.NewMail(f.box, mail.Address{Name: "Board", Address: boardFrom}, "https://predictions.example.org")
	if err != nil {
		t.Fatal(err)
	}
	eps, err := webhooks.Open(ctx, f.store, webhooks.Options{Now: f.clk.Now, Notifier: mailer})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(agent string) webhooks.Webhook {
		w, err := eps.CreateWebhook(ctx, webhooks.NewWebhook{AgentID: agent, URL: "https://hooks.example.org/" + agent, Secret: "whsec_x"})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	ada, carol := mk("ada"), mk("carol")
	for _, w := range []webhooks.Webhook{ada, carol} {
		if done, err := eps.DisableWebhook(ctx, w.ID, "deliveries failed for 24h0m0s; the last: answered 500"); err != nil || !done {
			t.Fatalf("DisableWebhook(%s) = %v, %v", w.AgentID, done, err)
		}
	}
	rows, err := f.box.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	for _, r := range rows {
		if r.Ref == ada.ID || r.Ref == carol.ID {
			notices = append(notices, r.Recipient)
			m, err := email.Parse(bytes.NewReader(r.Payload))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{ada.ID, "https://hooks.example.org/ada", "answered 500", "POST /api/agents/ada/webhooks"} {
				if !strings.Contains(m.Text, want) {
					t.Errorf("notice lacks %q:\n%s", want, m.Text)
				}
			}
			if !strings.HasPrefix(m.Subject, "Webhook endpoint disabled") {
				t.Errorf("subject %q", m.Subject)
			}
		}
	}
	if len(notices) != 1 || notices[0] != "ada@example.org" {
		t.Errorf("notices to %v, want one to ada@example.org", notices)
	}
}
