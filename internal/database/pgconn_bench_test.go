package database

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"
)

// BenchmarkPostgresConnector measures what pgconn.go adds to a statement
// on PostgreSQL (PREDICTIONS_TEST_POSTGRES): a one-row read with a
// request's context (cancellable), through pgdriver's connector alone and
// through this package's (the watch of the context, the check of the pooled
// connection, the wrapped rows).
func BenchmarkPostgresConnector(b *testing.B) {
	dsn := os.Getenv("PREDICTIONS_TEST_POSTGRES")
	if dsn == "" {
		b.Skip("PREDICTIONS_TEST_POSTGRES is not set")
	}
	for _, c := range []struct {
		name string
		db   *sql.DB
	}{
		{"pgdriver", sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))},
		{"database", sql.OpenDB(newPGConnector(dsn))},
	} {
		defer c.db.Close()
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var n int
			b.ReportAllocs()
			for b.Loop() {
				if err := c.db.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
