package bunmigrate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"

	"github.com/predictions-md/predictions/internal/database"
)

// DDL returns the Up of a migration that runs stmts in one transaction,
// in order ([Exec]). Written with IF NOT EXISTS, they also run on a
// database where the tables exist already: made by another set that
// kept them before (a package's first migration taking them over), or by
// another process racing on the same SQLite file.
func DDL(stmts ...string) func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return DialectDDL(func(bool) []string { return stmts })
}

// DialectDDL is [DDL] with statements that depend on the database: stmts
// is told whether it is PostgreSQL.
func DialectDDL(stmts func(pg bool) []string) func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
		db := m.DB()
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return Exec(ctx, tx, stmts(isPG(tx))...)
		})
	}
}

// Exec runs stmts through tx, in order. In them TIMESTAMP becomes
// TIMESTAMPTZ on PostgreSQL, so that times keep their zone there. An
// error names the statement that failed.
func Exec(ctx context.Context, tx bun.IDB, stmts ...string) error {
	pg := isPG(tx)
	for _, q := range stmts {
		if pg {
			q = strings.ReplaceAll(q, "TIMESTAMP", "TIMESTAMPTZ")
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	return nil
}

// Columns are columns that a migration adds to the existing table Table,
// each written as ALTER TABLE ... ADD COLUMN takes it: its name, then its
// type and constraints ("n BIGINT NOT NULL DEFAULT 0"). TIMESTAMP becomes
// TIMESTAMPTZ on PostgreSQL.
type Columns struct {
	Table string
	Defs  []string
}

// name returns the name of the column that def defines.
func name(def string) string {
	n, _, _ := strings.Cut(def, " ")
	return n
}

// AddColumns adds the columns that are missing and reports which it added
// ("table.column"). SQLite has no ADD COLUMN IF NOT EXISTS, and a second
// process may race on the same file: run in the migration's transaction
// (which holds SQLite's write lock from BEGIN with immediate
// transactions), the check and the ALTER see one state. PostgreSQL
// migrations run under the set's advisory lock ([Apply]).
func AddColumns(ctx context.Context, tx bun.IDB, cols ...Columns) (map[string]bool, error) {
	added := map[string]bool{}
	for _, c := range cols {
		for _, def := range c.Defs {
			ok, err := database.HasColumn(ctx, tx, c.Table, name(def))
			if err != nil {
				return nil, err
			}
			if ok {
				continue
			}
			if err := Exec(ctx, tx, `ALTER TABLE `+c.Table+` ADD COLUMN `+def); err != nil {
				return nil, err
			}
			added[c.Table+"."+name(def)] = true
		}
	}
	return added, nil
}

// AddSchema adds the missing columns ([AddColumns], whose report it
// returns), then runs stmts ([Exec]).
func AddSchema(ctx context.Context, tx bun.IDB, cols []Columns, stmts []string) (map[string]bool, error) {
	added, err := AddColumns(ctx, tx, cols...)
	if err != nil {
		return nil, err
	}
	if err := Exec(ctx, tx, stmts...); err != nil {
		return nil, err
	}
	return added, nil
}

// DropSchema undoes [AddSchema]: it runs stmts (the drops of what its
// statements made), then drops the columns, last first.
func DropSchema(ctx context.Context, tx bun.IDB, stmts []string, cols []Columns) error {
	all := slices.Clone(stmts)
	for _, c := range slices.Backward(cols) {
		for _, def := range slices.Backward(c.Defs) {
			all = append(all, `ALTER TABLE `+c.Table+` DROP COLUMN `+name(def))
		}
	}
	return Exec(ctx, tx, all...)
}

// isPG reports whether db is PostgreSQL.
func isPG(db bun.IDB) bool { return db.Dialect().Name() == dialect.PG }
