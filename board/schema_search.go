package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/migrate"
)

// migrateSearch is migration 20261125000004: the feed's full-text search
// (q) and the indexes of its agent_id and status filters.
//
// SQLite: predictions_fts, an external-content FTS5 table over title and
// body keyed by the predictions rowid (the text is not stored twice), kept
// in step by triggers and filled from the stored predictions. Tokens are
// unicode61's (case and diacritics folded, no stemming). A SQLite without
// FTS5 fails here: modernc.org/sqlite, which bun's sqliteshim uses on the
// usual platforms, has it; mattn/go-sqlite3 (sqliteshim with -tags
// cgosqlite, or without modernc) needs -tags sqlite_fts5 too. The rowid of
// a table without an INTEGER PRIMARY KEY may change in VACUUM, so a
// VACUUM of the board must be followed by
// INSERT INTO predictions_fts(predictions_fts) VALUES ('rebuild').
//
// PostgreSQL: a stored generated tsvector column search, to_tsvector of
// the 'simple' configuration (no stemming, as SQLite) over title and body,
// with a GIN index. Migration 20261127000020 (searchWordsSchema) rebuilds
// it so that punctuation splits words.
func migrateSearch(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
	db := m.DB()
	pg := db.Dialect().Name() == dialect.PG
	stmts := []string{
		`CREATE INDEX IF NOT EXISTS predictions_agent_recent ON predictions (agent_id, created_at DESC, id DESC)`,
		`CREATE INDEX IF NOT EXISTS predictions_status_recent ON predictions (status, created_at DESC, id DESC)`,
	}
	if pg {
		stmts = append(stmts,
			searchColumn(`title || ' ' || body`),
			`CREATE INDEX IF NOT EXISTS predictions_search ON predictions USING GIN (search)`)
	} else {
		stmts = append(stmts,
			`CREATE VIRTUAL TABLE IF NOT EXISTS predictions_fts USING fts5(title, body,
	content='predictions', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`,
			`CREATE TRIGGER IF NOT EXISTS predictions_fts_insert AFTER INSERT ON predictions BEGIN
	INSERT INTO predictions_fts (rowid, title, body) VALUES (new.rowid, new.title, new.body);
END`,
			`CREATE TRIGGER IF NOT EXISTS predictions_fts_delete AFTER DELETE ON predictions BEGIN
	INSERT INTO predictions_fts (predictions_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
END`,
			`CREATE TRIGGER IF NOT EXISTS predictions_fts_update AFTER UPDATE OF title, body ON predictions BEGIN
	INSERT INTO predictions_fts (predictions_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
	INSERT INTO predictions_fts (rowid, title, body) VALUES (new.rowid, new.title, new.body);
END`,
			`INSERT INTO predictions_fts (predictions_fts) VALUES ('rebuild')`)
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				if strings.Contains(err.Error(), "no such module: fts5") {
					return fmt.Errorf("%w: this SQLite has no FTS5, which the feed's search needs: "+
						"build with modernc.org/sqlite (the default) or, with -tags cgosqlite, add -tags sqlite_fts5", err)
				}
				return fmt.Errorf("%w\n%s", err, q)
			}
		}
		return nil
	})
}

// searchColumn is the statement that adds PostgreSQL's column search:
// to_tsvector of the 'simple' configuration over document, an SQL
// expression of the prediction's columns.
func searchColumn(document string) string {
	return `ALTER TABLE predictions ADD COLUMN IF NOT EXISTS search tsvector
	GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, ` + document + `)) STORED`
}

// searchWordsSchema is migration 20261127000020, on PostgreSQL only: the
// column search and its GIN index are rebuilt over [searchDocument], so
// that punctuation between words splits them as SQLite's unicode61
// tokenizer does and the same q finds the same predictions on both
// databases (search.go). PostgreSQL rewrites the table to fill the new
// column. SQLite's index already splits words so and is left alone.
func searchWordsSchema(pg bool) []string {
	if !pg {
		return nil
	}
	return replaceSearchColumn(searchDocument())
}

// replaceSearchColumn replaces PostgreSQL's column search and its index with
// ones over document.
func replaceSearchColumn(document string) []string {
	return []string{
		`DROP INDEX IF EXISTS predictions_search`,
		`ALTER TABLE predictions DROP COLUMN IF EXISTS search`,
		searchColumn(document),
		`CREATE INDEX IF NOT EXISTS predictions_search ON predictions USING GIN (search)`,
	}
}
