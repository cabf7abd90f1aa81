package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/predictions-md/predictions/evaluate"
	"github.com/predictions-md/predictions/forecastfile"
)

const evaluateUsage = `Usage: predictions evaluate [--warmup F] [--json] FILE...

Replays the forecast files in time order and, after every forecast, pools each
question's standing forecasts by every pool (geo_odds, mean, median, recency,
skill), with each forecaster's skill known at that moment. Prints each pool's mean
log score and Brier score at the close and time-averaged, and its gain over the
median and over recency with a paired bootstrap 95% interval (docs/POOLS.md).
Forecast lines that cannot be read are named FILE:LINE on standard error and left
out. A FILE of - reads standard input.
`

// runEvaluate implements `predictions evaluate [--warmup F] [--json]
// FILE...`: package evaluate's report on the files.
func runEvaluate(_ context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("evaluate", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	warmup := fs.Float64("warmup", 0, "fraction of the questions, the earliest by close, that only feed skills (0 to below 1)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), evaluateUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	opt := evaluate.Options{Warmup: *warmup}
	if err := opt.Validate(); err != nil {
		fmt.Fprintf(env.stderr, "predictions evaluate: --warmup: %v\n", err)
		return 2
	}
	var files []*forecastfile.File
	for _, name := range fs.Args() {
		f, err := readForecastFile(env, name)
		if err != nil {
			fmt.Fprintf(env.stderr, "predictions evaluate: %v\n", err)
			return 2
		}
		for _, q := range f.Questions {
			for _, fc := range q.Forecasts {
				if !fc.OK() {
					fmt.Fprintf(env.stderr, "%s:%d: forecast line cannot be read and is left out; run predictions check %s\n", displayName(name), fc.Line, name)
				}
			}
		}
		files = append(files, f)
	}
	rep, err := evaluate.Run(files, opt)
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions evaluate: %v\n", err)
		return 2
	}
	if *asJSON {
		err = writeJSON(env.stdout, rep)
	} else {
		err = rep.WriteText(env.stdout)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions evaluate: %v\n", err)
		return 2
	}
	return 0
}
