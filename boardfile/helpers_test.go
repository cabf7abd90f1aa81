package boardfile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
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
func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }

// forEachStore runs fn once per backend ([boardtest.EachStore]).
var forEachStore = boardtest.EachStore

// mustOpen opens the board at dsn for the test ([boardtest.Open]).
var mustOpen = boardtest.Open

// newClock is a test clock at 2026-03-01 12:00 UTC.
func newClock() *testclock.Clock { return testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// setClock moves c to t.
func setClock(c *testclock.Clock, t time.Time) { c.Advance(t.Sub(c.Now())) }

func ptr[T any](v T) *T { return &v }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

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
	_, err := s.WriteDB().ExecContext(ctx, q)
	return err
}
