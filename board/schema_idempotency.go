package board

// idempotencySchema is migration 20261127000030: the table
// idempotency_keys, one row per Idempotency-Key a caller sent to a write
// route (see idempotency.go). status is NULL while the write is in flight;
// header and body hold the answer once it is finished. created_at is
// when the key was claimed: rows older than [KeyTTL] are removed, a few at
// a time, by [Store.ClaimKey].
func idempotencySchema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS idempotency_keys (
	scope TEXT NOT NULL,
	route TEXT NOT NULL,
	key TEXT NOT NULL,
	request_hash TEXT NOT NULL,
	status INTEGER,
	header TEXT NOT NULL DEFAULT '{}',
	body TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	PRIMARY KEY (scope, route, key)
)`,
		`CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at)`,
	}
}

// dropIdempotency undoes idempotencySchema.
func dropIdempotency() []string {
	return []string{`DROP TABLE IF EXISTS idempotency_keys`}
}
