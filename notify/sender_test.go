package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/smtptest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
)

// The outbox is a sender's outbox, the mailbox its registrations and the
// mail a board's and a mailbox's recorder.
var (
	_ notify.Outbox        = (*outbox.Outbox)(nil)
	_ notify.Registrations = (*mailbox.Box)(nil)
	_ board.Recorder       = (*notify.Mail)(nil)
	_ mailbox.Recorder     = (*notify.Mail)(nil)
	_ mailbox.Recorder     = notify.Cancel{}
)

// boardFrom is the board's address in the tests.
const boardFrom = "board@predictions.example.org"

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestParseURL(t *testing.T) {
	tests := []struct {
		in   string
		want notify.SMTP
	}{
		{"smtp://mail.example.org", notify.SMTP{Host: "mail.example.org", Port: "587"}},
		{"SMTP://mail.example.org:25/", notify.SMTP{Host: "mail.example.org", Port: "25"}},
		{"smtps://u%40x:p%3Aw@mail.example.org?from=board@example.org",
			notify.SMTP{Host: "mail.example.org", Port: "465", ImplicitTLS: true, Username: "u@x", Password: "p:w",
				From: mail.Address{Address: "board@example.org"}}},
		{"smtp://user@[::1]:2525", notify.SMTP{Host: "::1", Port: "2525", Username: "user"}},
	}
	for _, tt := range tests {
		got, err := notify.ParseURL(tt.in)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseURL(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, in := range []string{
		"", "mail.example.org", "http://mail.example.org", "smtp://", "smtp:mail.example.org",
		"smtp://mail.example.org/path", "smtp://mail.example.org?form=x", "smtp://mail.example.org?from=nobody",
		"smtp://mail.example.org?from=a@b.org&from=c@d.org", "smtp://:secret@mail.example.org", "smtp://a:b@%zz",
	} {
		_, err := notify.ParseURL(in)
		if !errors.Is(err, notify.ErrConfig) {
			t.Errorf("ParseURL(%q) = %v, want ErrConfig", in, err)
		}
		if err != nil && strings.Contains(in, "secret") && strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseURL(%q): the error shows the password: %v", in, err)
		}
	}
	if s := (notify.SMTP{Host: "h", Port: "1", Username: "u", Password: "pw"}).String(); s != "smtp://u@h:1" {
		t.Errorf("String() = %q, want the password left out", s)
	}
}

// fixture is a store with mail on, two agents with addresses, and one
// prediction by ada, whose notification to bob waits in the outbox.
type fixture struct {
	store *board.Store
	mail  *mailbox.Box
	box   *outbox.Outbox
	clk   *testclock.Clock
	pred  board.Prediction
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := testclock.New(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	s, err := board.Open(context.Background(), boardtest.SQLite(t), board.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	box, mb := withMail(t, s, clk.Now)
	return &fixture{store: s, mail: mb, box: box, clk: clk, pred: seedOne(t, s, mb, box)}
}

// withMail opens the outbox in the store's database (backoff without
// jitter) and the mailbox, and makes the e-mail recorder the store's and
// the mailbox's, as serve does.
func withMail(t *testing.T, s *board.Store, now func() time.Time) (*outbox.Outbox, *mailbox.Box) {
	t.Helper()
	box, err := outbox.Open(context.Background(), s.WriteDB(), outbox.Options{Now: now, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	from, base := mail.Address{Name: "Board", Address: boardFrom}, "https://predictions.example.org"
	m, err := notify.NewMail(box, from, base)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := mailbox.Open(context.Background(), s, mailbox.Options{From: from, BaseURL: base, Recorder: m})
	if err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(m)
	return box, mb
}

// seedOne registers ada and bob and posts ada's prediction, whose
// notification to bob waits in the outbox.
func seedOne(t *testing.T, s *board.Store, mb *mailbox.Box, box *outbox.Outbox) board.Prediction {
	t.Helper()
	ctx := context.Background()
	for id, addr := range map[string]string{"ada": "Ada <ada@example.org>", "bob": "Bob <bob@example.org>"} {
		if _, err := mb.Register(ctx, mailbox.Registration{AgentID: id, Email: addr, Subscribe: json.RawMessage(`"all"`)}); err != nil {
			t.Fatal(err)
		}
	}
	// Each confirms with the link of its confirmation message.
	msgs, err := box.Claim(ctx, outbox.Email, 10, time.Minute)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("confirmation messages: %d, %v", len(msgs), err)
	}
	for _, m := range msgs {
		pm, err := email.Parse(bytes.NewReader(m.Payload))
		if err != nil {
			t.Fatal(err)
		}
		link := regexp.MustCompile(`/api/agents/([^/]+)/email/confirm\?token=(\S+)`).FindStringSubmatch(pm.Text)
		if _, err := mb.ConfirmEmail(ctx, link[1], link[2]); err != nil {
			t.Fatal(err)
		}
		if err := box.MarkSent(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	c := 0.7
	p, err := s.CreatePrediction(ctx, board.NewPrediction{AgentID: "ada", Title: "Rain in Paris", Body: "Tomorrow.",
		Confidence: &c, Timeframe: "tomorrow", Domain: "Climate"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) row(t *testing.T) outbox.Entry {
	t.Helper()
	rows, err := f.box.List(context.Background(), f.pred.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d outbox rows, want 1", len(rows))
	}
	return rows[0]
}

func server(srv *smtptest.Server) notify.SMTP {
	host, port, _ := net.SplitHostPort(srv.Addr)
	return notify.SMTP{Host: host, Port: port, Timeout: 10 * time.Second}
}

func drain(t *testing.T, snd *notify.Sender, want notify.Result) {
	t.Helper()
	got, err := snd.Drain(context.Background())
	if err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if got != want {
		t.Errorf("Drain = %+v, want %+v", got, want)
	}
}

func TestSend(t *testing.T) {
	f := newFixture(t)
	srv := smtptest.Start(t, smtptest.Options{})
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet}
	drain(t, snd, notify.Result{Sent: 1})
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	got := map[string]any{"from": m.From, "to": m.To, "To": m.Header("To"), "Message-Id": m.Header("Message-Id")}
	want := map[string]any{"from": "board@predictions.example.org", "to": []string{"bob@example.org"},
		"To": `"Bob" <bob@example.org>`, "Message-Id": "<prediction." + f.pred.ID + "@predictions.example.org>"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	if r := f.row(t); r.Status != outbox.Sent || r.Attempts != 1 {
		t.Errorf("row = %+v, want sent after 1 attempt", r)
	}
	drain(t, snd, notify.Result{}) // nothing left
}

// TestOutage: a server refusing mail leaves the message pending with a
// backoff; once it accepts again the message is sent, once.
func TestOutage(t *testing.T) {
	f := newFixture(t)
	srv := smtptest.Start(t, smtptest.Options{})
	srv.Refuse(451, "local error, try again later")
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet}

	drain(t, snd, notify.Result{Retried: 1})
	r := f.row(t)
	wantNext := f.clk.Now().Add(outbox.RetryBase)
	if r.Status != outbox.Pending || r.Attempts != 1 || r.NextAttemptAt == nil || !r.NextAttemptAt.Equal(wantNext) ||
		!strings.Contains(r.LastError, "451") {
		t.Errorf("after a refusal: %+v; want pending, 1 attempt, next at %v, the 451 kept", r, wantNext)
	}
	if n, _ := f.box.Backlog(context.Background()); n != 1 {
		t.Errorf("backlog = %d, want 1", n)
	}
	drain(t, snd, notify.Result{}) // not due yet

	srv.Accept()
	f.clk.Advance(outbox.RetryBase)
	drain(t, snd, notify.Result{Sent: 1})
	drain(t, snd, notify.Result{})
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("the server got %d messages, want 1", n)
	}
	if r := f.row(t); r.Status != outbox.Sent || r.Attempts != 2 || r.LastError != "" {
		t.Errorf("after the outage: %+v; want sent after 2 attempts", r)
	}
}

func TestUnreachable(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	host, port, _ := net.SplitHostPort(addr)
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: notify.SMTP{Host: host, Port: port, Timeout: 5 * time.Second}, Log: quiet}
	drain(t, snd, notify.Result{Retried: 1})
	if r := f.row(t); r.Status != outbox.Pending || !strings.Contains(r.LastError, "connecting to smtp://"+addr) {
		t.Errorf("row = %+v", r)
	}
}

func TestPermanentRefusal(t *testing.T) {
	f := newFixture(t)
	srv := smtptest.Start(t, smtptest.Options{})
	srv.Refuse(550, "no such user")
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet}
	drain(t, snd, notify.Result{GaveUp: 1})
	if r := f.row(t); r.Status != outbox.Failed || !strings.Contains(r.LastError, "550") {
		t.Errorf("row = %+v, want failed with the 550", r)
	}
}

func TestStartTLSAndAuth(t *testing.T) {
	f := newFixture(t)
	srv := smtptest.Start(t, smtptest.Options{TLS: true, Username: "board", Password: "s3cret"})
	cfg := server(srv)
	cfg.Username, cfg.Password = "board", "wrong"
	cfg.TLSConfig = srv.ClientTLS()
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: cfg, Log: quiet}
	drain(t, snd, notify.Result{Retried: 1}) // a wrong password is retried: the operator fixes it
	if r := f.row(t); !strings.Contains(r.LastError, "AUTH") {
		t.Errorf("last error %q, want the AUTH failure", r.LastError)
	}
	snd.SMTP.Password = "s3cret"
	f.clk.Advance(outbox.RetryBase)
	drain(t, snd, notify.Result{Sent: 1})
	if m := srv.Messages(); len(m) != 1 || !m[0].TLS || m[0].User != "board" {
		t.Errorf("messages = %+v, want one over STARTTLS as board", m)
	}
}

// TestRun: Run sends what is due and returns when its context ends.
func TestRun(t *testing.T) {
	f := newFixture(t)
	srv := smtptest.Start(t, smtptest.Options{})
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet, Interval: 10 * time.Millisecond, Now: f.clk.Now}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		snd.Run(ctx)
		close(done)
	}()
	if m := srv.Wait(1, 30*time.Second); len(m) != 1 {
		t.Errorf("Run sent %d messages, want 1", len(m))
	}
	cancel()
	<-done
}

// TestLeaseHeartbeat: a sender working longer than its lease renews it,
// so that a second sender does not claim the message meanwhile; the
// message goes out once.
func TestLeaseHeartbeat(t *testing.T) {
	ctx := context.Background()
	s, err := board.Open(ctx, boardtest.SQLite(t), board.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f := &fixture{store: s}
	f.box, f.mail = withMail(t, s, nil)
	f.pred = seedOne(t, s, f.mail, f.box)
	const lease = 300 * time.Millisecond
	srv := smtptest.Start(t, smtptest.Options{Delay: 4 * lease})
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet, Lease: lease}
	done := make(chan notify.Result)
	go func() {
		res, err := snd.Drain(ctx)
		if err != nil {
			t.Errorf("Drain: %v", err)
		}
		done <- res
	}()
	// Two leases into the slow send, a second replica finds nothing due.
	time.Sleep(2 * lease)
	if got, err := f.box.Claim(ctx, outbox.Email, 10, lease); err != nil || len(got) != 0 {
		t.Errorf("second sender claimed %d messages (%v) while the first renewed its lease", len(got), err)
	}
	if res := <-done; res != (notify.Result{Sent: 1}) {
		t.Errorf("Drain = %+v, want 1 sent", res)
	}
	if r := f.row(t); r.Status != outbox.Sent || r.Attempts != 1 || len(srv.Messages()) != 1 {
		t.Errorf("row %s after %d attempts, %d messages; want sent once after 1 attempt", r.Status, r.Attempts, len(srv.Messages()))
	}
}

// TestDeadSenderLease: the messages a sender claimed and never reported
// (it died) are due again after DefaultLease, so another sender polling
// every DefaultInterval sends them within a minute; the first attempt is
// counted, and the mail server may get the message twice (at least once).
func TestDeadSenderLease(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if notify.DefaultLease+notify.DefaultInterval > time.Minute {
		t.Fatalf("DefaultLease %v + DefaultInterval %v is over a minute", notify.DefaultLease, notify.DefaultInterval)
	}
	claimed, err := f.box.Claim(ctx, outbox.Email, 10, notify.DefaultLease) // the sender that dies
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	srv := smtptest.Start(t, smtptest.Options{})
	snd := &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet}
	f.clk.Advance(notify.DefaultLease - time.Second)
	drain(t, snd, notify.Result{}) // still leased
	f.clk.Advance(time.Second)
	drain(t, snd, notify.Result{Sent: 1})
	if r := f.row(t); r.Status != outbox.Sent || r.Attempts != 2 {
		t.Errorf("row %s after %d attempts, want sent on the 2nd attempt", r.Status, r.Attempts)
	}
	// A renewal by the dead sender's stale claim changes nothing now.
	if n, err := f.box.Renew(ctx, claimed, notify.DefaultLease); err != nil || n != 0 {
		t.Errorf("Renew of a stale claim = %d, %v; want 0", n, err)
	}
}

// unsubscribing is an outbox whose recipient unsubscribes while a message
// is in flight: just before the sender reports the failed attempt.
type unsubscribing struct {
	*outbox.Outbox
	mail     *mailbox.Box
	msgs     map[string][]byte // id → message, as claimed
	reported int               // failures reported
}

func (u *unsubscribing) Claim(ctx context.Context, kind outbox.Kind, limit int, lease time.Duration) ([]outbox.Message, error) {
	msgs, err := u.Outbox.Claim(ctx, kind, limit, lease)
	for _, m := range msgs {
		u.msgs[m.ID] = m.Payload
	}
	return msgs, err
}

func (u *unsubscribing) MarkFailed(ctx context.Context, id, reason string, permanent bool) (time.Time, error) {
	u.reported++
	m, err := mail.ReadMessage(bytes.NewReader(u.msgs[id]))
	if err != nil {
		return time.Time{}, err
	}
	link := strings.Trim(m.Header.Get("List-Unsubscribe"), "<>")
	_, tok, _ := strings.Cut(link, "?token=")
	if _, err := u.mail.Unsubscribe(ctx, tok); err != nil {
		return time.Time{}, err
	}
	return u.Outbox.MarkFailed(ctx, id, reason, permanent)
}

// TestFailureAfterUnsubscribe: a message whose address unsubscribed while
// it was in flight is not retried when its attempt fails, and the sender
// goes on with the rest of its batch.
func TestFailureAfterUnsubscribe(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c := 0.2
	if _, err := f.store.CreatePrediction(ctx, board.NewPrediction{AgentID: "bob", Title: "Dry in Paris", Body: "Tomorrow.",
		Confidence: &c, Timeframe: "tomorrow", Domain: "Climate"}); err != nil { // to ada
		t.Fatal(err)
	}
	srv := smtptest.Start(t, smtptest.Options{})
	srv.Refuse(451, "try again later")
	out := &unsubscribing{Outbox: f.box, mail: f.mail, msgs: map[string][]byte{}}
	snd := &notify.Sender{Outbox: out, From: boardFrom, SMTP: server(srv), Log: quiet}
	drain(t, snd, notify.Result{}) // both addresses unsubscribed in flight: nothing to retry
	if r := f.row(t); r.Status != outbox.Failed || r.LastError != "the address unsubscribed" {
		t.Errorf("bob's row = %s %q, want failed: the address unsubscribed", r.Status, r.LastError)
	}
	srv.Accept()
	f.clk.Advance(time.Hour)
	drain(t, &notify.Sender{Outbox: f.box, From: boardFrom, SMTP: server(srv), Log: quiet}, notify.Result{})
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d messages went to addresses that unsubscribed", n)
	}
	if len(out.msgs) != 2 || out.reported != 2 {
		t.Errorf("the sender claimed %d messages and reported %d failures, want both of its batch", len(out.msgs), out.reported)
	}
}
