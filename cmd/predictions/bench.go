package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/predictions-md/predictions/internal/loadbench"
)

// runBench is the bench subcommand: the load benchmark of issue 10
// (package internal/loadbench).
func runBench(ctx context.Context, env *cmdEnv, args []string) int {
	var (
		cfg                loadbench.Config
		quick, large       bool
		jsonPath, scenario string
	)
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.DurationVar(&cfg.Duration, "duration", 5*time.Second, "how long each scenario is measured, after a warm-up")
	fs.IntVar(&cfg.Conns, "conns", 64, "connections, each with one request in flight")
	fs.BoolVar(&quick, "quick", false, "smoke run for CI and tests: tiny durations and seeds (the figures mean nothing)")
	fs.StringVar(&jsonPath, "json", "", "also write the table as JSON to this `file`")
	fs.StringVar(&scenario, "scenarios", "", "run only the scenarios whose names match this `regexp` (and the baselines they need)")
	fs.BoolVar(&large, "large", false, "add the feed over 1,000,000 predictions (seeding takes minutes)")
	fs.StringVar(&cfg.SeedDir, "keep-seed", "", "keep the seeded feed boards in this `directory` and reuse them in later runs")
	fs.StringVar(&cfg.ProfileDir, "profile", "", "write a CPU profile of the server for each scenario into this `directory`")
	fs.Usage = func() {
		fmt.Fprintln(env.stderr, "Usage: predictions bench [flags]")
		fmt.Fprintln(env.stderr)
		fmt.Fprintln(env.stderr, "Starts `predictions serve` processes on loopback and drives each scenario with a fixed")
		fmt.Fprintln(env.stderr, "number of connections; prints a Markdown table of req/s, p50, p99, errors and the ratio")
		fmt.Fprintln(env.stderr, "to a baseline measured in the same run, against the goals of issue 10 (docs/BENCHMARKS.md).")
		fmt.Fprintln(env.stderr, "Exit status 1 when a goal is not met or a scenario fails.")
		fmt.Fprintln(env.stderr)
		fmt.Fprintln(env.stderr, "Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "predictions bench: unexpected argument %q; bench takes flags only\n", fs.Arg(0))
		return 2
	}
	if scenario != "" {
		re, err := regexp.Compile(scenario)
		if err != nil {
			fmt.Fprintf(env.stderr, "predictions bench: -scenarios: %v\n", err)
			return 2
		}
		cfg.Filter = re
	}
	if quick {
		cfg = loadbench.Quick(cfg)
	}
	cfg.Large, cfg.Progress = large, env.stderr
	rep, err := loadbench.Run(ctx, cfg)
	if rep != nil {
		if werr := rep.WriteTable(env.stdout); werr != nil && err == nil {
			err = werr
		}
		if jsonPath != "" {
			if werr := writeJSONFile(jsonPath, rep); werr != nil && err == nil {
				err = werr
			}
		}
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions bench: %v\n", err)
		return 1
	}
	if failed := rep.Failed(); len(failed) > 0 && !quick {
		fmt.Fprintln(env.stderr, "goals not met:")
		for _, f := range failed {
			fmt.Fprintln(env.stderr, "  "+f)
		}
		return 1
	}
	return 0
}

func writeJSONFile(path string, rep *loadbench.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runBenchBare is the hidden bench-bare subcommand: the bare handler the
// benchmark measures the tools against, in a process of its own.
func runBenchBare(ctx context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("bench-bare", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on (`host:port`)")
	size := fs.Int("body-size", 100, "size of the JSON body every request gets, in `bytes`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := loadbench.ServeBare(ctx, *addr, *size); err != nil {
		fmt.Fprintf(env.stderr, "predictions bench-bare: %v\n", err)
		return 1
	}
	return 0
}
