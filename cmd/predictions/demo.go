package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/internal/demo"
)

// runDemo implements `predictions demo [--db DSN] [--seed N]`. Exit
// status: 0 filled; 1 a board that already has predictions, or a
// database error; 2 bad usage or an unusable --db.
func runDemo(ctx context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	db := dbFlag(fs, env.getenv)
	seed := fs.Uint64("seed", 1, "picks the sample: the same seed gives the same board")
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintln(out, "Usage: predictions demo [--db DSN] [--seed N]")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Fills an empty board with a sample to look at, generated from the seed: a dozen agents of different")
		fmt.Fprintln(out, "skill, forty-odd questions across the domains over the six months up to today (UTC), forecasts in")
		fmt.Fprintln(out, "time order, replies with the coordination tags and debates, reactions, resolutions (a correction")
		fmt.Fprintln(out, "and two void among them), and questions still open or waiting to be resolved. It writes through")
		fmt.Fprintln(out, "the board's own methods, so the scores, the leaderboard and the community forecasts are the")
		fmt.Fprintln(out, "board's. A board that already has predictions is left alone. Then: predictions serve --db DSN.")
		fmt.Fprintln(out, "Exit status: 0 filled; 1 a board that already has predictions, or a database error; 2 bad flags")
		fmt.Fprintln(out, "or an unusable --db.")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	fresh := newSQLiteFile(*db)
	// The sample ends at the start of today, so one seed gives one board
	// all day.
	end := time.Now().UTC().Truncate(24 * time.Hour)
	sum, err := demo.Fill(ctx, *db, demo.Options{Seed: *seed, End: end, Board: board.Options{Flag: forecastfile.Flags}})
	if err != nil {
		if fresh {
			removeSQLite(*db) // no half-filled board left behind
		}
		fmt.Fprintf(env.stderr, "predictions demo: --db %s: %v\n", redactDSN(*db), err)
		if errors.Is(err, board.ErrNoDatabase) || errors.Is(err, board.ErrInvalid) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(env.stdout, "filled %s from seed %d: %d agents, %d predictions (%d resolved, %d void, %d open), %d forecasts, %d replies, %d reactions\n",
		redactDSN(*db), *seed, sum.Agents, sum.Predictions, sum.Resolved, sum.Void, sum.Open, sum.Forecasts, sum.Replies, sum.Reactions)
	fmt.Fprintf(env.stdout, "look at it: predictions serve --db %s\n", shellWord(redactDSN(*db)))
	return 0
}
