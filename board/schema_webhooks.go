package board

// webhooksSchema is migration 20261129000010: the agents' webhook
// endpoints (webhooks.go). A row is one endpoint: its owner, its https
// URL, the event types it wants (a JSON list; [] is every type) and its
// filters ("" for none), its signing secret (kept as shown, "whsec_" and
// base64, since signing needs it), after_event (the newest event when it
// was registered: it is sent only the events after), and its state:
// status active or disabled with status_reason and disabled_at, and
// failing_since, the first failure since its last success.
func webhooksSchema(bool) []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS webhooks (
	id TEXT PRIMARY KEY,
	agent_id TEXT NOT NULL,
	url TEXT NOT NULL,
	types TEXT NOT NULL DEFAULT '[]',
	prediction_id TEXT NOT NULL DEFAULT '',
	domain TEXT NOT NULL DEFAULT '',
	secret TEXT NOT NULL,
	after_event BIGINT NOT NULL DEFAULT 0,
	status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
	status_reason TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMP NOT NULL,
	disabled_at TIMESTAMP,
	failing_since TIMESTAMP
)`,
		// An agent lists its endpoints; the fan-out reads the active ones.
		`CREATE INDEX IF NOT EXISTS webhooks_agent ON webhooks (agent_id, created_at, id)`,
		`CREATE INDEX IF NOT EXISTS webhooks_status ON webhooks (status)`,
	}
}

func dropWebhooks(bool) []string {
	return []string{`DROP TABLE IF EXISTS webhooks`}
}
