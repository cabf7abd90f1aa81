package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// fanOutEnv is a board whose fan-out and sender run as serve runs them,
// against one https receiver that answers 204 at once.
type fanOutEnv struct {
	*env
	url string
}

func newFanOutEnv(t testing.TB, dsn string) *fanOutEnv {
	e := newEnv(t, dsn, nil)
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
	return &fanOutEnv{env: e, url: ts.URL}
}

// register asks for MaxWebhooksPerAgent endpoints for each of agents
// agents, 8 at a time, and returns how many were registered and how many
// refused with ErrWebhookCap.
func (f *fanOutEnv) register(t testing.TB, agents int) (created, capped int64) {
	sec, _ := signature.NewSecret()
	var c, k atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for a := w; a < agents; a += 8 {
				for i := range webhooks.MaxWebhooksPerAgent {
					_, err := f.eps.CreateWebhook(f.ctx, webhooks.NewWebhook{AgentID: fmt.Sprintf("agent-%d", a),
						URL: fmt.Sprintf("%s/hook/%d/%d", f.url, a, i), Secret: sec.String()})
					switch {
					case err == nil:
						c.Add(1)
					case errors.Is(err, webhooks.ErrWebhookCap):
						k.Add(1)
					default:
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return c.Load(), k.Load()
}

// TestFanOutBound: 3,000 endpoints asked for by 300 agents at once (10
// each, the most an agent may have; 15 times the cap) leave the board
// with DefaultMaxActive active ones, the rest refused with ErrWebhookCap,
// and a post then queues one delivery per active endpoint, no more.
// (BenchmarkFanOutPosts registers 10,000.)
func TestFanOutBound(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 registrations")
	}
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		f := newFanOutEnv(t, dsn(t))
		const agents = 300
		start := time.Now()
		created, capped := f.register(t, agents)
		t.Logf("%d registrations in %s: %d active, %d refused", agents*webhooks.MaxWebhooksPerAgent, time.Since(start).Round(time.Millisecond), created, capped)
		if created != webhooks.DefaultMaxActive || capped != agents*webhooks.MaxWebhooksPerAgent-webhooks.DefaultMaxActive {
			t.Fatalf("%d active and %d refused, want %d active", created, capped, webhooks.DefaultMaxActive)
		}
		p := f.predict(t, "counted")
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			rows, err := f.box.List(f.ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == webhooks.DefaultMaxActive {
				break
			}
			if len(rows) > webhooks.DefaultMaxActive || time.Now().After(deadline) {
				t.Fatalf("%d deliveries queued for one post, want %d", len(rows), webhooks.DefaultMaxActive)
			}
		}
	})
}

// BenchmarkFanOutPosts measures what DefaultMaxActive endpoints cost the
// board's writes: 30 posts 100 ms apart without endpoints, then, after
// 10,000 registrations (DefaultMaxActive of them active), 30 more while
// each is delivered to every endpoint. It reports the posts' p50 and p99
// (ms) of both rounds and the deliveries pending after the last post. On
// PostgreSQL when PREDICTIONS_TEST_POSTGRES is set. Goal: the p50 with
// endpoints at most twice the p50 without.
//
//	go test -run '^$' -bench FanOutPosts -benchtime 1x ./webhooks/
func BenchmarkFanOutPosts(b *testing.B) {
	dsn := boardtest.SQLite(b)
	if admin := os.Getenv("PREDICTIONS_TEST_POSTGRES"); admin != "" {
		dsn = boardtest.Postgres(b, admin)
	}
	f := newFanOutEnv(b, dsn)
	const posts, gap = 30, 100 * time.Millisecond
	measure := func(round string) []time.Duration {
		var lat []time.Duration
		for i := range posts {
			start := time.Now()
			f.predict(b, fmt.Sprintf("%s %d", round, i))
			lat = append(lat, time.Since(start))
			time.Sleep(gap)
		}
		return lat
	}
	b.ResetTimer()
	for range b.N {
		alone := measure("alone")
		if created, _ := f.register(b, 1000); created != webhooks.DefaultMaxActive && b.N == 1 {
			b.Fatalf("%d endpoints active, want %d", created, webhooks.DefaultMaxActive)
		}
		busy := measure("fanned out")
		pending, err := f.box.Backlog(f.ctx)
		if err != nil {
			b.Fatal(err)
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(quantile(alone, 0.5)), "alone-p50-ms")
		b.ReportMetric(ms(quantile(alone, 0.99)), "alone-p99-ms")
		b.ReportMetric(ms(quantile(busy, 0.5)), "p50-ms")
		b.ReportMetric(ms(quantile(busy, 0.99)), "p99-ms")
		b.ReportMetric(float64(pending), "pending")
	}
}
