// Command sqlexec runs the SQL statement read from its standard input on
// the SQLite database named by its argument. The tests build it without
// the race detector to seed large boards: SQLite (modernc.org/sqlite) is
// Go code, and under the race detector a seed of 100,000 rows takes ten
// times as long as the test's own work.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"

	"github.com/uptrace/bun/driver/sqliteshim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sqlexec:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: sqlexec FILE < statement.sql")
	}
	q, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	db, err := sql.Open(sqliteshim.ShimName, os.Args[1])
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(context.Background(), string(q))
	return err
}
