package board

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun/migrate"
)

// CounterMismatches recounts every stored counter from the rows with SQL
// and describes each one that differs. Test-only.
func CounterMismatches(ctx context.Context, s *Store) ([]string, error) {
	checks := []struct{ name, q string }{
		{"prediction counters", `SELECT COUNT(*) FROM predictions AS p WHERE
	p.replies <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id)
	OR p.agree <> (SELECT COUNT(*) FROM reactions AS x WHERE x.prediction_id = p.id AND x.kind = 'agree')
	OR p.disagree <> (SELECT COUNT(*) FROM reactions AS x WHERE x.prediction_id = p.id AND x.kind = 'disagree')
	OR p.uncertain <> (SELECT COUNT(*) FROM reactions AS x WHERE x.prediction_id = p.id AND x.kind = 'uncertain')
	OR p.popularity <> p.agree + p.disagree + p.uncertain + p.replies
	OR p.replies <> p.replies_plain + p.replies_agree + p.replies_disagree + p.replies_challenge + p.replies_debate
	OR p.replies_agree <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'agree')
	OR p.replies_disagree <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'disagree')
	OR p.replies_challenge <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'challenge')
	OR p.replies_debate <> (SELECT COUNT(*) FROM replies AS r WHERE r.prediction_id = p.id AND r.kind = 'debate')`},
		{"debate ids", `SELECT COUNT(*) FROM replies AS r WHERE
	(r.kind = 'debate' AND (r.debate_id IS NULL OR r.debate_id <> r.id))
	OR (r.kind <> 'debate' AND r.parent_id IS NULL AND r.debate_id IS NOT NULL)
	OR (r.kind <> 'debate' AND r.parent_id IS NOT NULL AND
		COALESCE(r.debate_id, '') <> COALESCE((SELECT q.debate_id FROM replies AS q WHERE q.id = r.parent_id), ''))`},
		{"agent counters", `SELECT COUNT(*) FROM agents AS a WHERE
	a.predictions <> (SELECT COUNT(*) FROM predictions AS p WHERE p.agent_id = a.id)
	OR a.replies <> (SELECT COUNT(*) FROM replies AS r WHERE r.agent_id = a.id)
	OR a.reactions <> (SELECT COUNT(*) FROM reactions AS x WHERE x.agent_id = a.id)
	OR a.resolved <> (SELECT COUNT(*) FROM predictions AS p WHERE p.agent_id = a.id AND p.status = 'resolved')`},
		{"domain counters", `SELECT COUNT(*) FROM (SELECT domain, SUM(predictions) AS predictions, SUM(replies) AS replies,
	SUM(reactions) AS reactions, SUM(threads) AS threads, SUM(resolved) AS resolved, SUM(void) AS void
	FROM domain_counts GROUP BY domain) AS d WHERE
	d.predictions <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain)
	OR d.replies <> (SELECT COUNT(*) FROM replies AS r JOIN predictions AS p ON p.id = r.prediction_id WHERE p.domain = d.domain)
	OR d.reactions <> (SELECT COUNT(*) FROM reactions AS x JOIN predictions AS p ON p.id = x.prediction_id WHERE p.domain = d.domain)
	OR d.threads <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain AND p.replies > 0)
	OR d.resolved <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain AND p.status = 'resolved')
	OR d.void <> (SELECT COUNT(*) FROM predictions AS p WHERE p.domain = d.domain AND p.status = 'void')`},
		{"forecast counters", `SELECT COUNT(*) FROM predictions AS p WHERE
	p.forecasters <> (SELECT COUNT(*) FROM standings AS s WHERE s.prediction_id = p.id)
	OR p.forecasters < 1
	OR (SELECT COUNT(*) FROM forecasts AS f WHERE f.prediction_id = p.id) <> (SELECT COALESCE(MAX(seq), 0) FROM forecasts AS f WHERE f.prediction_id = p.id)`},
		{"agent forecast counters", `SELECT COUNT(*) FROM agents AS a WHERE
	a.forecasts <> (SELECT COUNT(*) FROM standings AS s WHERE s.agent_id = a.id)
	OR a.scored <> (SELECT COUNT(*) FROM scores AS c WHERE c.agent_id = a.id)`},
		{"domains without counters", `SELECT COUNT(*) FROM predictions AS p WHERE
	NOT EXISTS (SELECT 1 FROM domain_counts AS d WHERE d.domain = p.domain)`},
	}
	var out []string
	for _, c := range checks {
		var n int
		if err := s.read.NewRaw(c.q).Scan(ctx, &n); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if n != 0 {
			out = append(out, fmt.Sprintf("%s: %d row(s) differ from a recount", c.name, n))
		}
	}
	return out, nil
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
	m := migrate.NewMigrator(s.write, migrations(), migrate.WithTableName("board_migrations"),
		migrate.WithLocksTableName("board_migration_locks"))
	if err := unmigrateTags(ctx, m, nil); err != nil {
		return err
	}
	_, err := s.write.ExecContext(ctx, `DELETE FROM board_migrations WHERE name = '20261122000001'`)
	return err
}

// CheckEmail is checkEmail and NameFromEmail nameFromEmail, for the fuzz test.
func CheckEmail(s string) (string, string, error) { return checkEmail(s) }
func NameFromEmail(addr, display string) string   { return nameFromEmail(addr, display) }

// CheckAgentName is checkAgentName.
func CheckAgentName(s string) (string, error) { return checkAgentName(s) }

// releaseMigrations is the last migration of the release before forecasts.
const releaseMigrations = "20261122000002"

// SeedRelease makes a board at dsn as the release before forecasts made
// it (its migrations only) and runs stmts on it, each with its args.
// Test-only: it is how the upgrade test gets a database of the old schema.
func SeedRelease(ctx context.Context, dsn string, stmts []string, args [][]any) error {
	s := &Store{now: time.Now}
	var err error
	if isPostgres(dsn) {
		err = s.openPostgres(dsn, Options{})
	} else {
		err = s.openSQLite(dsn, Options{})
	}
	if err != nil {
		return err
	}
	defer s.Close()
	old := migrate.NewMigrations()
	for _, m := range migrations().Sorted() {
		if m.Name <= releaseMigrations {
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

// Retryable is retryable, for tests.
var Retryable = retryable

// UndoCounterShards runs the Down of migration 20261125000003 (one
// domain_counts row per domain) and forgets that it was applied, so that
// the next Open applies it again. Test-only.
func UndoCounterShards(ctx context.Context, s *Store) error {
	m := migrate.NewMigrator(s.write, migrations(), migrate.WithTableName("board_migrations"),
		migrate.WithLocksTableName("board_migration_locks"))
	if err := unmigrateCounterShards(ctx, m, nil); err != nil {
		return err
	}
	_, err := s.write.ExecContext(ctx, `DELETE FROM board_migrations WHERE name = '20261125000003'`)
	return err
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
