package board

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/predictions-md/predictions/pool"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// CounterMismatches is Store.CounterMismatches.
func CounterMismatches(ctx context.Context, s *Store) ([]string, error) {
	return s.CounterMismatches(ctx)
}

// RowCounts returns the number of rows in each table. Test-only.
func RowCounts(ctx context.Context, s *Store) (map[string]int, error) {
	out := map[string]int{}
	for _, table := range []string{"agents", "predictions", "replies", "reactions"} {
		var n int
		if err := s.read.NewRaw("SELECT COUNT(*) FROM "+table).Scan(ctx, &n); err != nil {
			return nil, err
		}
		out[table] = n
	}
	return out, nil
}

// HoldWriter begins a transaction on the writer pool and keeps it open
// until release is called, as a long write would. Test-only.
func HoldWriter(ctx context.Context, s *Store) (release func(), err error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return func() { _ = tx.Rollback() }, nil
}

// ReplyKindOf is replyKind, for the tag table test.
func ReplyKindOf(body string) ReplyKind { return replyKind(body) }

// DebateTitle is debateTitle.
func DebateTitle(body string) string { return debateTitle(body) }

// ParseTag is parseTag, for the fuzz test.
func ParseTag(body string) (ReplyKind, string) { return parseTag(body) }

// UndoTagsMigration runs the Down of migration 20261122000001 and forgets
// that it was applied, so that the next Open applies it again. Test-only.
func UndoTagsMigration(ctx context.Context, s *Store) error {
	return undo(ctx, s, "20261122000001", unmigrateTags)
}

// undo runs down, the Down of the migration name, and forgets that it
// was applied, so that the next Open applies it again.
func undo(ctx context.Context, s *Store, name string, down func(context.Context, *migrate.Migrator, *migrate.Migration) error) error {
	m := migrate.NewMigrator(s.write, migrations(), migrate.WithTableName("board_migrations"),
		migrate.WithLocksTableName("board_migration_locks"))
	if err := down(ctx, m, nil); err != nil {
		return err
	}
	_, err := s.write.ExecContext(ctx, `DELETE FROM board_migrations WHERE name = ?`, name)
	return err
}

// releaseMigrations is the last migration of the release before forecasts.
const releaseMigrations = "20261122000002"

// SeedRelease makes a board at dsn as the release before forecasts made
// it (its migrations only) and runs stmts on it, each with its args.
// Test-only: it is how the upgrade test gets a database of the old schema.
func SeedRelease(ctx context.Context, dsn string, stmts []string, args [][]any) error {
	return SeedAt(ctx, dsn, releaseMigrations, stmts, args)
}

// SeedAt is SeedRelease for the board as the migrations up to last (by
// name) made it.
func SeedAt(ctx context.Context, dsn, last string, stmts []string, args [][]any) error {
	s := &Store{now: time.Now}
	if err := s.open(dsn, Options{}); err != nil {
		return err
	}
	defer s.Close()
	old := migrate.NewMigrations()
	for _, m := range migrations().Sorted() {
		if m.Name <= last {
			old.Add(m)
		}
	}
	m := migrate.NewMigrator(s.write, old, migrate.WithTableName("board_migrations"),
		migrate.WithLocksTableName("board_migration_locks"), migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return err
	}
	if _, err := m.Migrate(ctx); err != nil {
		return err
	}
	for i, q := range stmts {
		if _, err := s.write.ExecContext(ctx, q, args[i]...); err != nil {
			return fmt.Errorf("%w\n%s", err, q)
		}
	}
	return nil
}

// ReadProbability is readProbability, for the fuzz test.
func ReadProbability(raw []byte) (float64, error) { return readProbability("p", raw) }

// UndoCounterShards runs the Down of migration 20261125000003 (one
// domain_counts row per domain) and forgets that it was applied, so that
// the next Open applies it again. Test-only.
func UndoCounterShards(ctx context.Context, s *Store) error {
	return undo(ctx, s, "20261125000003", unmigrateCounterShards)
}

// UndoMiddleDisagreement runs the Down of migration 20261129000020 (the
// flags as pool.Combine set them) and forgets that it was applied, so
// that the next Open applies it again. Test-only.
func UndoMiddleDisagreement(ctx context.Context, s *Store) error {
	return undo(ctx, s, "20261129000020", unmigrateDisagreement)
}

// CounterRows returns the number of domain_counts rows of each domain.
// Test-only.
func CounterRows(ctx context.Context, s *Store) (map[string]int, error) {
	var rows []struct {
		Domain string `bun:"domain"`
		N      int    `bun:"n"`
	}
	if err := s.read.NewRaw(`SELECT domain, COUNT(*) AS n FROM domain_counts GROUP BY domain`).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Domain] = r.N
	}
	return out, nil
}

// CounterShards is counterShards.
const CounterShards = counterShards

// ForgetCheck forgets the last probe of CheckWrite and the last committed
// write, so that the next CheckWrite probes at once instead of answering
// with a result up to a second old. Test-only.
func ForgetCheck(s *Store) {
	s.health.Forget()
}

// HealthChecks returns how many probes of CheckWrite wrote the row of
// board_health. Test-only.
func HealthChecks(ctx context.Context, s *Store) (int, error) {
	var n []int
	if err := s.write.NewRaw(`SELECT checks FROM board_health`).Scan(ctx, &n); err != nil {
		return 0, err
	}
	if len(n) == 0 {
		return 0, nil
	}
	return n[0], nil
}

// ExecRaw runs one statement on the store's write connection, for tests
// that set up a fault (a trigger that refuses a row).
func ExecRaw(ctx context.Context, s *Store, q string) error {
	_, err := s.write.ExecContext(ctx, q)
	return err
}

// CountWrites counts the statements the store's write connection runs
// from now on; the function returned reads the count.
func CountWrites(s *Store) func() int64 {
	h := &countHook{}
	s.write = s.write.WithQueryHook(h)
	return h.n.Load
}

type countHook struct{ n atomic.Int64 }

func (h *countHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	h.n.Add(1)
	return ctx
}

func (h *countHook) AfterQuery(context.Context, *bun.QueryEvent) {}

// SetAfterAppend makes every write with events run f after appending
// them, before it commits; an error from f rolls the write back.
// Test-only; set it before the store is used concurrently.
func SetAfterAppend(s *Store, f func() error) { s.afterAppend = f }

// The Downs of the migrations the upgrade tests undo.

// unmigrateTags undoes migrateTags.
func unmigrateTags(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return bunmigrate.DropSchema(ctx, tx, nil, tagsColumns())
	})
}

// unmigrateCounterShards undoes migrateCounterShards: one row per domain,
// the sum of its shards.
func unmigrateCounterShards(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	return m.DB().RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return rebuildDomainCounts(ctx, tx, false)
	})
}

// unmigrateDisagreement undoes migrateDisagreement: the flag the releases
// before stored, pool.Combine's, from the stored spread (rounded as
// Combine rounds it).
func unmigrateDisagreement(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	_, err := m.DB().ExecContext(ctx, `UPDATE predictions SET community_disagree = CASE WHEN community_spread > ? THEN 1 ELSE 0 END`,
		pool.DefaultDisagreePts)
	return err
}
