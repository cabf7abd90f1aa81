// Package boardtest gives tests fresh, empty boards without paying for
// the migrations each time. [board.Open] migrates one template per test
// binary (a SQLite file, kept in memory; a PostgreSQL database), and each
// board a test asks for is a copy of it: a file written from those bytes,
// or CREATE DATABASE ... TEMPLATE. Opening a copy is what opening a board
// that a server made before is, so the stores behave as fresh ones do;
// tests of the migrations themselves need empty databases and make their
// own.
//
// Under the race detector a migration costs about a second per board
// (SQLite runs as instrumented Go code), which every store test paid.
//
// # Use
//
//	func TestMain(m *testing.M) { os.Exit(boardtest.Run(m)) } // checks the environment first, drops the PostgreSQL template after the tests
//	s, err := board.Open(ctx, boardtest.SQLite(t), board.Options{})
package boardtest
