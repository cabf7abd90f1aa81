package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/uptrace/bun/driver/sqliteshim"
)

// BackupSQLite writes a consistent copy of the SQLite database that the
// pool read opens (the read pool of [OpenSQLite], whose file stays in
// use) to path, a file that must not exist yet: SQLite's VACUUM INTO
// copies the database as one read transaction sees it, so the copy holds
// every write committed before the backup began and none after, whatever
// writes run meanwhile. The copy is written compacted, in
// rollback-journal mode, readable by its owner only (mode 0600).
//
// The copy is written to a temporary file beside path (path.<random>.tmp)
// and handed to finish (when not nil) to complete it, then synced, and
// only then linked to path, so path never names a partial copy: a backup
// that fails or is killed leaves at most the temporary file, which may be
// deleted.
//
// Its errors begin "backup: "; one for an existing path wraps
// [fs.ErrExist], one of the database is classified ([Classify]). finish's
// come back as they are.
func BackupSQLite(ctx context.Context, read *sql.DB, path string, finish func(ctx context.Context, tmp string) error) (err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := os.Lstat(abs); err == nil {
		return existsError(path)
	}
	dir := filepath.Dir(abs)
	f, err := os.CreateTemp(dir, filepath.Base(abs)+".*.tmp")
	if err != nil {
		return fmt.Errorf("backup: creating the file in %s: %w", dir, err)
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer func() {
		if err != nil {
			// A rollback journal is left only by a finish that failed.
			os.Remove(tmp + "-journal")
			os.Remove(tmp)
		}
	}()
	if err := vacuumInto(ctx, read, tmp); err != nil {
		return err
	}
	if finish != nil {
		if err := finish(ctx, tmp); err != nil {
			return err
		}
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return publish(tmp, abs, path)
}

// RebuildFTS rebuilds the external-content FTS5 indexes tables of the
// SQLite file at path (a copy that [BackupSQLite] hands to its finish)
// from their content: they are keyed on their content's rowids, which
// VACUUM may renumber (SQLite's VACUUM documentation). A table the file
// lacks (made by a later migration) is skipped.
func RebuildFTS(ctx context.Context, path string, tables ...string) error {
	db, err := sql.Open(sqliteshim.ShimName, path+"?_pragma=synchronous(FULL)")
	if err != nil {
		return fmt.Errorf("backup: opening the copy: %w", err)
	}
	defer db.Close()
	for _, t := range tables {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, t).Scan(&n); err != nil {
			return fmt.Errorf("backup: reading the copy: %w", err)
		}
		if n == 0 {
			continue
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO `+t+` (`+t+`) VALUES ('rebuild')`); err != nil {
			return fmt.Errorf("backup: rebuilding the copy's search index: %w", err)
		}
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("backup: closing the copy: %w", err)
	}
	return nil
}

// vacuumInto runs VACUUM INTO tmp (an empty file, which SQLite accepts)
// on a connection of the read pool, so the writes queue behind nothing:
// in WAL mode the copy is one read transaction. The read pool's
// connections are query_only, which refuses VACUUM INTO, so the
// connection lifts it and is then discarded rather than returned to the
// pool; the pool opens another with its usual settings.
func vacuumInto(ctx context.Context, read *sql.DB, tmp string) error {
	conn, err := read.Conn(ctx)
	if err != nil {
		return fmt.Errorf("backup: %w", Classify(err))
	}
	defer conn.Close()
	defer conn.Raw(func(any) error { return driver.ErrBadConn }) // never back to the pool
	if _, err := conn.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		return fmt.Errorf("backup: %w", Classify(err))
	}
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return fmt.Errorf("backup: VACUUM INTO %s: %w", tmp, Classify(err))
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
			return fmt.Errorf("backup: %w", err)
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
	return fmt.Errorf("backup: %s: %w; a backup never replaces a file: give a new name, or move the old file away", path, fs.ErrExist)
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
