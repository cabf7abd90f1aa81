package webhooks_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/webhooks"
)

// TestUpgrade opens the endpoints on a board made while the board kept
// them: its migration 20261129000010 made the table webhooks, with the
// columns the endpoints' own first migration creates, and no
// webhooks_migrations table exists. Every endpoint is kept as it was
// (two active ones failing since their first attempt, a disabled one
// with its reason), the deliveries still queued to the active ones go
// out after the upgrade, and the one queued to the disabled endpoint is
// given up, as before.
func TestUpgrade(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		e := newEnv(t, dsn(t), c)
		failing, healthy, off := newReceiver(t, c.Now, 500), newReceiver(t, c.Now, 500), newReceiver(t, c.Now, 500)
		hf, hh, ho := e.hook(t, failing, "ada"), e.hook(t, healthy, "bob"), e.hook(t, off, "carol")
		e.predict(t, "Before the upgrade")
		e.step(t, 3)
		e.sender = &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Client: failing.client(), Now: c.Now}
		e.drain(t, webhooks.Result{Retried: 3}) // each answers 500 once
		if _, err := e.eps.DisableWebhook(e.ctx, ho.ID, "deliveries failed for 24h0m0s; the last: answered 500"); err != nil {
			t.Fatal(err)
		}
		before := map[string]webhooks.Webhook{}
		for _, h := range []webhooks.Webhook{hf, hh, ho} {
			w, err := e.eps.WebhookByID(e.ctx, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			before[h.ID] = w
		}
		if before[hf.ID].FailingSince == nil || before[ho.ID].Status != webhooks.WebhookDisabled {
			t.Fatalf("endpoints before the upgrade: %+v", before)
		}

		// The board as today's main left it: the endpoints' table, and no
		// migration set of their own.
		for _, q := range []string{`DROP TABLE webhooks_migrations`, `DROP TABLE webhooks_migration_locks`} {
			if _, err := e.store.WriteDB().ExecContext(e.ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		eps, err := webhooks.Open(e.ctx, e.store, webhooks.Options{Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		var applied []string
		if err := e.store.WriteDB().NewRaw(`SELECT name FROM webhooks_migrations ORDER BY name`).Scan(e.ctx, &applied); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"20261202000010"}, applied); diff != "" {
			t.Errorf("migrations applied by the upgrade (-want +got):\n%s", diff)
		}
		for id, want := range before {
			got, err := eps.WebhookByID(e.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("endpoint %s after the upgrade (-before +after):\n%s", id, diff)
			}
		}
		for agent, n := range map[string]int{"ada": 1, "bob": 1, "carol": 1} {
			if list, err := eps.Webhooks(e.ctx, agent); err != nil || len(list) != n {
				t.Errorf("Webhooks(%s) after the upgrade = %d, %v; want %d", agent, len(list), err, n)
			}
		}
		// Opening again (another replica, a restart) changes nothing.
		if _, err := webhooks.Open(e.ctx, e.store, webhooks.Options{Now: c.Now}); err != nil {
			t.Fatal(err)
		}

		// The deliveries queued before the upgrade: the active endpoints
		// get theirs, the disabled one's is given up unsent.
		e.eps = eps
		e.sender = &webhooks.Sender{Endpoints: eps, Outbox: e.box, Now: c.Now, Client: failing.client()}
		c.Advance(outbox.RetryMax)
		e.drain(t, webhooks.Result{Sent: 2, GaveUp: 1})
		if len(healthy.deliveries()) != 2 || len(off.deliveries()) != 1 {
			t.Errorf("after the upgrade: %d deliveries to the healthy endpoint, %d to the disabled one; want 2 and 1 (one before the upgrade each)",
				len(healthy.deliveries()), len(off.deliveries()))
		}
		if w, err := eps.WebhookByID(e.ctx, hf.ID); err != nil || w.FailingSince != nil {
			t.Errorf("the failing endpoint after its delivery: %+v, %v; want failing_since cleared", w, err)
		}
	})
}
