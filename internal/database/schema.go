package database

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// HasColumn reports whether table has the column, read through db (in a
// migration, its transaction, so that the check and the change that
// follows it see one state): SQLite's pragma_table_info, PostgreSQL's
// information_schema.columns in the current schema.
func HasColumn(ctx context.Context, db bun.IDB, table, column string) (bool, error) {
	q := `SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?`
	if db.Dialect().Name() == dialect.PG {
		q = `SELECT COUNT(*) FROM information_schema.columns
	WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?`
	}
	var n int
	if err := db.NewRaw(q, table, column).Scan(ctx, &n); err != nil {
		return false, fmt.Errorf("checking %s.%s: %w", table, column, err)
	}
	return n > 0, nil
}
