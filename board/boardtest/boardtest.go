package boardtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/database/databasetest"
	"github.com/uptrace/bun/driver/pgdriver"
)

// sqliteTemplate is the file of a migrated, empty SQLite board.
var sqliteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "boardtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "board.db")
	s, err := board.Open(context.Background(), path, board.Options{})
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil { // the last connection checkpoints the WAL into the file
		return nil, err
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("%s-wal holds %d bytes after Close: the file alone is not the board", path, st.Size())
	}
	return os.ReadFile(path)
})

// SQLite returns the path of a new SQLite board in tb's temporary
// directory, migrated and empty.
func SQLite(tb testing.TB) string {
	tb.Helper()
	b, err := sqliteTemplate()
	if err != nil {
		tb.Fatalf("boardtest: making the SQLite template: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "board.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// templates are the PostgreSQL template databases, by server URL.
var (
	mu        sync.Mutex
	templates = map[string]*pgTemplate{}
)

type pgTemplate struct {
	once sync.Once
	name string
	err  error
}

// running is set by [Run]: only then is the template dropped after the tests.
var running atomic.Bool

// Run checks the test environment ([CheckPostgresEnv]; a malformed value
// is a message and exit code 2, before any test), runs the tests of m,
// then drops the PostgreSQL template databases that [Postgres] made, and
// returns the tests' exit code. A package whose tests call Postgres runs
// them through it:
//
//	func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) }
//
// Without it each run of the tests would leave a template database on
// the server.
func Run(m *testing.M) int {
	if err := CheckPostgresEnv(os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	running.Store(true)
	defer running.Store(false)
	code := m.Run()
	if err := dropTemplates(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Postgres returns the URL of a new database on the PostgreSQL server
// named by admin (a URL whose user may create databases), migrated and
// empty; it is dropped when tb's test ends. The test binary's TestMain
// must run the tests through [Run], which drops the template; Postgres
// fails the test if it does not.
func Postgres(tb testing.TB, admin string) string {
	tb.Helper()
	if !running.Load() {
		tb.Fatal("boardtest.Postgres needs the tests run through boardtest.Run, which drops the template database afterwards: " +
			"add func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) } to the package's tests")
	}
	mu.Lock()
	t := templates[admin]
	if t == nil {
		t = &pgTemplate{}
		templates[admin] = t
	}
	mu.Unlock()
	t.once.Do(func() { t.name, t.err = makeTemplate(admin) })
	if t.err != nil {
		tb.Fatalf("boardtest: making the PostgreSQL template: %v", t.err)
	}
	name := databasetest.NewName("test")
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	ctx := context.Background()
	err := createFrom(ctx, db, name, t.name)
	if err != nil {
		db.Close()
		tb.Fatalf("boardtest: creating a test database: %v", err)
	}
	tb.Cleanup(func() { // registered before the store's Close, so it runs after it
		defer db.Close()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("boardtest: dropping %s: %v", name, err)
		}
	})
	return withDatabase(admin, name)
}

// makeTemplate creates and migrates a template database on admin.
func makeTemplate(admin string) (string, error) {
	name := databasetest.NewName("template")
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	s, err := board.Open(ctx, withDatabase(admin, name), board.Options{})
	if err == nil {
		err = s.Close()
	}
	if err != nil {
		_, _ = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return "", err
	}
	return name, nil
}

// createFrom creates database name as a copy of template. PostgreSQL
// refuses while a session is still connected to the template; the
// store's sessions end just after it closes, so it tries again a while.
func createFrom(ctx context.Context, db *sql.DB, name, template string) error {
	var err error
	for range 50 {
		if _, err = db.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE "+template); err == nil || !strings.Contains(err.Error(), "being accessed by other users") {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// dropTemplates drops the PostgreSQL templates; the SQLite template is
// only ever in memory.
func dropTemplates() error {
	mu.Lock()
	defer mu.Unlock()
	var errs []error
	for admin, t := range templates {
		if t.name == "" {
			continue
		}
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
		if _, err := db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+t.name+" WITH (FORCE)"); err != nil {
			errs = append(errs, fmt.Errorf("boardtest: dropping the template database %s: %w", t.name, err))
		}
		db.Close()
	}
	templates = map[string]*pgTemplate{}
	return errors.Join(errs...)
}

func withDatabase(admin, name string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + name
	return u.String()
}

// PostgresEnv is the environment variable that names the PostgreSQL
// server of the tests; unset, their PostgreSQL half is skipped.
const PostgresEnv = databasetest.PostgresEnv

// PostgresForm is the form PostgresEnv takes ([databasetest.PostgresForm]).
const PostgresForm = databasetest.PostgresForm

// CheckPostgresEnv is [databasetest.CheckPostgresEnv]: an error naming
// [PostgresForm] when [PostgresEnv] is set to anything but such a URL, or
// when [databasetest.PrefixEnv] is not a prefix of database names.
func CheckPostgresEnv(getenv func(string) string) error {
	return databasetest.CheckPostgresEnv(getenv)
}
