package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// hungServer is an https endpoint whose handler blocks until the test
// ends: a receiver that never answers.
func hungServer(t testing.TB) *httptest.Server {
	release := make(chan struct{})
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for the handlers
	return ts
}

// arrivals is a healthy https endpoint that records when each event
// arrived, by the prediction's title in the event's data.
type arrivals struct {
	ts *httptest.Server
	mu sync.Mutex
	at map[string]time.Time
}

func newArrivals(t testing.TB) *arrivals {
	a := &arrivals{at: map[string]time.Time{}}
	a.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		var e struct {
			Data struct {
				Title string `json:"title"`
			} `json:"data"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &e); err == nil {
			a.mu.Lock()
			if _, ok := a.at[e.Data.Title]; !ok {
				a.at[e.Data.Title] = now
			}
			a.mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(a.ts.Close)
	return a
}

func (a *arrivals) get(title string) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.at[title]
	return at, ok
}

// TestHealthyBesideHung: a healthy endpoint's events arrive as soon
// with 0, 1 or 25 endpoints of other agents that never answer: the
// sender goes on claiming while their attempts hang (to the client's
// 10 s timeout, as serve runs it). Goal: p99 of commit to arrival under
// 1 s with 25 hung (5 s under the race detector). The figures are logged
// (-v).
func TestHealthyBesideHung(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of deliveries")
	}
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		for _, hung := range []int{0, 1, 25} {
			t.Run(fmt.Sprintf("hung=%d", hung), func(t *testing.T) {
				t.Parallel() // each has its own board and servers, and mostly waits
				lat := healthyLatency(t, dsn(t), hung, 40, 50*time.Millisecond)
				p50, p99, top := quantile(lat, 0.50), quantile(lat, 0.99), slices.Max(lat)
				t.Logf("%d hung endpoints: commit to arrival at the healthy endpoint over %d events: p50 %s, p99 %s, max %s",
					hung, len(lat), p50.Round(time.Millisecond), p99.Round(time.Millisecond), top.Round(time.Millisecond))
				goal := time.Second
				if raceDetector { // still half the 10 s a hung endpoint cost the others when the sender waited for its batch
					goal = 5 * time.Second
				}
				if p99 >= goal {
					t.Errorf("p99 %s with %d hung endpoints, want under %s", p99, hung, goal)
				}
			})
		}
	})
}

// healthyLatency runs the fan-out and the sender as serve runs them,
// with hung endpoints registered first (by other agents) and one healthy
// endpoint, posts a first prediction and waits for it, then posts events
// predictions every gap and returns each one's time from the call that
// writes it to its arrival at the healthy endpoint.
func healthyLatency(t *testing.T, dsn string, hung, events int, gap time.Duration) []time.Duration {
	e := newEnv(t, dsn, nil)
	ok := newArrivals(t)
	sec, err := signature.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	for i := range hung {
		ts := hungServer(t)
		if _, err := e.eps.CreateWebhook(e.ctx, webhooks.NewWebhook{AgentID: fmt.Sprintf("stuck-%d", i), URL: ts.URL + "/hook", Secret: sec.String()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.eps.CreateWebhook(e.ctx, webhooks.NewWebhook{AgentID: "healthy", URL: ok.ts.URL + "/hook", Secret: sec.String()}); err != nil {
		t.Fatal(err)
	}
	roots := ok.ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs // every httptest TLS server has this certificate
	snd := &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Log: slog.New(slog.DiscardHandler),
		Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, RootCAs: roots})}
	e.fan.Queued = snd.Kick
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { snd.Run(ctx) })
	wg.Go(func() { e.fan.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() }) // before the servers close

	// A first event, not measured, opens the database's connections and
	// leaves every hung endpoint with an attempt hanging.
	e.predict(t, "warm-up")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := ok.get("warm-up"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first event did not reach the healthy endpoint in 30 s")
		}
	}
	start := make(map[string]time.Time, events)
	for i := range events {
		title := fmt.Sprintf("Event %d", i)
		start[title] = time.Now()
		e.predict(t, title)
		time.Sleep(gap)
	}
	deadline := time.Now().Add(60 * time.Second)
	lat := make([]time.Duration, 0, events)
	for title, s := range start {
		for {
			if at, ok := ok.get(title); ok {
				lat = append(lat, at.Sub(s))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q not delivered to the healthy endpoint within 60 s", title)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return lat
}

// quantile is the q-quantile of d by the nearest rank.
func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// TestOneAttemptPerEndpoint: while the sender claims on as attempts run,
// each endpoint has at most one attempt in flight and gets its events in
// the log's order, and no more than Workers attempts run at once.
func TestOneAttemptPerEndpoint(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		e := newEnv(t, dsn(t), nil)
		const endpoints, events, workers = 6, 15, 4
		var (
			mu             sync.Mutex
			inFlight, peak int
			perEndpoint    = map[string]int{}
			order          = map[string][]int64{}
			failures       []string
		)
		ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var ev struct {
				ID int64 `json:"id"`
			}
			body, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(body, &ev)
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			perEndpoint[r.URL.Path]++
			if perEndpoint[r.URL.Path] > 1 {
				failures = append(failures, fmt.Sprintf("%s: two attempts at once", r.URL.Path))
			}
			order[r.URL.Path] = append(order[r.URL.Path], ev.ID)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			inFlight--
			perEndpoint[r.URL.Path]--
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(ts.Close)
		sec, _ := signature.NewSecret()
		for i := range endpoints {
			if _, err := e.eps.CreateWebhook(e.ctx, webhooks.NewWebhook{AgentID: fmt.Sprintf("agent-%d", i), URL: fmt.Sprintf("%s/hook/%d", ts.URL, i), Secret: sec.String()}); err != nil {
				t.Fatal(err)
			}
		}
		roots := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
		snd := &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Workers: workers, Log: slog.New(slog.DiscardHandler),
			Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, RootCAs: roots})}
		e.fan.Queued = snd.Kick
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { snd.Run(ctx) })
		wg.Go(func() { e.fan.Run(ctx) })
		defer func() { cancel(); wg.Wait() }()
		for i := range events {
			e.predict(t, fmt.Sprintf("Event %d", i))
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			n := 0
			for _, ids := range order {
				n += len(ids)
			}
			mu.Unlock()
			if n == endpoints*events {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d deliveries in 30 s", n, endpoints*events)
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, f := range failures {
			t.Error(f)
		}
		if peak > workers {
			t.Errorf("%d attempts at once, want at most %d", peak, workers)
		}
		for path, ids := range order {
			if !slices.IsSorted(ids) || len(ids) != events {
				t.Errorf("%s got event ids %v, want %d in increasing order", path, ids, events)
			}
		}
		t.Logf("at most %d attempts at once (Workers %d)", peak, workers)
	})
}
