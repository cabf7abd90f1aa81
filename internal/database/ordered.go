package database

import "strings"

// AppendInOrder returns the statement that appends rows to the table
// head names ("INSERT INTO log (a, b) ") so that readers who read after
// the last id they saw miss no row: it must be the last statement of its
// write. On PostgreSQL an identity value is taken when the row is
// inserted, not when it commits, so ids could commit out of order and a
// reader past id N would miss an N−1 that commits later. The statement
// therefore first takes the transaction's advisory lock lockKey, then the
// ids, and the lock is held from the ids to the commit: a transaction's
// ids are taken only after every transaction that took smaller ones has
// committed or rolled back, and a reader that sees id N never sees a
// smaller id appear. Since every earlier lock of the write is taken
// before it, the lock cannot deadlock. It also notifies channel,
// delivered at commit to the listeners on the database ([Signal.Listen]).
// The cost is that the writes' commits take turns on PostgreSQL
// (NOTIFY's own queue lock at commit serialises notifying commits
// already). On SQLite the single writer serialises commits, and the
// statement is a plain INSERT.
//
// cols are the columns of head, in order, and pgTypes their PostgreSQL
// types (VALUES under a SELECT are not typed by the table); every row has
// a value for each.
func AppendInOrder(pg bool, head string, cols, pgTypes []string, lockKey int64, channel string, rows [][]any) Stmt {
	var q strings.Builder
	var args []any
	q.WriteString(head)
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	if pg {
		q.WriteString(`SELECT v.* FROM (SELECT pg_advisory_xact_lock(?), pg_notify(?, '')) AS l, (VALUES `)
		args = append(args, lockKey, channel)
		row = "(?::" + strings.Join(pgTypes, ", ?::") + ")"
	} else {
		q.WriteString(`VALUES `)
	}
	for i, r := range rows {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(row)
		args = append(args, r...)
	}
	if pg {
		q.WriteString(`) AS v (` + strings.Join(cols, ", ") + `)`)
	}
	return Stmt{Query: q.String(), Args: args}
}
