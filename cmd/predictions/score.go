package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/scoring"
)

// runScore implements `predictions score [--bins N] [--json] FILE`: the
// per-forecaster scores of the resolved questions and the calibration table.
func runScore(_ context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	bins := fs.Int("bins", scoring.DefaultBins, "number of calibration bins (2 to 20)")
	asJSON := fs.Bool("json", false, "print the whole report as JSON")
	today := fs.String("today", "", "date that counts as today, YYYY-MM-DD (default: today in UTC)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: predictions score [--bins N] [--json] [--today YYYY-MM-DD] FILE")
		fmt.Fprintln(fs.Output(), "\nScores each forecaster's latest forecast on the resolved questions of a")
		fmt.Fprintln(fs.Output(), "forecast file, prints each question's time-averaged baseline and peer scores")
		fmt.Fprintln(fs.Output(), "(Metaculus's) and the calibration table. A FILE of - reads standard input.")
		fs.PrintDefaults()
	}
	opt, files, code := commonFlags(fs, args, today)
	if code >= 0 {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintln(env.stderr, "predictions score: give exactly one FILE")
		return 2
	}
	if *bins < 2 || *bins > 20 {
		fmt.Fprintf(env.stderr, "predictions score: --bins %d is outside 2 to 20; try --bins 10\n", *bins)
		return 2
	}
	opt.Bins = *bins
	f, err := readForecastFile(env, files[0])
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions score: %v\n", err)
		return 2
	}
	rep, err := f.Report(opt)
	if err != nil {
		fmt.Fprintf(env.stderr, "predictions score: %v\n", err)
		return 2
	}
	if *asJSON {
		if err := writeJSON(env.stdout, rep); err != nil {
			fmt.Fprintf(env.stderr, "predictions score: %v\n", err)
			return 2
		}
		return 0
	}
	if n := len(rep.Findings); n > 0 {
		fmt.Fprintf(env.stderr, "predictions score: %s has %d finding(s); run predictions check %s\n", files[0], n, files[0])
	}
	writeScores(env.stdout, displayName(files[0]), rep)
	return 0
}

// writeScores prints the scores of rep as aligned text tables, without
// trailing spaces.
func writeScores(out io.Writer, name string, rep *forecastfile.Report) {
	var buf bytes.Buffer
	writeScoreTables(&buf, name, rep)
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		io.WriteString(out, strings.TrimRight(line, " \n"))
		if strings.HasSuffix(line, "\n") {
			io.WriteString(out, "\n")
		}
	}
}

func writeScoreTables(w io.Writer, name string, rep *forecastfile.Report) {
	fmt.Fprintf(w, "%s: %s\n", name, rep.Summary)
	if rep.Scores == nil {
		fmt.Fprintln(w, "\nNo resolved question has forecasts to score.")
		return
	}
	fmt.Fprintln(w, "\nScores (each forecaster's latest forecast before the question closed, on or before resolve_by unless close_at or closed_at says otherwise; Brier: lower is better; log: higher is better)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "forecaster\tforecasts\tyes\tBrier\tlog score\tBrier skill\t")
	row := func(who string, s scoring.Summary) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%.4f\t%s\t\n", who, s.N, s.Yes, s.Brier, s.LogScore, scoreOptional(s.BrierSkill, 3))
	}
	for _, fc := range rep.Scores.Forecasters {
		row(fc.Who, fc.Summary)
	}
	row("all", rep.Scores.Overall)
	tw.Flush()
	writeTimeScores(w, rep)

	fmt.Fprintf(w, "\nCalibration (all forecasters, %d bins)\n", rep.Scores.Bins)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "range\tforecasts\tyes\tmean forecast\tobserved\t")
	for _, b := range rep.Scores.Overall.Calibration {
		fmt.Fprintf(tw, "%s–%s%%\t%d\t%d\t%s\t%s\t\n", scorePct(b.Lo), scorePct(b.Hi), b.Count, b.Yes, scoreOptionalPct(b.MeanForecast), scoreOptionalPct(b.ObservedFrequency))
	}
	tw.Flush()
	for _, n := range append(rep.Notes, rep.Scores.Overall.Notes...) {
		fmt.Fprintln(w, "note:", n)
	}
}

// writeTimeScores prints, for each question resolved yes or no, each
// forecaster's time-averaged baseline and peer scores and coverage.
func writeTimeScores(w io.Writer, rep *forecastfile.Report) {
	fmt.Fprintln(w, "\nTime-averaged scores by question (Metaculus's baseline and peer scores: higher is better; coverage: share of the question's life with a forecast standing; docs/SCORES.md)")
	for _, it := range rep.Items {
		if len(it.Scored) == 0 {
			continue
		}
		life := ""
		if !it.OpensAt.IsZero() && !it.ClosedAt.IsZero() {
			life = fmt.Sprintf(", open %s to %s UTC", forecastfile.FormatTime(it.OpensAt), forecastfile.FormatTime(it.ClosedAt))
			if it.ClosedAt.Before(it.CloseAt) {
				life += fmt.Sprintf(", closed early (scheduled %s)", forecastfile.FormatTime(it.CloseAt))
			}
			if len(it.Assumed) > 0 {
				life += "; assumed: " + strings.Join(it.Assumed, ", ")
			}
		}
		fmt.Fprintf(w, "\n%s (%s%s)\n", it.ID, it.Outcome, life)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "forecaster\tbaseline\tpeer\tcoverage\t")
		for _, e := range it.Scored {
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t\n", e.Who, e.BaselineScore, e.PeerScore, coverage(e.Coverage))
		}
		tw.Flush()
	}
}

func scorePct(p float64) string { return strconv.FormatFloat(p*100, 'f', -1, 64) }

func scoreOptional(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

func scoreOptionalPct(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v*100, 'f', 1, 64) + "%"
}
