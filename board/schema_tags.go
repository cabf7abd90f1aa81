package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// column is a column that a migration adds to an existing table.
type column struct{ table, name, def string }

// tagsColumns are the columns of migration 20261122000001: reply counters
// per kind on predictions (the feed reads them, never counting rows) and
// the debate of each reply, so that a thread groups by debate without a
// recursive walk.
func tagsColumns() []column {
	return []column{
		{"predictions", "replies_plain", "BIGINT NOT NULL DEFAULT 0"},
		{"predictions", "replies_agree", "BIGINT NOT NULL DEFAULT 0"},
		{"predictions", "replies_disagree", "BIGINT NOT NULL DEFAULT 0"},
		{"predictions", "replies_challenge", "BIGINT NOT NULL DEFAULT 0"},
		{"predictions", "replies_debate", "BIGINT NOT NULL DEFAULT 0"},
		{"replies", "debate_id", "TEXT"}, // a reply id; kept right by Reply, not by a foreign key
	}
}

// migrateTags is migration 20261122000001 (coordination tags
// and e-mail threads), in one transaction: the tag columns, then the
// e-mail ones (schema_mail.go). Every reply stored before it is plain, so
// replies_plain starts as replies.
func migrateTags(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	pg := db.Dialect().Name() == dialect.PG
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		added, err := addColumns(ctx, tx, pg, append(tagsColumns(), mailColumns()...))
		if err != nil {
			return err
		}
		if added["predictions.replies_plain"] {
			if _, err := tx.ExecContext(ctx, `UPDATE predictions SET replies_plain = replies`); err != nil {
				return err
			}
		}
		for _, q := range mailSchema(pg) {
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

// unmigrateTags undoes migrateTags.
func unmigrateTags(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range dropMail() {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		cols := append(tagsColumns(), mailColumns()...)
		for i := len(cols) - 1; i >= 0; i-- {
			c := cols[i]
			if _, err := tx.ExecContext(ctx, `ALTER TABLE `+c.table+` DROP COLUMN `+c.name); err != nil {
				return err
			}
		}
		return nil
	})
}

// addSchema adds the missing columns (addColumns, whose report it
// returns), then runs stmts, TIMESTAMP becoming TIMESTAMPTZ on PostgreSQL.
func addSchema(ctx context.Context, tx bun.Tx, pg bool, cols []column, stmts []string) (map[string]bool, error) {
	added, err := addColumns(ctx, tx, pg, cols)
	if err != nil {
		return nil, err
	}
	for _, q := range stmts {
		if pg {
			q = strings.ReplaceAll(q, "TIMESTAMP", "TIMESTAMPTZ")
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("%w\n%s", err, q)
		}
	}
	return added, nil
}

// dropSchema undoes addSchema: it runs stmts (the drops of what its
// statements made), then drops cols, last first.
func dropSchema(ctx context.Context, tx bun.Tx, stmts []string, cols []column) error {
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for i := len(cols) - 1; i >= 0; i-- {
		c := cols[i]
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+c.table+` DROP COLUMN `+c.name); err != nil {
			return err
		}
	}
	return nil
}

// addColumns adds the columns that are missing and reports which it added
// ("table.column"). SQLite has no ADD COLUMN IF NOT EXISTS, and a second
// process may race on the same file: the migration transaction holds the
// write lock (immediate transactions), so the check and the ALTER see one
// state. PostgreSQL migrations run under the advisory lock.
func addColumns(ctx context.Context, tx bun.Tx, pg bool, cols []column) (map[string]bool, error) {
	added := map[string]bool{}
	for _, c := range cols {
		if ok, err := database.HasColumn(ctx, tx, c.table, c.name); err != nil || ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		def := c.def
		if pg {
			def = strings.ReplaceAll(def, "TIMESTAMP", "TIMESTAMPTZ")
		}
		q := `ALTER TABLE ` + c.table + ` ADD COLUMN ` + c.name + ` ` + def
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("%w\n%s", err, q)
		}
		added[c.table+"."+c.name] = true
	}
	return added, nil
}
