package webhooks_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/outbox"
	"github.com/predictions-md/predictions/webhooks"
	"github.com/predictions-md/predictions/webhooks/signature"
)

// delivery is one request a receiver got.
type delivery struct {
	ID       string
	Body     []byte
	Verified error
	Status   int
}

// receiver is an https endpoint that verifies each delivery with secret
// and answers with the next of statuses (200 once they run out).
type receiver struct {
	ts       *httptest.Server
	mu       sync.Mutex
	secret   signature.Secret
	statuses []int
	got      []delivery
	now      func() time.Time
	notify   chan struct{}
}

func newReceiver(t testing.TB, now func() time.Time, statuses ...int) *receiver {
	r := &receiver{statuses: statuses, now: now, notify: make(chan struct{}, 1000)}
	r.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.got = append(r.got, delivery{ID: req.Header.Get(signature.HeaderID), Body: body,
			Verified: signature.Verify(r.secret, req.Header, body, r.now()), Status: status})
		r.mu.Unlock()
		w.WriteHeader(status)
		r.notify <- struct{}{}
	}))
	t.Cleanup(r.ts.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// client trusts the receiver's certificate and reaches loopback.
func (r *receiver) client() *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(r.ts.Certificate())
	return webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, RootCAs: pool})
}

// env is a board with its endpoints, outbox, fan-out and sender on one
// clock.
type env struct {
	store  *board.Store
	eps    *webhooks.Store
	box    *outbox.Outbox
	fan    *webhooks.FanOut
	clock  *testclock.Clock
	ctx    context.Context
	sender *webhooks.Sender
}

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

func forEachDB(t *testing.T, fn func(t *testing.T, dsn func(testing.TB) string)) {
	dsns := map[string]func(testing.TB) string{"sqlite": boardtest.SQLite}
	if admin := os.Getenv("PREDICTIONS_TEST_POSTGRES"); admin != "" {
		dsns["postgres"] = func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }
	}
	for _, name := range []string{"sqlite", "postgres"} {
		if dsn, ok := dsns[name]; ok {
			t.Run(name, func(t *testing.T) { fn(t, dsn) })
		}
	}
}

func newEnv(t testing.TB, dsn string, c *testclock.Clock) *env {
	t.Helper()
	ctx := context.Background()
	var now func() time.Time
	if c != nil {
		now = c.Now
	}
	s, err := board.Open(ctx, dsn, board.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	box, err := outbox.Open(ctx, s.WriteDB(), outbox.Options{Now: now, RetryFor: map[outbox.Kind]time.Duration{outbox.Webhook: webhooks.RetryFor},
		Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	eps, err := webhooks.Open(ctx, s, webhooks.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return &env{store: s, eps: eps, box: box, fan: &webhooks.FanOut{Board: s, Endpoints: eps, Outbox: box, DB: s.WriteDB()}, clock: c, ctx: ctx}
}

func (e *env) hook(t testing.TB, r *receiver, agent string, types ...string) webhooks.Webhook {
	t.Helper()
	sec, err := signature.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if r.secret == nil {
		r.secret = sec
	} else {
		sec = r.secret
	}
	w, err := e.eps.CreateWebhook(e.ctx, webhooks.NewWebhook{AgentID: agent, URL: r.ts.URL + "/hook", Types: types, Secret: sec.String()})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (e *env) predict(t testing.TB, title string) board.Prediction {
	t.Helper()
	p := 0.6
	got, err := e.store.CreatePrediction(e.ctx, board.NewPrediction{AgentID: "poster", Title: title, Body: "It will happen.",
		Confidence: &p, Timeframe: "by 2027", Domain: "AI"})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (e *env) step(t *testing.T, want int) {
	t.Helper()
	n, err := e.fan.Step(e.ctx)
	if err != nil || n != want {
		t.Fatalf("Step = %d, %v, want %d", n, err, want)
	}
}

func (e *env) drain(t *testing.T, want webhooks.Result) {
	t.Helper()
	got, err := e.sender.Drain(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Drain (-want +got):\n%s", diff)
	}
}

// TestAtLeastOnce: a receiver that fails twice gets the event on the
// third attempt, each attempt signed with the same webhook-id; only the
// endpoints whose filters match, registered before the event, get it.
func TestAtLeastOnce(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		e := newEnv(t, dsn(t), c)
		r := newReceiver(t, c.Now, 500, 503)
		other := newReceiver(t, c.Now)
		e.sender = &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Client: r.client(), Now: c.Now}
		h := e.hook(t, r, "ada", "prediction.created")
		e.hook(t, other, "bob", "reply.created")
		e.predict(t, "Open weights lead")
		late := e.hook(t, other, "bob") // after the event: gets none of it
		e.step(t, 1)
		e.step(t, 0) // the position moved with the queueing: nothing twice
		e.drain(t, webhooks.Result{Retried: 1})
		c.Advance(outbox.Backoff(1))
		e.drain(t, webhooks.Result{Retried: 1})
		if w, _ := e.eps.WebhookByID(e.ctx, h.ID); w.FailingSince == nil {
			t.Error("failing_since not set after failures")
		}
		c.Advance(outbox.Backoff(2))
		e.drain(t, webhooks.Result{Sent: 1})
		if w, _ := e.eps.WebhookByID(e.ctx, h.ID); w.FailingSince != nil || w.Status != webhooks.WebhookActive {
			t.Errorf("after a success: failing_since %v, status %s", w.FailingSince, w.Status)
		}

		page, err := e.store.Events(e.ctx, board.EventQuery{})
		if err != nil || len(page.Events) != 1 {
			t.Fatalf("Events = %v, %v", page, err)
		}
		want, _ := json.Marshal(page.Events[0])
		got := r.deliveries()
		if len(got) != 3 {
			t.Fatalf("%d deliveries, want 3", len(got))
		}
		for i, d := range got {
			if d.Verified != nil {
				t.Errorf("delivery %d does not verify: %v", i, d.Verified)
			}
			if d.ID != webhooks.MessageID(page.Events[0].ID, h.ID) {
				t.Errorf("delivery %d has webhook-id %q, want %q", i, d.ID, webhooks.MessageID(page.Events[0].ID, h.ID))
			}
			if string(d.Body) != string(want) {
				t.Errorf("delivery %d body %s, want the event %s", i, d.Body, want)
			}
		}
		if n := len(other.deliveries()); n != 0 {
			t.Errorf("the endpoints that did not match got %d deliveries", n)
		}
		_ = late
	})
}

// TestDisabledAfter24h: an endpoint that fails for 24 hours is disabled
// with the reason, its delivery given up, and gets nothing more.
func TestDisabledAfter24h(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		e := newEnv(t, dsn(t), c)
		statuses := make([]int, 100)
		for i := range statuses {
			statuses[i] = 500
		}
		r := newReceiver(t, c.Now, statuses...)
		e.sender = &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Client: r.client(), Now: c.Now}
		h := e.hook(t, r, "ada")
		p := e.predict(t, "Rain")
		e.step(t, 1)
		e.drain(t, webhooks.Result{Retried: 1})
		c.Advance(23 * time.Hour)
		e.drain(t, webhooks.Result{Retried: 1}) // 23 h: still retried
		c.Advance(2 * time.Hour)
		e.drain(t, webhooks.Result{GaveUp: 1, Disabled: 1})
		w, err := e.eps.WebhookByID(e.ctx, h.ID)
		if err != nil || w.Status != webhooks.WebhookDisabled || !strings.Contains(w.StatusReason, "answered 500") || w.DisabledAt == nil {
			t.Fatalf("endpoint after 25 h of failures: %+v, %v", w, err)
		}
		list, _ := e.eps.Webhooks(e.ctx, "ada")
		if len(list) != 1 || list[0].Status != webhooks.WebhookDisabled || list[0].StatusReason == "" {
			t.Errorf("listed: %+v", list)
		}
		rows, _ := e.box.List(e.ctx, p.ID)
		if len(rows) != 1 || rows[0].Status != outbox.Failed {
			t.Errorf("outbox rows: %+v", rows)
		}
		e.predict(t, "Snow")
		e.step(t, 0) // disabled: nothing queued
		if n := len(r.deliveries()); n != 3 {
			t.Errorf("%d deliveries, want 3", n)
		}
	})
}

// TestDeleted: a deleted endpoint gets nothing more, retries included.
func TestDeleted(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		e := newEnv(t, dsn(t), c)
		r := newReceiver(t, c.Now, 500)
		e.sender = &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Client: r.client(), Now: c.Now}
		h := e.hook(t, r, "ada")
		e.predict(t, "One")
		e.predict(t, "Two")
		e.step(t, 2)
		e.drain(t, webhooks.Result{Retried: 1}) // the first fails and holds back the second (in order)
		if err := e.eps.DeleteWebhook(e.ctx, "ada", h.ID); err != nil {
			t.Fatal(err)
		}
		e.predict(t, "Three")
		e.step(t, 0)
		c.Advance(time.Hour)
		e.drain(t, webhooks.Result{GaveUp: 2})
		if n := len(r.deliveries()); n != 1 {
			t.Errorf("%d deliveries, want 1 (none after the delete)", n)
		}
	})
}

// TestFanOutOnce: fan-outs running at once (replicas) queue each event
// once per endpoint.
func TestFanOutOnce(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		d := dsn(t)
		e := newEnv(t, d, nil)
		r := newReceiver(t, time.Now)
		e.hook(t, r, "ada")
		e.hook(t, r, "bob")
		const events = 30
		var wg sync.WaitGroup
		var sum atomic.Int64
		stop := make(chan struct{})
		for range 3 {
			replica := newEnv(t, d, nil)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						n, err := replica.fan.Step(replica.ctx)
						if err != nil {
							t.Error(err)
						}
						sum.Add(int64(n))
						return
					default:
					}
					n, err := replica.fan.Step(replica.ctx)
					if err != nil {
						t.Error(err)
						return
					}
					sum.Add(int64(n))
					time.Sleep(time.Millisecond)
				}
			}()
		}
		for i := range events {
			e.predict(t, fmt.Sprintf("Event %d", i))
		}
		close(stop)
		wg.Wait()
		if sum.Load() != 2*events {
			t.Errorf("queued %d deliveries, want %d", sum.Load(), 2*events)
		}
	})
}

// TestInOrderAfterOutage: an endpoint down for an hour (every attempt
// fails) while 20 events are written gets, once up, all 20 in event-id
// order, each attempt of an event with the same webhook-id, and no later
// event before the first is delivered; a healthy endpoint got each event
// at once meanwhile.
func TestInOrderAfterOutage(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		e := newEnv(t, dsn(t), c)
		down := make([]int, 1000) // far more than the attempts of an hour
		for i := range down {
			down[i] = http.StatusServiceUnavailable
		}
		r := newReceiver(t, c.Now, down...)
		ok := newReceiver(t, c.Now)
		pool := x509.NewCertPool()
		pool.AddCert(r.ts.Certificate())
		pool.AddCert(ok.ts.Certificate())
		e.sender = &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Now: c.Now,
			Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, RootCAs: pool})}
		h := e.hook(t, r, "ada")
		healthy := e.hook(t, ok, "bob")
		const events = 20
		for i := range events {
			e.predict(t, fmt.Sprintf("Event %d", i))
			e.step(t, 2)
			if _, err := e.sender.Drain(e.ctx); err != nil {
				t.Fatal(err)
			}
			if n := len(ok.deliveries()); n != i+1 {
				t.Fatalf("after event %d the healthy endpoint has %d deliveries, want %d", i, n, i+1)
			}
			c.Advance(3 * time.Minute) // 20 events over an hour
		}
		page, err := e.store.Events(e.ctx, board.EventQuery{})
		if err != nil || len(page.Events) != events {
			t.Fatalf("Events = %d, %v", len(page.Events), err)
		}
		failed := len(r.deliveries())
		if failed < 2 {
			t.Fatalf("%d attempts during the outage, want several", failed)
		}
		r.mu.Lock()
		r.statuses = nil // up
		r.mu.Unlock()
		c.Advance(outbox.RetryMax)
		e.drain(t, webhooks.Result{Sent: events})

		var want, wantOK, got, gotOK []string
		for _, ev := range page.Events {
			want = append(want, webhooks.MessageID(ev.ID, h.ID))
			wantOK = append(wantOK, webhooks.MessageID(ev.ID, healthy.ID))
		}
		all := r.deliveries()
		for i, d := range all {
			if d.Verified != nil {
				t.Errorf("delivery %d does not verify: %v", i, d.Verified)
			}
			if i < failed && d.ID != want[0] {
				t.Errorf("attempt %d during the outage has webhook-id %s, want the first event's %s", i, d.ID, want[0])
			}
			if d.Status == http.StatusOK {
				got = append(got, d.ID)
			}
		}
		for _, d := range ok.deliveries() {
			gotOK = append(gotOK, d.ID)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("delivered after the outage (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantOK, gotOK); diff != "" {
			t.Errorf("delivered to the healthy endpoint (-want +got):\n%s", diff)
		}
		t.Logf("%d failed attempts of the first event during the outage, then %d delivered in order", failed, len(got))
	})
}

// TestHungEndpoint: an endpoint that does not answer delays another
// endpoint's delivery by nothing: attempts run at once.
func TestHungEndpoint(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		e := newEnv(t, dsn(t), c)
		release := make(chan struct{})
		hung := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			<-release
		}))
		t.Cleanup(hung.Close)
		var once sync.Once
		unblock := func() { once.Do(func() { close(release) }) }
		t.Cleanup(unblock)
		ok := newReceiver(t, c.Now)
		pool := x509.NewCertPool()
		pool.AddCert(hung.Certificate())
		pool.AddCert(ok.ts.Certificate())
		e.sender = &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Now: c.Now,
			Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, RootCAs: pool, Timeout: time.Minute})}
		sec, _ := signature.NewSecret()
		if _, err := e.eps.CreateWebhook(e.ctx, webhooks.NewWebhook{AgentID: "ada", URL: hung.URL + "/hook", Secret: sec.String()}); err != nil {
			t.Fatal(err)
		}
		e.predict(t, "First") // the hung endpoint's row comes first in the batch
		e.step(t, 1)
		e.hook(t, ok, "bob")
		e.predict(t, "Second")
		e.step(t, 2)
		drained := make(chan error, 1)
		go func() { _, err := e.sender.Drain(e.ctx); drained <- err }()
		select {
		case <-ok.notify:
		case <-time.After(20 * time.Second):
			t.Fatal("the healthy endpoint got nothing while the other hung")
		}
		select {
		case err := <-drained:
			t.Fatalf("Drain returned (%v) while an endpoint hung", err)
		default:
		}
		unblock()
		if err := <-drained; err != nil {
			t.Fatal(err)
		}
	})
}

// TestDebateRepliesReachReplySubscribers: an endpoint that asks for
// reply.created gets every reply, the one that opens a debate and the
// one that joins it included, with the debate's id in the data; one that
// asks for debate.entry gets those two only.
func TestDebateRepliesReachReplySubscribers(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn func(testing.TB) string) {
		c := testclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
		e := newEnv(t, dsn(t), c)
		replies := newReceiver(t, c.Now)
		debates := newReceiver(t, c.Now)
		pool := x509.NewCertPool()
		pool.AddCert(replies.ts.Certificate())
		e.sender = &webhooks.Sender{Endpoints: e.eps, Outbox: e.box, Now: c.Now,
			Client: webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, RootCAs: pool})}
		e.hook(t, replies, "ada", string(board.EventReply))
		e.hook(t, debates, "bob", string(board.EventDebateEntry))
		p := e.predict(t, "Vendor C slips")
		reply := func(body, parent string) board.Reply {
			t.Helper()
			r, err := e.store.Reply(e.ctx, p.ID, board.NewReply{AgentID: "critic", Body: body, ParentID: parent})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		plain := reply("Vendor C shipped early last year.", "")
		opened := reply("[DEBATE] Will vendor C slip?", "")
		joined := reply("It will: its last two dates slipped.", opened.ID)
		e.step(t, 5)
		e.drain(t, webhooks.Result{Sent: 5})

		type got struct{ Type, ReplyID, DebateID string }
		read := func(r *receiver) []got {
			var out []got
			for _, d := range r.deliveries() {
				var ev struct {
					Type string `json:"type"`
					Data struct {
						ReplyID  string `json:"reply_id"`
						DebateID string `json:"debate_id"`
					} `json:"data"`
				}
				if err := json.Unmarshal(d.Body, &ev); err != nil {
					t.Fatal(err)
				}
				out = append(out, got{ev.Type, ev.Data.ReplyID, ev.Data.DebateID})
			}
			return out
		}
		want := []got{{"reply.created", plain.ID, ""}, {"reply.created", opened.ID, opened.ID}, {"reply.created", joined.ID, opened.ID}}
		if diff := cmp.Diff(want, read(replies)); diff != "" {
			t.Errorf("the reply.created subscriber got (-want +got):\n%s", diff)
		}
		want = []got{{"debate.entry", opened.ID, opened.ID}, {"debate.entry", joined.ID, opened.ID}}
		if diff := cmp.Diff(want, read(debates)); diff != "" {
			t.Errorf("the debate.entry subscriber got (-want +got):\n%s", diff)
		}
	})
}
