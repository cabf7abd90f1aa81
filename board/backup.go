package board

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// ErrPostgresBackup: [Store.Backup] was asked to copy a PostgreSQL board,
// which PostgreSQL's own pg_dump backs up (pg_dump -Fc, restored with
// pg_restore).
var ErrPostgresBackup = errors.New("board: a PostgreSQL board is backed up with pg_dump, not by the store")

// Backup writes a consistent copy of a SQLite board to path, a file that
// must not exist yet, while the board stays in use: SQLite's VACUUM INTO
// copies the database as one read transaction sees it, so the copy holds
// every write committed before the backup began and none after, whatever
// writes run meanwhile (they go on; in WAL mode the log grows until the
// backup ends). The copy is restored by opening it (serve --db path). It
// is written compacted, in rollback-journal mode (Open turns WAL back on),
// readable by its owner only (mode 0600).
//
// The copy is written to a temporary file beside path (path.<random>.tmp),
// synced, and only then linked to path, so path never names a partial
// copy: a backup that fails or is killed leaves at most the temporary
// file, which may be deleted. The full-text index of the copy is rebuilt,
// since VACUUM may renumber the rowids it is keyed on (SQLite's VACUUM
// documentation).
//
// Errors: a *[ValidationError] for an empty or unusable path; an error
// wrapping [fs.ErrExist] when path exists (a backup never replaces a
// file); [ErrPostgresBackup] on PostgreSQL; the file system's or the
// database's error otherwise.
func (s *Store) Backup(ctx context.Context, path string) (err error) {
	if s.pg {
		return fmt.Errorf("%w: run pg_dump -Fc on the database, and pg_restore to restore it", ErrPostgresBackup)
	}
	if path == "" {
		return invalid("path", "is empty", "name the new backup file, such as predictions-2026-03-01.db")
	}
	if err := database.CheckPlainPath(path); err != nil {
		return openError(err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("board: backup: %w", err)
	}
	if _, err := os.Lstat(abs); err == nil {
		return existsError(path)
	}
	dir := filepath.Dir(abs)
	f, err := os.CreateTemp(dir, filepath.Base(abs)+".*.tmp")
	if err != nil {
		return fmt.Errorf("board: backup: creating the file in %s: %w", dir, err)
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		return fmt.Errorf("board: backup: %w", err)
	}
	defer func() {
		if err != nil {
			// A rollback journal is left only by a rebuild that failed.
			os.Remove(tmp + "-journal")
			os.Remove(tmp)
		}
	}()
	if err := s.vacuumInto(ctx, tmp); err != nil {
		return err
	}
	if err := rebuildSearch(ctx, tmp); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("board: backup: %w", err)
	}
	return publish(tmp, abs, path)
}

// vacuumInto runs VACUUM INTO tmp (an empty file, which SQLite accepts)
// on a connection of the read pool, so the writes queue behind nothing:
// in WAL mode the copy is one read transaction. The read pool's
// connections are query_only, which refuses VACUUM INTO, so the
// connection lifts it and is then discarded rather than returned to the
// pool; the pool opens another with its usual settings.
func (s *Store) vacuumInto(ctx context.Context, tmp string) error {
	conn, err := s.read.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("board: backup: %w", Classify(err))
	}
	defer conn.Close()
	defer conn.Raw(func(any) error { return driver.ErrBadConn }) // never back to the pool
	if _, err := conn.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		return fmt.Errorf("board: backup: %w", Classify(err))
	}
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return fmt.Errorf("board: backup: VACUUM INTO %s: %w", tmp, Classify(err))
	}
	return nil
}

// rebuildSearch rebuilds the full-text index of the copy at path from its
// predictions (see migrateSearch): the index is keyed on the predictions'
// rowids, which VACUUM may change. A board from before the search
// migration has no index to rebuild.
func rebuildSearch(ctx context.Context, path string) error {
	db, err := sql.Open(sqliteshim.ShimName, path+"?_pragma=synchronous(FULL)")
	if err != nil {
		return fmt.Errorf("board: backup: opening the copy: %w", err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'predictions_fts'`).Scan(&n); err != nil {
		return fmt.Errorf("board: backup: reading the copy: %w", err)
	}
	if n > 0 {
		if _, err := db.ExecContext(ctx, `INSERT INTO predictions_fts (predictions_fts) VALUES ('rebuild')`); err != nil {
			return fmt.Errorf("board: backup: rebuilding the copy's search index: %w", err)
		}
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("board: backup: closing the copy: %w", err)
	}
	return nil
}

// publish gives the finished copy tmp its name abs (path as the caller
// wrote it, for messages). A hard link fails rather than replace a file
// that appeared meanwhile; where the file system has no hard links, a
// rename after a last check does the same but for that instant.
func publish(tmp, abs, path string) error {
	err := os.Link(tmp, abs)
	switch {
	case err == nil:
		os.Remove(tmp) // abs holds the copy; tmp is only a second name
	case errors.Is(err, fs.ErrExist):
		return existsError(path)
	default:
		if _, serr := os.Lstat(abs); serr == nil {
			return existsError(path)
		}
		if err := os.Rename(tmp, abs); err != nil {
			return fmt.Errorf("board: backup: %w", err)
		}
	}
	// Make the new name durable. A directory that cannot be synced (some
	// systems refuse) leaves the file complete under one name or the other.
	if d, err := os.Open(filepath.Dir(abs)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

func existsError(path string) error {
	return fmt.Errorf("board: backup: %s: %w; a backup never replaces a file: give a new name, or move the old file away", path, fs.ErrExist)
}

// syncFile flushes the file at path to stable storage.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
