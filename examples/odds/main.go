// Command odds converts chances between the notations people and
// bookmakers use, then reads a bookmaker's margin from the odds of a
// market with a favourite and two long shots and removes it two ways.
//
//	go run ./examples/odds                       # the default values and book
//	go run ./examples/odds +150 3/2 62% 1.91     # your own values
//	go run ./examples/odds -book 2.10,3.40,3.60  # your own book (decimal odds, one per outcome)
//
// It uses only the odds package: [odds.Parse] reads any notation,
// [odds.Value.Formats] writes all of them, and [odds.Implied] turns decimal
// odds into probabilities that add up to 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/predictions-md/predictions/odds"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "odds:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only reports its error, so a test can call
// run with its own arguments and read what it prints.
func run(_ context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("odds", flag.ContinueOnError)
	book := fs.String("book", "1.40,4.50,8.00", "decimal odds of mutually exclusive outcomes, one of which must happen, comma-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// Read the book first, so that a bad -book fails before any output.
	var decimals []float64
	for _, s := range strings.Split(*book, ",") {
		v, err := odds.Parse(s, odds.Decimal)
		if err != nil {
			return fmt.Errorf("-book: %w", err)
		}
		decimals = append(decimals, v.Decimal())
	}

	values := fs.Args()
	if len(values) == 0 {
		values = []string{"+150", "3/2", "1.91", "62%", "evens"}
	}

	// 1. Conversions. odds.Auto guesses the notation from the shape of the
	// text ("+150" is American, "3/2" fractional, "1.91" decimal) and says
	// which one it used in ReadAs.
	fmt.Fprintln(out, "Conversions")
	for _, s := range values {
		v, err := odds.Parse(s, odds.Auto)
		if err != nil {
			// Every error names the input and says how to fix it.
			// errors.Is tells the kinds apart: here a probability of 0 or 1.
			if errors.Is(err, odds.ErrCertain) {
				fmt.Fprintf(out, "  %-8s certain: odds of 0%% or 100%% are infinite\n", s)
				continue
			}
			return err
		}
		f := v.Formats()
		fmt.Fprintf(out, "  %-8s read as %-11s = %s, decimal %s, fractional %s, American %s, odds for %s\n",
			s, v.ReadAs, f.PercentText, f.DecimalText, f.Fractional, f.AmericanText, f.OddsFor)
	}

	// 2. A bookmaker's margin. The raw implied probabilities (1/decimal)
	// add up to more than 100%; the excess is the overround, and the hold
	// is the share of the stakes the bookmaker keeps on a balanced book.
	// Multiplicative removes it in proportion; Shin's method assumes the
	// margin guards against insiders, so it takes more of it from the long
	// shots.
	fmt.Fprintf(out, "\nBook %s (decimal odds)\n", strings.Join(strings.Split(*book, ","), ", "))
	for _, m := range []odds.Method{odds.Multiplicative, odds.Shin} {
		b, err := odds.Implied(decimals, m)
		if err != nil {
			return err
		}
		if m == odds.Multiplicative {
			fmt.Fprintf(out, "  %-15s %s   sum %.1f%%: overround %.1f%%, hold %.1f%%\n",
				"raw 1/odds", percents(b.Raw), 100*b.Sum, b.OverroundPct, b.HoldPct)
		}
		fmt.Fprintf(out, "  %-15s %s", m, percents(b.Probabilities))
		if m == odds.Shin {
			fmt.Fprintf(out, "   insider share z = %.1f%%", 100*b.Z)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// percents writes probabilities as percentages with one decimal.
func percents(ps []float64) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%5.1f%%", 100*p)
	}
	return strings.Join(s, " ")
}
