package bunmigrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// DDL returns the Up of a migration that runs stmts in one transaction,
// in order. In them TIMESTAMP becomes TIMESTAMPTZ on PostgreSQL, so that
// times keep their zone there. Written with IF NOT EXISTS, they also run
// on a database where the tables exist already: made by another set that
// kept them before (a package's first migration taking them over), or by
// another process racing on the same SQLite file.
func DDL(stmts ...string) func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
		db := m.DB()
		pg := db.Dialect().Name() == dialect.PG
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, q := range stmts {
				if pg {
					q = strings.ReplaceAll(q, "TIMESTAMP", "TIMESTAMPTZ")
				}
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("%w\n%s", err, q)
				}
			}
			return nil
		})
	}
}
