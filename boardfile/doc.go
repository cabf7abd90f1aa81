// Package boardfile translates between a board's records (package board)
// and the Markdown forecast file (package forecastfile): [Export] writes
// a board's predictions and forecasts as a forecast file, and [Import]
// reads a forecast file back into a board, question by question, so that
// board → file → fresh board → file gives the same text and importing the
// same file twice changes nothing.
//
// The board knows nothing of files: it offers [board.Store.Dump], its
// predictions with their forecasts from one snapshot, and
// [board.Store.Load], whole predictions written in one transaction,
// idempotent by their ids. This package maps each question's fields,
// forecasters and life to those records and back (what a prediction
// leaves out, the file leaves out), checks a file
// with [forecastfile.Check] and the board's own rules, and refuses a file
// with findings as an *[ImportError] naming each line.
//
//	store, err := board.Open(ctx, "board.db", board.Options{})
//	...
//	res, err := boardfile.Import(ctx, store, file) // an *ImportError lists the findings
//	...
//	err = boardfile.Export(ctx, store, os.Stdout, board.FeedQuery{})
//
// Adapters wire it: POST /api/import and GET /api/predictions.md
// (package boardapi), and `predictions import` and `predictions export`.
package boardfile
