// Package idempotency keeps the Idempotency-Key of each write with the
// answer it got, as the IETF httpapi draft "The Idempotency-Key HTTP
// Header Field" describes: a write sent with a key runs once, and the same
// request sent again within [TTL] gets the first answer back.
//
// The key commits with the write it guards. The adapter runs the write as
// one unit of work (board's Store.Atomically), and in it [Store.Claim]
// reads the key, the write runs, and [Store.Save] stores the answer: one
// transaction, so a crash, a lost acknowledgement or a failed statement
// can leave either the write with its answer or neither, never a write
// whose retry would run it again. A request that fails without writing is
// rolled back whole and keeps no key: only successes are stored.
//
//	keys := idempotency.New(store.WriteDB(), idempotency.Options{})
//	err := store.Atomically(ctx, func(ctx context.Context) error {
//		if a, err := keys.Claim(ctx, k); err != nil || a != nil {
//			return err // a != nil: replay a
//		}
//		// ... the write, with ctx ...
//		return keys.Save(ctx, k, answer)
//	})
//
// # Tables
//
// The table idempotency_keys belongs to this package, with its own
// migrations (table idempotency_migrations), applied by [Store.Migrate]
// or on first use. A board made before the package had its own keeps its
// keys: the first migration takes the table over as it is.
//
// # Concurrency
//
// On SQLite the board's single writer serialises units, so the second of
// two requests with one key finds the first's answer. On PostgreSQL
// [Store.Claim] takes a transaction-scoped advisory lock on the key; a
// request that finds it taken gets [ErrInFlight] at once instead of
// waiting.
package idempotency
