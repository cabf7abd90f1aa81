package mailbox_test

import (
	"context"
	"encoding/json"
	"net/mail"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/testclock"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/notify"
	"github.com/predictions-md/predictions/outbox"
)

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

// store is a board with its mailbox, as serve wires them.
type store struct {
	*board.Store
	*mailbox.Box
}

// databases names a migrated, empty board per database: SQLite always,
// PostgreSQL when boardtest.PostgresEnv is set.
func databases(t *testing.T) map[string]func(testing.TB) string {
	dbs := map[string]func(testing.TB) string{"sqlite": boardtest.SQLite}
	if admin := os.Getenv(boardtest.PostgresEnv); admin != "" {
		dbs["postgres"] = func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }
	} else {
		pgSkipOnce.Do(func() { t.Logf("%s is not set: PostgreSQL tests are skipped", boardtest.PostgresEnv) })
	}
	return dbs
}

var pgSkipOnce sync.Once

// forEachStore runs fn once per database, as parallel subtests, each
// with boards of its own; open opens one with its mailbox (mailOpts, no
// recorder).
func forEachStore(t *testing.T, fn func(t *testing.T, open func(opt board.Options) store)) {
	t.Helper()
	for name, dsn := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, func(opt board.Options) store { return mustOpen(t, dsn(t), opt) })
		})
	}
}

// mustOpen opens the board at dsn and its mailbox with mailOpts.
func mustOpen(tb testing.TB, dsn string, opt board.Options) store {
	tb.Helper()
	s, err := board.Open(context.Background(), dsn, opt)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	b, err := mailbox.Open(context.Background(), s, mailOpts())
	if err != nil {
		tb.Fatalf("mailbox.Open: %v", err)
	}
	return store{s, b}
}

// mailOpts are the e-mail options of the tests; the domain is the one of
// the email package's test messages.
func mailOpts() mailbox.Options {
	return mailbox.Options{
		From:    mail.Address{Name: "Predictions board", Address: "board@predictions.example.org"},
		BaseURL: "https://predictions.example.org",
	}
}

// openMail opens a store whose changes queue e-mail into an outbox in
// its database, as serve wires them.
func openMail(tb testing.TB, open func(board.Options) store, opt board.Options) (store, *outbox.Outbox) {
	tb.Helper()
	s := open(opt)
	box, err := outbox.Open(context.Background(), s.WriteDB(), outbox.Options{Now: opt.Now})
	if err != nil {
		tb.Fatal(err)
	}
	o := mailOpts()
	m, err := notify.NewMail(box, o.From, o.BaseURL)
	if err != nil {
		tb.Fatal(err)
	}
	s.Store.SetRecorder(m)
	s.Box.SetRecorder(m)
	return s, box
}

// mustRegister registers addr for agent, subscribed to all new
// predictions, and confirms it with the token of the confirmation message
// (or a fresh one when the store sends no mail).
func mustRegister(tb testing.TB, s store, agent, addr string) mailbox.Registered {
	tb.Helper()
	ctx := context.Background()
	r, err := s.Register(ctx, mailbox.Registration{AgentID: agent, Email: addr, Subscribe: json.RawMessage(`"all"`)})
	if err != nil {
		tb.Fatalf("Register(%s, %s): %v", agent, addr, err)
	}
	if r.Status == mailbox.AlreadyConfirmed {
		return r
	}
	tok, err := mailbox.ConfirmationToken(ctx, s.Box, r.Email)
	if err != nil {
		if tok, err = mailbox.ResetToken(ctx, s.Box, agent); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.ConfirmEmail(ctx, agent, tok); err != nil {
		tb.Fatalf("ConfirmEmail(%s): %v", agent, err)
	}
	if err := mailbox.DropConfirmations(ctx, s.Box); err != nil {
		tb.Fatal(err)
	}
	return r
}

func newClock() *testclock.Clock { return testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// mustCreate posts a valid prediction by agent.
func mustCreate(tb testing.TB, s store, agent string) board.Prediction {
	tb.Helper()
	p := 0.7
	np := board.NewPrediction{AgentID: agent, Title: "GPT-6 is released before 2027", Body: "Release cadence suggests a launch within the year.",
		Confidence: &p, Timeframe: "by 2026-12-31", Domain: "ai"}
	got, err := s.CreatePrediction(context.Background(), np)
	if err != nil {
		tb.Fatalf("CreatePrediction(%+v): %v", np, err)
	}
	return got
}

// checkCounters fails t for each counter of the board that disagrees with
// its rows.
func checkCounters(t *testing.T, s store) {
	t.Helper()
	bad, err := s.CounterMismatches(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}
