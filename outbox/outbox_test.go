package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/legacymailtest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/outbox"
)

// pgEnv names a PostgreSQL server for the tests, as in package board.
const pgEnv = "PREDICTIONS_TEST_POSTGRES"

// newClock is the tests' clock, at a fixed start.
func newClock() *testclock.Clock { return testclock.New(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)) }

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

// forEachDB runs fn on SQLite and, when pgEnv is set, on PostgreSQL, each
// with a migrated empty board whose database the outbox shares.
func forEachDB(t *testing.T, fn func(t *testing.T, s *board.Store)) {
	t.Helper()
	dsns := map[string]func(testing.TB) string{"sqlite": boardtest.SQLite}
	if admin := os.Getenv(pgEnv); admin != "" {
		dsns["postgres"] = func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }
	}
	for _, name := range []string{"sqlite", "postgres"} {
		dsn, ok := dsns[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			s, err := board.Open(context.Background(), dsn(t), board.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			fn(t, s)
		})
	}
}

func mustOpen(t *testing.T, s *board.Store, opt outbox.Options) *outbox.Outbox {
	t.Helper()
	o, err := outbox.Open(context.Background(), s.WriteDB(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func mustEnqueue(t *testing.T, o *outbox.Outbox, s *board.Store, items ...outbox.Item) []string {
	t.Helper()
	ids, err := o.Enqueue(context.Background(), s.WriteDB(), items...)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func mail(topic, to string) outbox.Item {
	return outbox.Item{Kind: outbox.Email, Topic: topic, Recipient: to, Payload: []byte("Subject: hi\r\n\r\nhi\r\n")}
}

func TestBackoff(t *testing.T) {
	for _, tt := range []struct {
		attempt int
		want    time.Duration
	}{{1, 30 * time.Second}, {2, time.Minute}, {3, 2 * time.Minute}, {7, 32 * time.Minute}, {8, time.Hour}, {50, time.Hour}, {0, 30 * time.Second}} {
		if got := outbox.Backoff(tt.attempt); got != tt.want {
			t.Errorf("Backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}

// TestJitter: a failure waits between half the backoff and all of it, as
// the random number says.
func TestJitter(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		ctx := context.Background()
		clk := newClock()
		for _, tt := range []struct {
			u    float64
			want time.Duration
		}{{0, 30 * time.Second}, {0.5, 22500 * time.Millisecond}, {0.999999, 15000015 * time.Microsecond}} {
			o := mustOpen(t, s, outbox.Options{Now: clk.Now, Rand: func() float64 { return tt.u }})
			mustEnqueue(t, o, s, mail("p", "ada@example.org"))
			m, err := o.Claim(ctx, outbox.Email, 1, time.Minute)
			if err != nil || len(m) != 1 {
				t.Fatalf("Claim = %v, %v", m, err)
			}
			retry, err := o.MarkFailed(ctx, m[0].ID, "421", false)
			if err != nil || retry.Sub(clk.Now()) != tt.want {
				t.Errorf("u = %v: MarkFailed retries after %v, %v; want %v", tt.u, retry.Sub(clk.Now()), err, tt.want)
			}
			if err := o.MarkSent(ctx, m[0].ID); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestDelivery: claims by kind, leases, failures with backoff, giving up,
// sending, the backlog, listing and pruning.
func TestDelivery(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		clk := newClock()
		ctx := context.Background()
		o := mustOpen(t, s, outbox.Options{Now: clk.Now, MaxAttempts: 3, Rand: func() float64 { return 0 }})
		ids := mustEnqueue(t, o, s, mail("p", "bob@example.org"), mail("p", "cy@example.org"),
			outbox.Item{Kind: outbox.Webhook, Topic: "p", Recipient: "https://example.org/hook", Payload: []byte(`{}`)},
			outbox.Item{Kind: outbox.Email, Topic: "p", Recipient: "dan@example.org", Failed: "no such address"})

		const lease = 5 * time.Minute
		claim := func(limit int) []outbox.Message {
			t.Helper()
			m, err := o.Claim(ctx, outbox.Email, limit, lease)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		first := claim(1)
		want := []outbox.Message{{ID: ids[0], Kind: outbox.Email, Topic: "p", Recipient: "bob@example.org",
			Payload: []byte("Subject: hi\r\n\r\nhi\r\n"), Attempts: 1}}
		if diff := cmp.Diff(want, first); diff != "" {
			t.Fatalf("first claim (-want +got):\n%s", diff)
		}
		second := claim(10)
		if len(second) != 1 || second[0].ID != ids[1] {
			t.Fatalf("second claim = %+v, want the other e-mail (not the webhook, not the failed one)", second)
		}
		if again := claim(10); len(again) != 0 {
			t.Errorf("claim while leased = %d rows, want 0", len(again))
		}
		if hooks, err := o.Claim(ctx, outbox.Webhook, 10, lease); err != nil || len(hooks) != 1 || hooks[0].ID != ids[2] {
			t.Errorf("webhook claim = %+v, %v; want the webhook row", hooks, err)
		}
		if err := o.MarkSent(ctx, first[0].ID); err != nil {
			t.Fatal(err)
		}
		// The second fails for a while, then succeeds.
		id := second[0].ID
		retry, err := o.MarkFailed(ctx, id, "421 try later", false)
		if err != nil || !retry.Equal(clk.Now().Add(30*time.Second)) {
			t.Errorf("MarkFailed = %v, %v; want now + 30s", retry, err)
		}
		if got := claim(10); len(got) != 0 {
			t.Errorf("claimed before the backoff ended: %+v", got)
		}
		clk.Advance(30 * time.Second)
		m := claim(10)
		if len(m) != 1 || m[0].ID != id || m[0].Attempts != 2 {
			t.Fatalf("claim after backoff = %+v", m)
		}
		if retry, _ := o.MarkFailed(ctx, id, "421 still down", false); !retry.Equal(clk.Now().Add(time.Minute)) {
			t.Errorf("second backoff until %v, want now + 1m", retry)
		}
		// A lease that ends without a report makes the row due again.
		clk.Advance(time.Minute)
		if m := claim(10); len(m) != 1 || m[0].Attempts != 3 {
			t.Fatalf("claim = %+v, want attempt 3", m)
		}
		clk.Advance(lease)
		m = claim(10)
		if len(m) != 1 || m[0].Attempts != 4 {
			t.Fatalf("claim after an expired lease = %+v, want attempt 4", m)
		}
		// MaxAttempts is 3: this failure gives up.
		if retry, err := o.MarkFailed(ctx, id, "421 down for good", false); err != nil || !retry.IsZero() {
			t.Errorf("MarkFailed after max attempts = %v, %v; want zero (given up)", retry, err)
		}
		rows, err := o.List(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]outbox.Entry{}
		for _, r := range rows {
			byID[r.ID] = r
		}
		if r := byID[first[0].ID]; r.Status != outbox.Sent || r.SentAt == nil || r.NextAttemptAt != nil {
			t.Errorf("sent row = %+v", r)
		}
		if r := byID[id]; r.Status != outbox.Failed || r.LastError != "421 down for good" || r.Attempts != 4 || r.NextAttemptAt != nil {
			t.Errorf("given-up row = %+v", r)
		}
		if r := byID[ids[3]]; r.Status != outbox.Failed || r.LastError != "no such address" || r.Attempts != 0 {
			t.Errorf("row enqueued failed = %+v", r)
		}
		if n, _ := o.Backlog(ctx); n != 1 { // the webhook, claimed and not reported
			t.Errorf("backlog = %d, want 1", n)
		}

		// A permanent failure gives up at once.
		clk.Advance(time.Second)
		mustEnqueue(t, o, s, mail("q", "bob@example.org"), mail("q", "cy@example.org"))
		if n, _ := o.Backlog(ctx); n != 3 {
			t.Errorf("backlog = %d, want 3", n)
		}
		m = claim(10)
		if retry, _ := o.MarkFailed(ctx, m[0].ID, "550 no such user", true); !retry.IsZero() {
			t.Errorf("permanent failure retries at %v", retry)
		}
		if n, _ := o.Backlog(ctx); n != 2 {
			t.Errorf("backlog = %d, want 2", n)
		}
		if _, err := o.MarkFailed(ctx, "nope", "x", false); !errors.Is(err, outbox.ErrNotFound) {
			t.Errorf("MarkFailed(unknown) = %v", err)
		}
		if err := o.MarkSent(ctx, "nope"); !errors.Is(err, outbox.ErrNotFound) {
			t.Errorf("MarkSent(unknown) = %v", err)
		}

		// Pruning deletes sent rows only.
		n, err := o.Prune(ctx, clk.Now().Add(time.Hour))
		if err != nil || n != 1 {
			t.Errorf("Prune = %d, %v; want 1", n, err)
		}
		if rows, _ := o.List(ctx, "p"); len(rows) != 3 {
			t.Errorf("after pruning: %d rows of p, want 3 (failed twice, webhook)", len(rows))
		}
		if rows, _ := o.List(ctx, "q"); len(rows) != 2 {
			t.Errorf("after pruning: %d rows of q, want 2", len(rows))
		}
	})
}

// TestClaimConcurrent: senders claiming at once (replicas on PostgreSQL)
// never get the same row twice.
func TestClaimConcurrent(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		o := mustOpen(t, s, outbox.Options{})
		ctx := context.Background()
		const want = 55
		for i := range want {
			mustEnqueue(t, o, s, mail("p", fmt.Sprintf("a%d@example.org", i)))
		}
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					m, err := o.Claim(ctx, outbox.Email, 3, time.Hour)
					if err != nil {
						t.Error(err)
						return
					}
					if len(m) == 0 {
						return
					}
					for _, x := range m {
						mu.Lock()
						seen[x.ID]++
						mu.Unlock()
						if err := o.MarkSent(ctx, x.ID); err != nil {
							t.Error(err)
						}
					}
				}
			})
		}
		wg.Wait()
		if len(seen) != want {
			t.Errorf("%d rows claimed, want %d", len(seen), want)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("row %s claimed %d times", id, n)
			}
		}
	})
}

// TestLateFailureReport: a sender's failure report that comes after the
// row stopped being pending changes nothing. Two ways to get there: the
// sender's lease ended and another sender claimed the row and sent it (a
// replica that stalled), or the row was cancelled while in flight (its
// address unsubscribed). The report must not make a sent row pending
// again (sent twice), nor a cancelled one (sent after the unsubscribe).
func TestLateFailureReport(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		clk := newClock()
		o := mustOpen(t, s, outbox.Options{Now: clk.Now})
		ctx := context.Background()
		mustEnqueue(t, o, s, mail("p", "bob@example.org"))
		const lease = 30 * time.Second
		claim := func() []outbox.Message {
			t.Helper()
			m, err := o.Claim(ctx, outbox.Email, 10, lease)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		status := func(topic string) []string {
			t.Helper()
			rows, err := o.List(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rows {
				out = append(out, string(r.Status)+": "+r.LastError)
			}
			return out
		}

		first := claim()
		if len(first) != 1 {
			t.Fatalf("first claim = %d rows, want 1", len(first))
		}
		clk.Advance(lease + time.Second)
		second := claim()
		if len(second) != 1 || second[0].ID != first[0].ID || second[0].Attempts != 2 {
			t.Fatalf("claim after the lease = %+v, want the same row, attempt 2", second)
		}
		if err := o.MarkSent(ctx, second[0].ID); err != nil {
			t.Fatal(err)
		}
		for _, permanent := range []bool{false, true} {
			if _, err := o.MarkFailed(ctx, first[0].ID, "421 timeout", permanent); !errors.Is(err, outbox.ErrNotPending) {
				t.Errorf("MarkFailed (permanent %t) of a row sent by another claim = %v, want ErrNotPending", permanent, err)
			}
		}
		clk.Advance(time.Hour)
		if m := claim(); len(m) != 0 {
			t.Errorf("the sent row was claimed again, attempt %d", m[0].Attempts)
		}
		if diff := cmp.Diff([]string{"sent: "}, status("p")); diff != "" {
			t.Errorf("after the late report (-want +got):\n%s", diff)
		}

		// Cancelled in flight, in a transaction (as an unsubscription
		// does); the failure report comes after.
		mustEnqueue(t, o, s, mail("q", "bob@example.org"), mail("q", "cy@example.org"))
		inFlight := claim()
		if len(inFlight) != 2 {
			t.Fatalf("claim = %d rows, want 2", len(inFlight))
		}
		tx, err := s.WriteDB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := o.Cancel(ctx, tx, outbox.Email, []string{"bob@example.org", "BOB@example.org"}, "the address unsubscribed"); err != nil || n != 1 {
			t.Errorf("Cancel = %d, %v; want 1", n, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, m := range inFlight {
			_, err := o.MarkFailed(ctx, m.ID, "421 timeout", false)
			if wantErr := m.Recipient == "bob@example.org"; errors.Is(err, outbox.ErrNotPending) != wantErr {
				t.Errorf("MarkFailed of the row to %s = %v, want ErrNotPending %t", m.Recipient, err, wantErr)
			}
		}
		clk.Advance(time.Hour)
		if m := claim(); len(m) != 1 || m[0].Recipient != "cy@example.org" {
			t.Errorf("claim after the cancellation = %+v, want cy's row only", m)
		}
		if n, err := o.Cancel(ctx, s.WriteDB(), outbox.Email, nil, "x"); err != nil || n != 0 {
			t.Errorf("Cancel(no recipients) = %d, %v", n, err)
		}
		if _, err := o.MarkFailed(ctx, "nope", "x", false); !errors.Is(err, outbox.ErrNotFound) {
			t.Errorf("MarkFailed(unknown) = %v, want ErrNotFound", err)
		}
	})
}

// TestRollback: rows enqueued in a transaction that rolls back are not
// stored, so that a change refused after its deliveries were enqueued
// delivers nothing.
func TestRollback(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		o := mustOpen(t, s, outbox.Options{})
		ctx := context.Background()
		tx, err := s.WriteDB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Enqueue(ctx, tx, mail("p", "bob@example.org")); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if n, err := o.Backlog(ctx); err != nil || n != 0 {
			t.Errorf("Backlog after a rollback = %d, %v; want 0", n, err)
		}
	})
}

// TestUnavailable: the outbox's writes classify their errors as the
// board's do: on a closed database a claim, a report, a renewal and a
// prune answer board.ErrUnavailable.
func TestUnavailable(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		o := mustOpen(t, s, outbox.Options{})
		ctx := context.Background()
		mustEnqueue(t, o, s, mail("p", "bob@example.org"))
		msgs, err := o.Claim(ctx, outbox.Email, 1, time.Minute)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("Claim = %v, %v", msgs, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		_, claim := o.Claim(ctx, outbox.Email, 1, time.Minute)
		_, renew := o.Renew(ctx, msgs, time.Minute)
		_, failed := o.MarkFailed(ctx, msgs[0].ID, "refused", false)
		_, prune := o.Prune(ctx, time.Now())
		for name, err := range map[string]error{"Claim": claim, "Renew": renew, "MarkSent": o.MarkSent(ctx, msgs[0].ID),
			"MarkFailed": failed, "Prune": prune} {
			if !errors.Is(err, board.ErrUnavailable) {
				t.Errorf("%s on a closed database = %v, want board.ErrUnavailable", name, err)
			}
		}
	})
}

// TestHeartbeat: a held row's lease is renewed while the sender works, so
// no other sender claims it; a released one is not.
func TestHeartbeat(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		o := mustOpen(t, s, outbox.Options{})
		ctx := context.Background()
		mustEnqueue(t, o, s, mail("p", "bob@example.org"), mail("p", "cy@example.org"))
		const lease = 300 * time.Millisecond
		held, err := o.Claim(ctx, outbox.Email, 10, lease)
		if err != nil || len(held) != 2 {
			t.Fatalf("Claim = %v, %v", held, err)
		}
		hb := outbox.StartHeartbeat(ctx, o, lease, nil)
		hb.Hold(held)
		hb.Release(held[1].ID)
		time.Sleep(3 * lease)
		got, err := o.Claim(ctx, outbox.Email, 10, time.Hour)
		hb.Stop()
		if err != nil || len(got) != 1 || got[0].ID != held[1].ID {
			t.Errorf("claim by another sender after 3 leases = %+v, %v; want the released row only", got, err)
		}
	})
}

// TestUpgrade opens the outbox on a board made before the outbox had a
// package of its own (its e-mail schema as the board's migrations made
// it), whose e-mail outbox (a notification and a confirmation pending,
// one sent, one given up) moves into the outbox's table: the pending
// rows are delivered, the others kept as they were.
func TestUpgrade(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		ctx := context.Background()
		c := 0.7
		p, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "ada", Title: "Rain in Paris", Body: "Tomorrow.",
			Confidence: &c, Timeframe: "2027", Domain: "Science"})
		if err != nil {
			t.Fatal(err)
		}
		if err := legacymailtest.Make(ctx, s.WriteDB(), legacymailtest.OptIn); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
		for _, r := range []struct {
			id, kind, status string
			pid              any
			next             any
		}{
			{"m1", "notification", "pending", p.ID, at},
			{"m2", "confirmation", "pending", nil, at},
			{"m3", "notification", "sent", p.ID, nil},
			{"m4", "notification", "failed", p.ID, nil},
		} {
			if _, err := s.WriteDB().ExecContext(ctx, `INSERT INTO outbox (id, kind, prediction_id, recipient, message, status, attempts, next_attempt_at, created_at, last_error)
	VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`, r.id, r.kind, r.pid, r.id+"@example.org", []byte("Subject: "+r.id+"\r\n\r\n"), r.status, r.next, at, "was "+r.status); err != nil {
				t.Fatal(err)
			}
		}
		o := mustOpen(t, s, outbox.Options{Now: func() time.Time { return at.Add(time.Hour) }})
		rows, err := o.List(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%s %s %s %s %d %q", r.ID, r.Kind, r.Recipient, r.Status, r.Attempts, r.LastError))
		}
		want := []string{
			`m1 email m1@example.org pending 1 "was pending"`,
			`m3 email m3@example.org sent 1 "was sent"`,
			`m4 email m4@example.org failed 1 "was failed"`,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the board's rows after the upgrade (-want +got):\n%s", diff)
		}
		msgs, err := o.Claim(ctx, outbox.Email, 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		claimed := map[string]string{}
		for _, m := range msgs {
			claimed[m.ID] = string(m.Payload)
		}
		if diff := cmp.Diff(map[string]string{"m1": "Subject: m1\r\n\r\n", "m2": "Subject: m2\r\n\r\n"}, claimed); diff != "" {
			t.Errorf("pending rows claimed after the upgrade (-want +got):\n%s", diff)
		}
		// Opening again (another replica, a restart) changes nothing.
		if _, err := outbox.Open(ctx, s.WriteDB(), outbox.Options{}); err != nil {
			t.Fatal(err)
		}
		if n, err := o.Backlog(ctx); err != nil || n != 2 {
			t.Errorf("Backlog after reopening = %d, %v; want 2", n, err)
		}
	})
}

// TestUpgradeRace: two processes (two stores, two write pools) opening
// the outbox of one SQLite board at once both succeed, and the board's
// rows move once: the board's write pool takes the write lock at BEGIN
// (_txlock=immediate), so the second migration reads what the first did.
func TestUpgradeRace(t *testing.T) {
	ctx := context.Background()
	path := boardtest.SQLite(t)
	var stores [2]*board.Store
	for i := range stores {
		s, err := board.Open(ctx, path, board.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	if err := legacymailtest.Make(ctx, stores[0].WriteDB(), legacymailtest.OptIn); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	if _, err := stores[0].WriteDB().ExecContext(ctx, `INSERT INTO outbox (id, kind, recipient, message, status, next_attempt_at, created_at)
	VALUES ('m1', 'confirmation', 'ada@example.org', ?, 'pending', ?, ?)`, []byte("x"), at, at); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var boxes [2]*outbox.Outbox
	var errs [2]error
	for i := range stores {
		wg.Go(func() { boxes[i], errs[i] = outbox.Open(ctx, stores[i].WriteDB(), outbox.Options{}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
	}
	rows, err := boxes[1].List(ctx, "")
	if err != nil || len(rows) != 1 || rows[0].ID != "m1" || rows[0].Status != outbox.Pending {
		t.Errorf("rows after two opens at once = %+v, %v; want m1 pending", rows, err)
	}
}

// TestInOrder: webhooks are claimed one per recipient, its earliest
// pending row by seq then id; a head leased or backing off holds back its
// recipient's later rows and no other recipient's; e-mail is claimed as
// before, a message backing off holding up none.
func TestInOrder(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *board.Store) {
		clk := newClock()
		ctx := context.Background()
		o := mustOpen(t, s, outbox.Options{Now: clk.Now, Rand: func() float64 { return 0 }})
		hook := func(to string, seq int64) outbox.Item {
			return outbox.Item{Kind: outbox.Webhook, Recipient: to, Seq: seq, Payload: []byte(`{}`)}
		}
		// a's seq 2 is enqueued before its seq 1: seq orders, not id.
		ids := mustEnqueue(t, o, s, hook("a", 2), hook("a", 1), hook("b", 1), hook("a", 3), hook("b", 2),
			mail("", "x@example.org"), mail("", "x@example.org"))
		claim := func(kind outbox.Kind) []string {
			t.Helper()
			msgs, err := o.Claim(ctx, kind, 10, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, m.ID)
			}
			slices.Sort(got)
			return got
		}
		sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
		steps := []struct {
			name string
			do   func()
			kind outbox.Kind
			want []string
		}{
			{"the heads", nil, outbox.Webhook, sorted(ids[1], ids[2])},
			{"heads leased: nothing", nil, outbox.Webhook, nil},
			{"a's head fails, b's is sent: b's next", func() {
				if _, err := o.MarkFailed(ctx, ids[1], "down", false); err != nil {
					t.Fatal(err)
				}
				if err := o.MarkSent(ctx, ids[2]); err != nil {
					t.Fatal(err)
				}
			}, outbox.Webhook, []string{ids[4]}},
			{"a's head due again: only it", func() {
				if err := o.MarkSent(ctx, ids[4]); err != nil {
					t.Fatal(err)
				}
				clk.Advance(outbox.Backoff(1))
			}, outbox.Webhook, []string{ids[1]}},
			{"a's head given up: its next", func() {
				if _, err := o.MarkFailed(ctx, ids[1], "refused", true); err != nil {
					t.Fatal(err)
				}
			}, outbox.Webhook, []string{ids[0]}},
			{"e-mail: both, one recipient", nil, outbox.Email, sorted(ids[5], ids[6])},
			{"e-mail backing off holds up none", func() {
				clk.Advance(time.Minute)
				if _, err := o.MarkFailed(ctx, ids[5], "down", false); err != nil {
					t.Fatal(err)
				}
			}, outbox.Email, []string{ids[6]}},
		}
		for _, st := range steps {
			if st.do != nil {
				st.do()
			}
			if diff := cmp.Diff(st.want, claim(st.kind)); diff != "" {
				t.Errorf("%s: claim (-want +got):\n%s", st.name, diff)
			}
		}
	})
}
