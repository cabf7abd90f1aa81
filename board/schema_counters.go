package board

import (
	"context"
	"math/rand/v2"

	"github.com/predictions-md/predictions/internal/bunmigrate"
	"github.com/predictions-md/predictions/internal/database"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// counterShards is how many rows of domain_counts each domain has at
// most. Every write adds to one of them, chosen at random, and readers
// sum them: on PostgreSQL a row lock is held to the end of its
// transaction, so with one row per domain every post, reply and reaction
// in a domain waited for the one before it to commit (docs/RELIABILITY.md, "No hot rows").
//
// 16 is above the default pool of 10 connections, so that two writers of
// one domain seldom meet on a shard; the feed's total then sums at most
// 16 rows on the primary key.
const counterShards = 16

// counterShard picks the shard a write adds to.
func counterShard() int { return rand.IntN(counterShards) }

// migrateCounterShards is migration 20261125000003: domain_counts gets a
// shard column and the primary key (domain, shard). SQLite cannot change
// a primary key in place, so on both dialects the table is rebuilt; the
// existing row of each domain becomes its shard 0.
func migrateCounterShards(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		sharded, err := database.HasColumn(ctx, tx, "domain_counts", "shard")
		if err != nil || sharded {
			return err // sharded: a racing process did it
		}
		return rebuildDomainCounts(ctx, tx, true)
	})
}

// rebuildDomainCounts copies domain_counts into a new table with or
// without the shard column, summing the shards of each domain, and puts
// the copy in its place.
func rebuildDomainCounts(ctx context.Context, tx bun.Tx, sharded bool) error {
	key, shardCol, shardVal := `PRIMARY KEY (domain)`, ``, ``
	if sharded {
		key, shardCol, shardVal = `PRIMARY KEY (domain, shard)`, `shard BIGINT NOT NULL DEFAULT 0,`, `0,`
	}
	const sums = `SUM(predictions), SUM(replies), SUM(reactions), SUM(threads), SUM(resolved), SUM(void)`
	stmts := []string{
		`DROP TABLE IF EXISTS domain_counts_new`,
		`CREATE TABLE domain_counts_new (
	domain TEXT NOT NULL,
	` + shardCol + `
	predictions BIGINT NOT NULL DEFAULT 0,
	replies BIGINT NOT NULL DEFAULT 0,
	reactions BIGINT NOT NULL DEFAULT 0,
	threads BIGINT NOT NULL DEFAULT 0,
	resolved BIGINT NOT NULL DEFAULT 0,
	void BIGINT NOT NULL DEFAULT 0,
	` + key + `
)`,
		`INSERT INTO domain_counts_new SELECT domain, ` + shardVal + sums + ` FROM domain_counts GROUP BY domain`,
		`DROP TABLE domain_counts`,
		`ALTER TABLE domain_counts_new RENAME TO domain_counts`,
	}
	if err := bunmigrate.Exec(ctx, tx, stmts...); err != nil {
		return err
	}
	if isPG(tx) { // PostgreSQL keeps the key's index name through the rename
		if _, err := tx.ExecContext(ctx, `ALTER INDEX domain_counts_new_pkey RENAME TO domain_counts_pkey`); err != nil {
			return err
		}
	}
	return nil
}
