package board_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/board/boardtest"
	"github.com/predictions-md/predictions/internal/database/databasetest"
)

// pgEnv names a PostgreSQL server for the tests (boardtest.PostgresForm).
const pgEnv = boardtest.PostgresEnv

// backend opens fresh, empty stores of one kind.
type backend struct {
	name string
	// dsn names an empty database, for the tests of migrations.
	dsn func(tb testing.TB) string
	// migrated names a migrated, empty database: a copy of a template
	// board.Open made once (see boardtest), which spares every store test
	// the migrations.
	migrated func(tb testing.TB) string
}

// backends lists SQLite always and PostgreSQL when pgEnv is set; every store
// test runs against each.
func backends(t *testing.T) []backend {
	bs := []backend{{"sqlite", func(tb testing.TB) string {
		return filepath.Join(tb.TempDir(), "board.db")
	}, boardtest.SQLite}}
	if admin := os.Getenv(pgEnv); admin != "" {
		bs = append(bs, backend{"postgres", pgDatabase, func(tb testing.TB) string { return boardtest.Postgres(tb, admin) }})
	} else {
		pgSkipOnce.Do(func() { t.Logf("%s is not set: PostgreSQL store tests are skipped", pgEnv) })
	}
	return bs
}

var pgSkipOnce sync.Once

// forEachStore runs fn once per backend, as [boardtest.EachStore] does.
func forEachStore(t *testing.T, fn func(t *testing.T, open func(opt board.Options) *board.Store)) {
	t.Helper()
	boardtest.EachStore(t, fn)
}

func mustOpen(tb testing.TB, dsn string, opt board.Options) *board.Store {
	tb.Helper()
	return boardtest.Open(tb, dsn, opt)
}

// TestMain drops the PostgreSQL template of boardtest after the tests.
func TestMain(m *testing.M) {
	if err := boardtest.CheckPostgresEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(boardtest.Run(m))
}

// pgDatabase creates a database with a random name on the server named by
// pgEnv, drops it when the test ends, and returns its URL.
func pgDatabase(tb testing.TB) string {
	tb.Helper()
	return databasetest.NewPostgres(tb, os.Getenv(pgEnv))
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d and returns the new time.
func (c *clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

func ptr[T any](v T) *T { return &v }

// newPrediction is a valid input; tests change fields from there.
func newPrediction(agent string) board.NewPrediction {
	return board.NewPrediction{
		AgentID:    agent,
		Title:      "GPT-6 is released before 2027",
		Body:       "Release cadence suggests a launch within the year.",
		Confidence: ptr(0.7),
		Timeframe:  "by 2026-12-31",
		Domain:     "ai",
	}
}

func mustCreate(tb testing.TB, s *board.Store, np board.NewPrediction) board.Prediction {
	tb.Helper()
	p, err := s.CreatePrediction(context.Background(), np)
	if err != nil {
		tb.Fatalf("CreatePrediction(%+v): %v", np, err)
	}
	return p
}
