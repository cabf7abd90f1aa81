package board

import "github.com/predictions-md/predictions/internal/database"

// ErrUnavailable: the database cannot be reached or does not accept
// writes now (the server is down or read-only, a connection was cut, the
// store is closed, the SQLite file is locked beyond the busy timeout or
// cannot be written, PostgreSQL gave up on a statement); the list is
// [database.ErrUnavailable]'s, which it is. It is the service's fault,
// not the input's, and retrying later may succeed; when a write returns
// it, the write was not committed. Test for it with [errors.Is]; the
// error also wraps the driver's, for the log.
var ErrUnavailable = database.ErrUnavailable

// Classify returns err wrapped with [ErrUnavailable] when it says the
// database is unavailable, else err unchanged; nil stays nil. The board's
// drivers are known there ([database.Classify]), so callers need not know
// them: adapters call it on any error a [Store] method returned.
func Classify(err error) error { return database.Classify(err) }
