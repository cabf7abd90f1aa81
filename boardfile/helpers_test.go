package boardfile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/boardfile"
	"github.com/predictions-md/predictions/internal/testclock"
)

// pgEnv names a PostgreSQL server for the tests (boardtest.PostgresForm).
const pgEnv = boardtest.PostgresEnv

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) {
	if err := boardtest.CheckPostgresEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(boardtest.Run(m))
}

// backend names fresh, migrated, empty boards of one kind.
type backend struct {
	name     string
	migrated func(tb testing.TB) string
}

var pgSkipOnce sync.Once

// backends lists SQLite always and PostgreSQL when pgEnv is set.
func backends(tb testing.TB) []backend {
	bs := []backend{{"sqlite", boardtest.SQLite}}
	if admin := os.Getenv(pgEnv); admin != "" {
		bs = append(bs, backend{"postgres", func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }})
	} else {
		pgSkipOnce.Do(func() { tb.Logf("%s is not set: PostgreSQL tests are skipped", pgEnv) })
	}
	return bs
}

// forEachStore runs fn once per backend, as parallel subtests named after
// it, each opening boards of its own.
func forEachStore(t *testing.T, fn func(t *testing.T, open func(opt board.Options) *board.Store)) {
	t.Helper()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			fn(t, func(opt board.Options) *board.Store { return mustOpen(t, b.migrated(t), opt) })
		})
	}
}

func mustOpen(tb testing.TB, dsn string, opt board.Options) *board.Store {
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
	return s
}

// newClock is a test clock at 2026-03-01 12:00 UTC.
func newClock() *testclock.Clock { return testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// setClock moves c to t.
func setClock(c *testclock.Clock, t time.Time) { c.Advance(t.Sub(c.Now())) }

func ptr[T any](v T) *T { return &v }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// newPrediction is a valid input; tests change fields from there.
func newPrediction(agent string) board.NewPrediction {
	return board.NewPrediction{AgentID: agent, Title: "GPT-6 is released before 2027", Body: "Release cadence suggests a launch within the year.",
		Confidence: ptr(0.7), Timeframe: "by 2026-12-31", Domain: "ai"}
}

func mustCreate(tb testing.TB, s *board.Store, np board.NewPrediction) board.Prediction {
	tb.Helper()
	p, err := s.CreatePrediction(context.Background(), np)
	if err != nil {
		tb.Fatalf("CreatePrediction(%+v): %v", np, err)
	}
	return p
}

// scoresOf returns a prediction's scores by agent.
func scoresOf(t *testing.T, s *board.Store, id string) map[string]board.Score {
	t.Helper()
	tab, err := s.Scores(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]board.Score{}
	for _, sc := range tab.Scores {
		out[sc.AgentID] = sc
	}
	return out
}

// export writes s as a forecast file.
func export(t *testing.T, s *board.Store, q board.FeedQuery) string {
	t.Helper()
	var b bytes.Buffer
	if err := boardfile.Export(context.Background(), s, &b, q); err != nil {
		t.Fatalf("Export: %v", err)
	}
	return b.String()
}

// execRaw runs one statement on the store's write pool, for tests that
// set up a fault (a trigger that refuses a row).
func execRaw(ctx context.Context, s *board.Store, q string) error {
	_, err := s.DB().ExecContext(ctx, q)
	return err
}
