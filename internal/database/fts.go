package database

import "strings"

// FTS5Terms writes words as an SQLite FTS5 query that requires every one
// of them, in any column: each a string (FTS5 ANDs them), its quotes
// doubled, so that no word is read as an operator or as syntax.
func FTS5Terms(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " ")
}
