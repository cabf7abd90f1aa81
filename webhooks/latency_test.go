package webhooks_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/webhooks"
)

// BenchmarkCommitToWebhook measures the time from a prediction's write
// (CreatePrediction called, so the write's own time is included) to its delivery on a loopback TLS
// receiver, with the fan-out and the sender running as serve runs them,
// one event at a time: it reports the mean and the max (ms). On
// PostgreSQL when PREDICTIONS_TEST_POSTGRES is set.
func BenchmarkCommitToWebhook(b *testing.B) {
	dsn := boardtest.SQLite(b)
	if admin := os.Getenv("PREDICTIONS_TEST_POSTGRES"); admin != "" {
		dsn = boardtest.Postgres(b, admin)
	}
	e := newEnv(b, dsn, nil)
	r := newReceiver(b, time.Now)
	e.hook(b, r, "ada")
	snd := &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Client: r.client()}
	e.fan.Queued = snd.Kick
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); snd.Run(ctx) }()
	go func() { defer wg.Done(); e.fan.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()

	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now() // before the write: an upper bound on commit to delivery
		e.predict(b, fmt.Sprintf("Event %d", i))
		select {
		case <-r.notify:
		case <-time.After(30 * time.Second):
			b.Fatalf("event %d not delivered in 30 s", i)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	b.ReportMetric(float64(sum.Microseconds())/float64(len(lat))/1000, "mean-ms")
	b.ReportMetric(float64(slices.Max(lat).Microseconds())/1000, "max-ms")
}
