// Command pool combines a team's forecasts of one yes/no question and flags
// the team when its members disagree by more than a threshold.
//
//	go run ./examples/pool                                   # a sample team
//	go run ./examples/pool agent:scout=62% agent:skeptic=0.35 person=50
//	go run ./examples/pool -disagree 10 a=40% b=55%          # a stricter flag
//
// Each argument is who=probability; the probability may be a fraction
// (0.35), a percent (35 or 35%), as the tools read it. It uses
// [pool.Combine], which reports the geometric mean of odds (the default),
// the mean and the median together, and the spread.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/predictions-md/predictions/odds"
	"github.com/predictions-md/predictions/pool"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pool:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only reports its error, so a test can call
// run with its own arguments and read what it prints.
func run(_ context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("pool", flag.ContinueOnError)
	disagree := fs.Float64("disagree", pool.DefaultDisagreePts, "flag a spread above this many percentage points")
	if err := fs.Parse(args); err != nil {
		return err
	}
	team := fs.Args()
	if len(team) == 0 {
		team = []string{"agent:scout=62%", "agent:analyst=55%", "agent:skeptic=30%", "person:dana=45%"}
	}

	// Read who=probability. odds.ReadProbabilityText applies the tools'
	// rule: below 1 is a fraction, from 1 to 100 a percent.
	var forecasts []pool.Forecast
	for _, arg := range team {
		who, text, ok := strings.Cut(arg, "=")
		if !ok {
			return fmt.Errorf("%q: write who=probability, such as agent:scout=62%%", arg)
		}
		p, _, err := odds.ReadProbabilityText(text)
		if err != nil {
			return fmt.Errorf("%q: %w", arg, err)
		}
		// Weight is nil: every forecast counts the same. Set it (for
		// example new(2.0)) to trust one forecaster more.
		forecasts = append(forecasts, pool.Forecast{Who: who, P: p})
	}

	// The zero Options pool by the geometric mean of odds; DisagreePts is a
	// pointer so that nil can mean the default of 20 points.
	res, err := pool.Combine(forecasts, pool.Options{DisagreePts: disagree})
	if err != nil {
		// A *pool.ForecastError names the forecast by its position.
		return err
	}

	fmt.Fprintln(out, "Forecasts")
	for _, f := range forecasts {
		fmt.Fprintf(out, "  %-16s %5.1f%%\n", f.Who, 100*f.P)
	}
	fmt.Fprintln(out, "\nPooled")
	fmt.Fprintf(out, "  %-16s %5.1f%%  <- the lead result (%s)\n", "geometric mean", 100*res.GeoOdds, res.Method)
	fmt.Fprintf(out, "  %-16s %5.1f%%\n", "mean", 100*res.Mean)
	fmt.Fprintf(out, "  %-16s %5.1f%%\n", "median", 100*res.Median)

	fmt.Fprintf(out, "\nSpread %.1f points (%.1f%% to %.1f%%), threshold %.0f points: ",
		res.SpreadPts, 100*res.Low, 100*res.High, res.DisagreePts)
	if res.Disagree {
		// A wide spread means the team does not share its evidence yet:
		// talk before acting on the pooled number.
		fmt.Fprintln(out, "DISAGREEMENT, compare evidence before relying on the pool")
	} else {
		fmt.Fprintln(out, "the team roughly agrees")
	}
	for _, n := range res.Notes {
		fmt.Fprintln(out, "note:", n)
	}
	return nil
}
