package board

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun/driver/sqliteshim"
)

// TestSQLiteFTS5 names the SQLite driver bun's sqliteshim chose for this
// build and checks that it has FTS5, which the feed's search (q) needs:
// modernc.org/sqlite (the default on linux, darwin and windows on amd64
// and arm64) has it; mattn/go-sqlite3 (-tags cgosqlite, or cgo on other
// platforms) has it only with -tags sqlite_fts5, and Open then fails with
// a message that says so.
func TestSQLiteFTS5(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "board.db"), Options{})
	if err != nil {
		t.Fatalf("Open with driver %s: %v", sqliteshim.DriverName(), err)
	}
	defer s.Close()
	var version string
	var fts5 int
	if err := s.read.QueryRowContext(ctx, `SELECT sqlite_version(), (SELECT COUNT(*) FROM pragma_compile_options WHERE compile_options = 'ENABLE_FTS5')`).Scan(&version, &fts5); err != nil {
		t.Fatal(err)
	}
	t.Logf("sqliteshim driver %s, SQLite %s, ENABLE_FTS5 %d", sqliteshim.DriverName(), version, fts5)
	if fts5 != 1 {
		t.Errorf("SQLite %s of driver %s lacks FTS5", version, sqliteshim.DriverName())
	}
}
