package board

import (
	"context"
	"time"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun/migrate"
)

// OpenBeforeOptIn opens dsn with the migrations before 20261125000001
// only, the schema a board had before double opt-in, and returns a raw
// handle to write old rows with. Test-only.
func OpenBeforeOptIn(ctx context.Context, dsn string) (*Store, error) {
	s := &Store{now: time.Now}
	var err error
	if database.IsPostgres(dsn) {
		err = s.openPostgres(dsn, Options{})
	} else {
		err = s.openSQLite(dsn, Options{})
	}
	if err != nil {
		return nil, err
	}
	old := migrate.NewMigrations()
	for _, m := range migrations().Sorted() {
		if m.Name < "20261125000001" {
			old.Add(m)
		}
	}
	mg := migrate.NewMigrator(s.write, old, migrate.WithTableName("board_migrations"),
		migrate.WithLocksTableName("board_migration_locks"), migrate.WithMarkAppliedOnSuccess(true))
	if err := mg.Init(ctx); err != nil {
		return nil, err
	}
	if _, err := mg.Migrate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Exec runs a statement on the writer, for tests that write old rows.
func Exec(ctx context.Context, s *Store, q string, args ...any) error {
	_, err := s.write.ExecContext(ctx, q, args...)
	return err
}
