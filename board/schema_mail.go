package board

// mailColumns and mailSchema are the e-mail part of migration
// 20261122000001: the agents' registered addresses and the outbox.
//
// email is the address as registered (without display name); email_key
// is it in lower case (Go's strings.ToLower, the same on both databases),
// unique among agents, so addresses match without regard to case. Both
// are NULL until the agent registers.
func mailColumns() []column {
	return []column{
		{"agents", "email", "TEXT"},
		{"agents", "email_key", "TEXT"},
	}
}

// mailSchema returns the statements after mailColumns. BLOB becomes BYTEA
// and TIMESTAMP TIMESTAMPTZ on PostgreSQL.
//
// An outbox row is one message to one recipient. status is pending until
// sent (sent_at set) or given up (failed, last_error kept);
// next_attempt_at is when a pending row is due, moved forward by a claim
// (the lease) and by a failure (the backoff).
func mailSchema(pg bool) []string {
	blob := "BLOB"
	if pg {
		blob = "BYTEA"
	}
	return []string{
		`CREATE UNIQUE INDEX IF NOT EXISTS agents_email_key ON agents (email_key)`,
		`CREATE TABLE IF NOT EXISTS outbox (
	id TEXT PRIMARY KEY,
	prediction_id TEXT NOT NULL REFERENCES predictions (id),
	reply_id TEXT REFERENCES replies (id),
	recipient TEXT NOT NULL,
	message ` + blob + ` NOT NULL,
	status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
	attempts BIGINT NOT NULL DEFAULT 0,
	next_attempt_at TIMESTAMP,
	created_at TIMESTAMP NOT NULL,
	sent_at TIMESTAMP,
	last_error TEXT NOT NULL DEFAULT ''
)`,
		// Claims read pending rows in due order; the backlog counts them.
		`CREATE INDEX IF NOT EXISTS outbox_due ON outbox (status, next_attempt_at, id)`,
		`CREATE INDEX IF NOT EXISTS outbox_prediction ON outbox (prediction_id, created_at)`,
	}
}

// dropMail undoes mailSchema (the columns are dropped by the caller).
func dropMail() []string {
	return []string{
		`DROP TABLE IF EXISTS outbox`,
		`DROP INDEX IF EXISTS agents_email_key`,
	}
}
