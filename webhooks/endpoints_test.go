package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/webhooks"
)

func TestWebhookRecords(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		ctx := context.Background()
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		s := newEnv(t, dsn(t), testclock.New(now)).eps
		nw := func(agent string, i int) webhooks.NewWebhook {
			return webhooks.NewWebhook{AgentID: agent, URL: fmt.Sprintf("https://hooks.example.org/%d", i), Secret: "whsec_x"}
		}
		// The cap, at its boundary: the 10th is accepted, the 11th refused.
		var first webhooks.Webhook
		for i := range webhooks.MaxWebhooksPerAgent {
			w, err := s.CreateWebhook(ctx, nw("ada", i))
			if err != nil {
				t.Fatalf("CreateWebhook %d: %v", i, err)
			}
			if i == 0 {
				first = w
			}
		}
		_, err := s.CreateWebhook(ctx, nw("ada", 99))
		var ve *board.ValidationError
		if !errors.As(err, &ve) || ve.Field != "url" || !errors.Is(err, board.ErrConflict) || !errors.Is(err, webhooks.ErrWebhookCap) {
			t.Fatalf("11th CreateWebhook = %v, want a ValidationError on url wrapping ErrConflict and ErrWebhookCap", err)
		}
		// Another agent cannot delete it.
		if err := s.DeleteWebhook(ctx, "bob", first.ID); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("DeleteWebhook by another agent = %v, want ErrNotFound", err)
		}
		list, err := s.Webhooks(ctx, "ada")
		if err != nil || len(list) != webhooks.MaxWebhooksPerAgent || list[0].Secret != "" {
			t.Fatalf("Webhooks = %d, %v (secret %q), want %d without secrets", len(list), err, list[0].Secret, webhooks.MaxWebhooksPerAgent)
		}
		want := webhooks.Webhook{ID: first.ID, AgentID: "ada", URL: "https://hooks.example.org/0", Types: []board.EventType{},
			Status: webhooks.WebhookActive, CreatedAt: now}
		if diff := cmp.Diff(want, list[0]); diff != "" {
			t.Errorf("listed endpoint (-want +got):\n%s", diff)
		}
		// Failing, then disabled; a success in between clears it.
		since, err := s.WebhookFailed(ctx, first.ID, now)
		if err != nil || !since.Equal(now) {
			t.Fatalf("WebhookFailed = %v, %v", since, err)
		}
		if since, _ = s.WebhookFailed(ctx, first.ID, now.Add(time.Hour)); !since.Equal(now) {
			t.Errorf("second WebhookFailed = %v, want the first failure %v", since, now)
		}
		if err := s.WebhookDelivered(ctx, first.ID); err != nil {
			t.Fatal(err)
		}
		if since, _ = s.WebhookFailed(ctx, first.ID, now.Add(2*time.Hour)); !since.Equal(now.Add(2 * time.Hour)) {
			t.Errorf("WebhookFailed after a success = %v, want a new start", since)
		}
		for i, wantDone := range []bool{true, false} {
			done, err := s.DisableWebhook(ctx, first.ID, "failing for 24h")
			if err != nil || done != wantDone {
				t.Errorf("DisableWebhook #%d = %v, %v, want %v", i, done, err, wantDone)
			}
		}
		got, err := s.WebhookByID(ctx, first.ID)
		if err != nil || got.Status != webhooks.WebhookDisabled || got.StatusReason != "failing for 24h" || got.Secret != "whsec_x" {
			t.Errorf("WebhookByID = %+v, %v", got, err)
		}
		active, _ := s.ActiveWebhooks(ctx)
		if len(active) != webhooks.MaxWebhooksPerAgent-1 {
			t.Errorf("ActiveWebhooks = %d, want %d", len(active), webhooks.MaxWebhooksPerAgent-1)
		}
		if err := s.DeleteWebhook(ctx, "ada", first.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WebhookByID(ctx, first.ID); !errors.Is(err, board.ErrNotFound) {
			t.Errorf("WebhookByID after delete = %v, want ErrNotFound", err)
		}
		// Bad input names its field.
		for _, tc := range []struct {
			nw    webhooks.NewWebhook
			field string
		}{
			{webhooks.NewWebhook{AgentID: "bob", Secret: "s"}, "url"},
			{webhooks.NewWebhook{AgentID: "bob", URL: "https://x.example/" + string(make([]byte, webhooks.MaxWebhookURL)), Secret: "s"}, "url"},
			{webhooks.NewWebhook{AgentID: "bob", URL: "https://x.example/", Types: []string{"forecast.made"}, Secret: "s"}, "types"},
			{webhooks.NewWebhook{AgentID: "bob", URL: "https://x.example/", Domain: "Cooking", Secret: "s"}, "domain"},
			{webhooks.NewWebhook{AgentID: "b b", URL: "https://x.example/", Secret: "s"}, "agent_id"},
		} {
			_, err := s.CreateWebhook(ctx, tc.nw)
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Errorf("CreateWebhook(%+v) = %v, want a ValidationError on %s", tc.nw, err, tc.field)
			}
		}
	})
}
