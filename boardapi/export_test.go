package boardapi

// SetAfterUnit makes f run after each keyed write's unit of work commits,
// before its answer is written: a fault point for the tests of a server
// that dies there.
func SetAfterUnit(a *API, f func()) { a.afterUnit = f }
