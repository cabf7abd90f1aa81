package board

import (
	"context"
	"errors"
	"fmt"

	"github.com/predictions-md/predictions/internal/database"
)

// ErrPostgresBackup: [Store.Backup] was asked to copy a PostgreSQL board,
// which PostgreSQL's own pg_dump backs up (pg_dump -Fc, restored with
// pg_restore).
var ErrPostgresBackup = errors.New("board: a PostgreSQL board is backed up with pg_dump, not by the store")

// Backup writes a consistent copy of a SQLite board to path, a file that
// must not exist yet, while the board stays in use
// ([database.BackupSQLite]: SQLite's VACUUM INTO, so the copy holds every
// write committed before the backup began and none after, and path never
// names a partial copy). The copy, readable by its owner only, is
// restored by opening it (serve --db path; Open turns WAL back on). Its
// full-text index is rebuilt, since VACUUM may renumber the rowids it is
// keyed on (SQLite's VACUUM documentation).
//
// Errors: a *[ValidationError] for an empty or unusable path; an error
// wrapping [fs.ErrExist] when path exists (a backup never replaces a
// file); [ErrPostgresBackup] on PostgreSQL; the file system's or the
// database's error otherwise.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.pg {
		return fmt.Errorf("%w: run pg_dump -Fc on the database, and pg_restore to restore it", ErrPostgresBackup)
	}
	if path == "" {
		return invalid("path", "is empty", "name the new backup file, such as predictions-2026-03-01.db")
	}
	if err := database.CheckPlainPath(path); err != nil {
		return openError(err)
	}
	if err := database.BackupSQLite(ctx, s.read.DB, path, rebuildSearch); err != nil {
		return fmt.Errorf("board: %w", err)
	}
	return nil
}

// rebuildSearch rebuilds the full-text index of the copy at path
// (migrateSearch's predictions_fts, which a board from before that
// migration lacks).
func rebuildSearch(ctx context.Context, path string) error {
	return database.RebuildFTS(ctx, path, "predictions_fts")
}
