// Command predictions-bench is the load benchmark of the predictions
// service, a command of its own so that the server binary does not link
// it.
//
// It builds the predictions binary (or takes one with -predictions),
// starts `predictions serve` processes on loopback, each on a database of
// its own, and drives every scenario with wrk (Debian's package `wrk`):
// closed loop, 64 connections from 2 threads by default, in rounds taken
// in turn with a baseline measured in the same run. It prints a Markdown
// table of requests per second, p50, p99, errors and the ratio to the
// baseline. See package internal/loadbench and docs/BENCHMARKS.md.
//
// Usage:
//
//	predictions-bench [flags]
//	predictions-bench bare -addr host:port -body-size n
//	predictions-bench streams -base http://127.0.0.1:8080 -n 10000
//
// The second form is the bare handler the tool scenarios are measured
// against; the benchmark starts it as a process of its own. The third
// holds n event streams (GET /api/events) open against a running server
// and prints how many are open and the events they received, for
// measuring by hand; the streams scenario (-streams, -streams-query)
// does the same within the benchmark.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"github.com/predictions-md/predictions/internal/loadbench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its outside world injected; it returns the exit
// status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "bare" {
		return loadbench.BareMain(ctx, args[1:], stderr)
	}
	if len(args) > 0 && args[0] == "streams" {
		return loadbench.StreamsMain(ctx, args[1:], stdout, stderr)
	}
	var (
		cfg                loadbench.Config
		quick, large       bool
		jsonPath, scenario string
		realQuestions      int
	)
	fs := flag.NewFlagSet("predictions-bench", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&cfg.Exe, "predictions", "", "the predictions `binary` to serve; empty builds ./cmd/predictions with the go command")
	fs.StringVar(&cfg.Wrk, "wrk", "wrk", "the wrk `binary` (the load generator)")
	fs.DurationVar(&cfg.Duration, "duration", 5*time.Second, "how long each side of a comparison is measured in each round (whole seconds)")
	fs.IntVar(&cfg.Rounds, "rounds", 3, "rounds, each side of a comparison measured in turn")
	fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "warm-up of each side before the rounds, not counted (0s: none)")
	fs.IntVar(&cfg.Conns, "conns", 64, "connections, each with one request in flight")
	fs.IntVar(&cfg.Threads, "threads", 2, "wrk threads")
	fs.BoolVar(&quick, "quick", false, "smoke run: 1 s, one round, tiny seeds (the figures mean nothing)")
	fs.StringVar(&jsonPath, "json", "", "also write the table as JSON to this `file`")
	fs.StringVar(&scenario, "scenarios", "", "run only the scenarios whose names match this `regexp` (and the baselines they need)")
	fs.BoolVar(&large, "large", false, "add the feed over 1,000,000 predictions (seeding takes minutes)")
	fs.BoolVar(&cfg.Real, "real", false, "add the real-size group: a generated board of -real-questions resolved questions (PredictionBook's shape, about 8 forecasts each) against one of 1,000 (importing 50,000 takes minutes: use -keep-seed)")
	fs.IntVar(&realQuestions, "real-questions", 50_000, "resolved `questions` of the real-size board (with -quick: 300 unless given)")
	fs.StringVar(&cfg.SeedDir, "keep-seed", "", "keep the seeded feed and real-size boards in this `directory` and reuse them in later runs")
	fs.IntVar(&cfg.Streams, "streams", loadbench.DefaultStreams, "event streams the streams scenario holds open (each a connection: the file limit, ulimit -Hn, must exceed it)")
	fs.StringVar(&cfg.StreamsQuery, "streams-query", "", "the streams' query, such as ?type=prediction.resolved (empty: every event)")
	fs.StringVar(&cfg.StreamsMemoryLimit, "streams-memory-limit", "", "serve's --memory-limit for the streams scenario's servers, such as 512MiB (empty: serve's default)")
	fs.BoolVar(&cfg.Ceilings, "ceilings", false, "add to each POST of a tool the least servers (plain net/http) that decode it, then check it, run it and answer it, one stage more each: how far the tool's own work lets the server go")
	fs.StringVar(&cfg.ProfileDir, "profile", "", "write a CPU profile of the server for each scenario into this `directory`")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: predictions-bench [flags]")
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, "Starts `predictions serve` processes on loopback and drives each scenario with wrk, closed loop;")
		fmt.Fprintln(stdout, "prints a Markdown table of req/s, p50, p99, errors and the ratio to a baseline measured in")
		fmt.Fprintln(stdout, "the same run, against the goals in docs/BENCHMARKS.md. Exit status 1 when a goal is not met")
		fmt.Fprintln(stdout, "or a scenario fails. Run it from the module's directory, or give -predictions.")
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, "Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "predictions-bench: unexpected argument %q; it takes flags only (or `bare`)\n", fs.Arg(0))
		return 2
	}
	if scenario != "" {
		re, err := regexp.Compile(scenario)
		if err != nil {
			fmt.Fprintf(stderr, "predictions-bench: -scenarios: %v\n", err)
			return 2
		}
		cfg.Filter = re
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = -1 // none
	}
	if realQuestions < 2 {
		fmt.Fprintf(stderr, "predictions-bench: -real-questions %d: the real-size board needs at least 2 questions (the default is 50000)\n", realQuestions)
		return 2
	}
	if quick {
		cfg = loadbench.Quick(cfg)
	}
	if !quick || flagSet(fs, "real-questions") { // -quick's own size unless given
		cfg.RealQuestions = realQuestions
	}
	cfg.Large, cfg.Progress = large, stderr
	if cfg.Exe == "" {
		dir, err := os.MkdirTemp("", "predictions-bench-build-")
		if err != nil {
			fmt.Fprintf(stderr, "predictions-bench: %v\n", err)
			return 1
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(stderr, "building ./cmd/predictions")
		if cfg.Exe, err = loadbench.Build(ctx, dir); err != nil {
			fmt.Fprintf(stderr, "predictions-bench: %v\n", err)
			return 1
		}
	}
	rep, err := loadbench.Run(ctx, cfg)
	if rep != nil {
		if werr := rep.WriteTable(stdout); werr != nil && err == nil {
			err = werr
		}
		if jsonPath != "" {
			if werr := writeJSONFile(jsonPath, rep); werr != nil && err == nil {
				err = werr
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "predictions-bench: %v\n", err)
		return 1
	}
	if failed := rep.Failed(); len(failed) > 0 && !quick {
		fmt.Fprintln(stderr, "goals not met:")
		for _, f := range failed {
			fmt.Fprintln(stderr, "  "+f)
		}
		return 1
	}
	return 0
}

// flagSet reports whether the flag name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
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
