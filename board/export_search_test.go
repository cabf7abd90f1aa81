package board

import (
	"context"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/uptrace/bun/migrate"
)

// UndoSearchWords runs the Down of migration 20261127000020 (the search
// index over the text as it is) and forgets that it was applied, so that
// the next Open applies it again. Test-only.
func UndoSearchWords(ctx context.Context, s *Store) error {
	m := migrate.NewMigrator(s.write, migrations(), migrate.WithTableName("board_migrations"),
		migrate.WithLocksTableName("board_migration_locks"))
	if err := bunmigrate.DialectDDL(unsearchWords)(ctx, m, nil); err != nil {
		return err
	}
	_, err := s.write.ExecContext(ctx, `DELETE FROM board_migrations WHERE name = '20261127000020'`)
	return err
}

// unsearchWords undoes searchWordsSchema: search over the text as it is.
func unsearchWords(pg bool) []string {
	if !pg {
		return nil
	}
	return replaceSearchColumn(`title || ' ' || body`)
}
