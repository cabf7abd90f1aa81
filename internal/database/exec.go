package database

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Stmt is a statement with its arguments.
type Stmt struct {
	Query string
	Args  []any
}

// ExecReturning runs stmts in order through db (a transaction, or on
// PostgreSQL the pool, the statement then being its own transaction)
// and returns the one string the first returns (its RETURNING column);
// the others return nothing. On PostgreSQL they go as one statement, each
// a data-modifying WITH query, so the server is asked once instead of
// once each (a write under load waits for its round trips more than for
// the database); the foreign keys between their rows are checked at the
// end of that statement, when every row is there. PostgreSQL runs the
// query the final SELECT reads (the first) first and the others after it
// in order, so the row locks keep the order of stmts; a deadlock is the
// caller's to retry ([Retry]). On SQLite, with no network between, they
// run one by one.
func ExecReturning(ctx context.Context, db bun.IDB, stmts ...Stmt) (string, error) {
	var out string
	if db.Dialect().Name() != dialect.PG {
		for i, st := range stmts {
			var err error
			if i == 0 {
				err = db.NewRaw(st.Query, st.Args...).Scan(ctx, &out)
			} else {
				_, err = db.ExecContext(ctx, st.Query, st.Args...)
			}
			if err != nil {
				return "", err
			}
		}
		return out, nil
	}
	var q strings.Builder
	var args []any
	q.WriteString("WITH ")
	for i, st := range stmts {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "w%d AS (%s)", i, st.Query)
		args = append(args, st.Args...)
	}
	q.WriteString(" SELECT * FROM w0")
	err := db.NewRaw(q.String(), args...).Scan(ctx, &out)
	return out, err
}
