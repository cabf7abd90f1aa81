// Package database is the plumbing every store of the module shares and
// that knows none of their records: it opens the pools, connects to
// PostgreSQL, tells an outage from a mistake, retries the transactions
// the database aborted and reads the schema. The stores ([board], the
// outbox, the webhook fan-out) keep their queries; this package keeps
// what is the same for all of them. (pkgsite keeps internal/database
// apart from the queries that know its records the same way.)
//
// What it offers:
//
//   - Opening: [Open] opens the pools of either; [IsPostgres] tells a
//     PostgreSQL URL from a SQLite path; [OpenSQLite] opens a SQLite file as a write pool of one connection
//     (WAL, synchronous=FULL, immediate transactions, the busy timeout,
//     foreign keys) and a query-only read pool, configured by
//     [SQLiteOptions]; [CheckPlainPath] refuses a path the driver would
//     not read as a file name; [OpenPostgres] opens a PostgreSQL pool
//     through the package's connector, which sets server timeouts below
//     the driver's, cancels a statement on the server when its context
//     ends and never uses a connection found dead. Their errors wrap
//     [ErrInvalidDSN] or [ErrNoDatabase].
//   - Outages: [Classify] wraps [ErrUnavailable] around an error that
//     says the database is unavailable (its one table of SQLSTATEs,
//     SQLite result codes and connection errors), [Unavailable] around
//     any error of a probe; [SQLiteBusy] and [UniqueViolation] read the
//     drivers' errors that callers act on.
//   - The retrying transaction: [RunInTx] and [Retry] run a write again
//     from the start when the database aborted it for a deadlock or a
//     serialization failure ([Retryable]), up to [MaxAttempts] times, and
//     classify what they return.
//   - Units of work: [Atomically] runs several stores' writes on one
//     pool as one transaction (a write and the idempotency key that
//     guards it); [RunInTx] joins the unit a context carries, and a store
//     that writes otherwise asks [JoinedTx] or sends its statement
//     [Within] the unit; [AfterCommit] defers what
//     must wait for the commit.
//   - Schema: [HasColumn], for migrations that add a column once.
//   - Reading and writing: [InsertRows] writes many rows in multi-row
//     INSERTs of at most [RowsPerInsert]; [ExecReturning] sends the
//     [Stmt]s of one write to PostgreSQL as one statement; [StmtCache]
//     keeps the statements of queries that recur prepared; [VersionCache]
//     keeps results (by [QueryKey]) while the data's version is
//     unchanged; [Int] and [Float] scan numbers as both drivers give them;
//     [FTS5Terms] writes a full-text query of words.
//   - Following changes: [Signal] wakes the readers of what a commit
//     changed, in this process and, by LISTEN/NOTIFY, on PostgreSQL.
//   - Health and copies: [Probe] keeps a readiness check's result for an
//     interval; [BackupSQLite] copies a SQLite file in use, consistently.
//
// A store opens its pools and writes through the retrying transaction:
//
//	write, read, err := database.OpenSQLite(path, database.SQLiteOptions{CreateDirs: true})
//	if err != nil {
//		return err
//	}
//	err = database.RunInTx(ctx, write, func(ctx context.Context, tx bun.Tx) error {
//		_, err := tx.ExecContext(ctx, `UPDATE t SET n = n + 1`)
//		return err
//	})
//	if errors.Is(err, database.ErrUnavailable) {
//		// a 503: nothing was written, retry later
//	}
//	_ = read
//
// [board]: https://pkg.go.dev/github.com/predictions-md/predictions/board
package database
