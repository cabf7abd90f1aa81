// Command score reads a Markdown forecast file, scores the forecasts of its
// resolved questions and prints each forecaster's scores and the team's
// calibration table.
//
//	go run ./examples/score                       # the bundled forecasts.md
//	go run ./examples/score -bins 10 my-team.md   # your own file
//
// It uses [forecastfile.Parse] to read the file and [forecastfile.File.Report]
// to check and score it; the scores are a [scoring.Result], the same thing
// [scoring.Score] returns for a plain slice of forecasts.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/scoring"
)

// sample is the bundled example file, used when no path is given.
//
//go:embed forecasts.md
var sample []byte

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "score:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only reports its error, so a test can call
// run with its own arguments and read what it prints.
func run(_ context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	bins := fs.Int("bins", 5, "number of calibration bins (equal widths)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	name, text := "forecasts.md (bundled sample)", sample
	switch fs.NArg() {
	case 0:
	case 1:
		name = fs.Arg(0)
		var err error
		if text, err = os.ReadFile(name); err != nil {
			return err
		}
	default:
		return fmt.Errorf("give at most one forecast file")
	}

	// Parse only fails on text that is not UTF-8: problems in the content
	// become diagnostics, which Report lists as findings and warnings.
	f, err := forecastfile.Parse(text)
	if err != nil {
		return err
	}
	rep, err := f.Report(forecastfile.Options{Bins: *bins})
	if err != nil {
		return err // a bad Bins: an error wrapping scoring.ErrBins
	}
	fmt.Fprintf(out, "%s: %s\n", name, rep.Summary)
	for _, d := range rep.Findings {
		fmt.Fprintf(out, "  line %d: rule %d: %s\n", d.Line, d.Rule, d.Message)
	}
	if rep.Scores == nil {
		fmt.Fprintln(out, "No resolved question has forecasts to score.")
		return nil
	}

	printScores(out, rep.Scores)
	return nil
}

// printScores prints a scoring.Result: the scores of each forecaster and
// of everyone, the calibration table and the Murphy decomposition.
func printScores(out io.Writer, res *scoring.Result) {
	// The Brier score is the mean squared distance between the forecast and
	// the outcome (0 is perfect, 0.25 is what always saying 50% earns); the
	// skill score compares it with always forecasting the base rate.
	fmt.Fprintln(out, "\nScores (lower Brier is better; skill above 0 beats the base rate)")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "forecaster\tforecasts\tBrier\tskill")
	for _, fc := range res.Forecasters {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\n", fc.Who, fc.N, fc.Brier, optional(fc.BrierSkill))
	}
	all := res.Overall
	fmt.Fprintf(tw, "all\t%d\t%.3f\t%s\n", all.N, all.Brier, optional(all.BrierSkill))
	tw.Flush()

	// Calibration: of the forecasts around 70%, about 70% should come true.
	// A row whose observed frequency is far from its mean forecast shows
	// over- or underconfidence.
	fmt.Fprintf(out, "\nCalibration (all forecasters, %d bins)\n", res.Bins)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "forecast range\tforecasts\tmean forecast\tcame true\treading")
	for _, b := range all.Calibration {
		fmt.Fprintf(tw, "%.0f–%.0f%%\t%d\t%s\t%s\t%s\n", 100*b.Lo, 100*b.Hi, b.Count,
			percent(b.MeanForecast), percent(b.ObservedFrequency), verdict(b))
	}
	tw.Flush()

	// The Murphy decomposition splits the Brier score: reliability is the
	// calibration error (lower is better), resolution how well the
	// forecasts separate yes from no (higher is better).
	m := all.Murphy
	fmt.Fprintf(out, "\nReliability %.4f, resolution %.4f, uncertainty %.4f\n", m.Reliability, m.Resolution, m.Uncertainty)
}

// verdict reads one row of the calibration table. Ten points either way is
// a rough line for a small sample, not a statistical test.
func verdict(b scoring.Bin) string {
	if b.Count == 0 {
		return "-"
	}
	switch gap := 100 * (*b.ObservedFrequency - *b.MeanForecast); {
	case gap > 10:
		return "forecasts too low"
	case gap < -10:
		return "forecasts too high"
	}
	return "about right"
}

// optional writes a score that may be undefined (nil).
func optional(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}

// percent writes a probability that may be missing (an empty bin).
func percent(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100**v)
}
