package board

// feedVersionSchema is migration 20261126000001, on SQLite only: the
// table feed_version holds one number, v, that triggers raise with every
// insert, update and delete of a prediction and of an agent (whose name
// the feed shows), in the writing transaction. The feed's page cache
// ([Store.page]) keeps a page with the v it was read after; a page is
// served from the cache only while v is unchanged, so no write, by this
// process, another process on the same file or a person with the sqlite3
// shell, is ever hidden by it.
//
// Its counters (domain_counts) change only in the transactions that
// change predictions. A later migration that rebuilds predictions or
// agents must create these triggers again.
//
// PostgreSQL has no page cache (its replicas commit concurrently, so no
// one counter could order their writes without being a hot row for every
// write), and so no feed_version.
func feedVersionSchema(pg bool) []string {
	if pg {
		return nil
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS feed_version (v INTEGER NOT NULL)`,
		`INSERT INTO feed_version (v) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM feed_version)`,
	}
	for _, t := range versionTriggers {
		stmts = append(stmts, `CREATE TRIGGER IF NOT EXISTS `+t.name+` AFTER `+t.event+` BEGIN
	UPDATE feed_version SET v = v + 1;
END`)
	}
	return stmts
}

// versionTriggers are the triggers that raise feed_version: name and event.
var versionTriggers = []struct{ name, event string }{
	{"feed_version_prediction_insert", "INSERT ON predictions"},
	{"feed_version_prediction_update", "UPDATE ON predictions"},
	{"feed_version_prediction_delete", "DELETE ON predictions"},
	{"feed_version_agent_insert", "INSERT ON agents"},
	{"feed_version_agent_update", "UPDATE OF name ON agents"},
	{"feed_version_agent_delete", "DELETE ON agents"},
}
