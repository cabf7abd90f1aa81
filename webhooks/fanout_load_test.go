package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// TestFanOutBound: 10,000 endpoints asked for by 1,000 agents (10 each,
// the most an agent may have) leave the board with DefaultMaxActive
// active ones, the rest refused with ErrWebhookCap; a post then queues
// one delivery per active endpoint, and, with the fan-out and the sender
// running as serve runs them against a receiver that answers at once,
// the median post takes at most twice its time without endpoints. The
// figures are logged (-v).
func TestFanOutBound(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 registrations and seconds of deliveries")
	}
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		e := newEnv(t, dsn(t), nil)
		ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
		t.Cleanup(ts.Close)
		roots := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
		quiet := slog.New(slog.DiscardHandler)
		snd := &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Log: quiet,
			Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, RootCAs: roots})}
		e.fan.Queued, e.fan.Log = snd.Kick, quiet
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { snd.Run(ctx) })
		wg.Go(func() { e.fan.Run(ctx) })
		t.Cleanup(func() { cancel(); wg.Wait() })

		const posts, gap = 30, 100 * time.Millisecond
		measure := func(round string) []time.Duration {
			var lat []time.Duration
			for i := range posts {
				start := time.Now()
				e.predict(t, fmt.Sprintf("%s %d", round, i))
				lat = append(lat, time.Since(start))
				time.Sleep(gap)
			}
			return lat
		}
		alone := measure("alone")

		sec, _ := signature.NewSecret()
		const agents = 1000
		var created, capped atomic.Int64
		start := time.Now()
		var reg sync.WaitGroup
		for w := range 8 {
			reg.Go(func() {
				for a := w; a < agents; a += 8 {
					for i := range webhooks.MaxWebhooksPerAgent {
						_, err := e.eps.CreateWebhook(e.ctx, webhooks.NewWebhook{AgentID: fmt.Sprintf("agent-%d", a),
							URL: fmt.Sprintf("%s/hook/%d/%d", ts.URL, a, i), Secret: sec.String()})
						switch {
						case err == nil:
							created.Add(1)
						case errors.Is(err, webhooks.ErrWebhookCap):
							capped.Add(1)
						default:
							t.Error(err)
							return
						}
					}
				}
			})
		}
		reg.Wait()
		t.Logf("%d registrations in %s: %d active, %d refused", agents*webhooks.MaxWebhooksPerAgent, time.Since(start).Round(time.Millisecond), created.Load(), capped.Load())
		if created.Load() != webhooks.DefaultMaxActive || capped.Load() != agents*webhooks.MaxWebhooksPerAgent-webhooks.DefaultMaxActive {
			t.Fatalf("%d active and %d refused, want %d active", created.Load(), capped.Load(), webhooks.DefaultMaxActive)
		}

		busy := measure("fanned out")
		p := e.predict(t, "counted")
		deadline := time.Now().Add(30 * time.Second)
		for {
			rows, err := e.box.List(e.ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == webhooks.DefaultMaxActive {
				break
			}
			if len(rows) > webhooks.DefaultMaxActive || time.Now().After(deadline) {
				t.Fatalf("%d deliveries queued for one post, want %d", len(rows), webhooks.DefaultMaxActive)
			}
			time.Sleep(20 * time.Millisecond)
		}
		pending, err := e.box.Backlog(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		a50, a99, b50, b99 := quantile(alone, 0.5), quantile(alone, 0.99), quantile(busy, 0.5), quantile(busy, 0.99)
		t.Logf("post p50 / p99 over %d posts %s apart: %s / %s without endpoints, %s / %s with %d; %d deliveries pending after the last post",
			posts, gap, a50.Round(100*time.Microsecond), a99.Round(100*time.Microsecond), b50.Round(100*time.Microsecond), b99.Round(100*time.Microsecond),
			webhooks.DefaultMaxActive, pending)
		if b50 > 2*a50+time.Millisecond {
			t.Errorf("median post %s with %d endpoints, want at most twice %s", b50, webhooks.DefaultMaxActive, a50)
		}
	})
}
