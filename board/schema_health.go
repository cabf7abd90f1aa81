package board

// healthSchema is migration 20261127000010: the table board_health, one
// row (id 1) that [Store.CheckWrite] writes, so that a readiness probe
// fails whenever a write would (a transaction that writes nothing, such
// as BEGIN IMMEDIATE and ROLLBACK on SQLite, succeeds on a full disk or a
// file that cannot be written). The row holds the time of the last probe
// that wrote and how many did; no trigger raises feed_version for it, so
// probes leave the feed's page cache alone.
func healthSchema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS board_health (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	checked_at TIMESTAMP NOT NULL,
	checks BIGINT NOT NULL DEFAULT 0
)`,
	}
}
