package database

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"
)

// RowsPerInsert is the most rows one multi-row INSERT of [InsertRows]
// carries: 500 rows of 11 values stay far below the bound parameters
// SQLite (32,766) and PostgreSQL (65,535) take, should a driver bind
// them.
const RowsPerInsert = 500

// InsertRows runs head + "(?, ...), (?, ...)" + tail through db for the
// rows, in statements of at most [RowsPerInsert] rows; every row has as
// many values as the first.
func InsertRows(ctx context.Context, db bun.IDB, head string, rows [][]any, tail string) error {
	for chunk := range slices.Chunk(rows, RowsPerInsert) {
		one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(chunk[0])), ", ") + ")"
		var q strings.Builder
		q.WriteString(head)
		args := make([]any, 0, len(chunk)*len(chunk[0]))
		for i, r := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString(one)
			args = append(args, r...)
		}
		q.WriteString(tail)
		if _, err := db.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}
