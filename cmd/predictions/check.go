package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/predictions-md/predictions/forecastfile"
)

// checkFile is one file's result in `predictions check --json`.
type checkFile struct {
	File     string                    `json:"file"`
	OK       bool                      `json:"ok"`
	Error    string                    `json:"error,omitempty"`
	Findings []forecastfile.Diagnostic `json:"findings"`
	Warnings []forecastfile.Diagnostic `json:"warnings"`
	// Scored lists the questions resolved yes or no, with each
	// forecaster's scores. Never nil.
	Scored []checkScored `json:"scored"`
}

// checkScored is a resolved question's scores in `predictions check
// --json`: the life the time-averaged scores use (Assumed lists the keys
// the file does not give) and each forecaster's scores.
type checkScored struct {
	ID       string                     `json:"id"`
	Line     int                        `json:"line"`
	Outcome  forecastfile.Outcome       `json:"outcome"`
	OpensAt  time.Time                  `json:"opens_at,omitzero"`
	CloseAt  time.Time                  `json:"close_at,omitzero"`
	ClosedAt time.Time                  `json:"closed_at,omitzero"`
	Assumed  []string                   `json:"assumed,omitempty"`
	Scores   []forecastfile.ScoredEntry `json:"scores"`
}

// checkOutput is the JSON document `predictions check --json` prints.
type checkOutput struct {
	Files    []checkFile `json:"files"`
	Findings int         `json:"findings"`
	Warnings int         `json:"warnings"`
}

// runCheck implements `predictions check [--json] [--today DATE] FILE...`.
// Exit status: 0 clean or warnings only, 1 findings, 2 unreadable input or
// bad usage.
func runCheck(_ context.Context, env *cmdEnv, args []string) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	asJSON := fs.Bool("json", false, "print the results as JSON")
	today := fs.String("today", "", "date that counts as today for overdue questions, YYYY-MM-DD (default: today in UTC)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: predictions check [--json] [--today YYYY-MM-DD] FILE...")
		fmt.Fprintln(fs.Output(), "\nChecks forecast files against the format. Prints FILE:LINE: rule N: message,")
		fmt.Fprintln(fs.Output(), "then for each forecaster on a resolved question FILE:LINE: score ID (OUTCOME)")
		fmt.Fprintln(fs.Output(), "WHO: baseline B, peer P, coverage C% (Metaculus's time-averaged scores);")
		fmt.Fprintln(fs.Output(), "exit status 1 when there are findings, 2 when a file cannot be read, 0 otherwise.")
		fmt.Fprintln(fs.Output(), "A FILE of - reads standard input.")
		fs.PrintDefaults()
	}
	opt, files, code := commonFlags(fs, args, today)
	if code >= 0 {
		return code
	}
	out := checkOutput{Files: []checkFile{}}
	exit := 0
	for _, name := range files {
		res := checkFile{File: displayName(name), Findings: []forecastfile.Diagnostic{}, Warnings: []forecastfile.Diagnostic{}, Scored: []checkScored{}}
		f, err := readForecastFile(env, name)
		if err != nil {
			res.Error = err.Error()
			out.Files = append(out.Files, res)
			if !*asJSON {
				fmt.Fprintf(env.stderr, "predictions check: %v\n", err)
			}
			exit = 2
			continue
		}
		for _, d := range forecastfile.Check(f, opt) {
			if d.Severity == forecastfile.Finding {
				res.Findings = append(res.Findings, d)
			} else {
				res.Warnings = append(res.Warnings, d)
			}
			if !*asJSON {
				sev := ""
				if d.Severity == forecastfile.Warning {
					sev = "warning: "
				}
				fmt.Fprintf(env.stdout, "%s:%d: rule %d: %s%s\n", displayName(name), d.Line, d.Rule, sev, d.Message)
			}
		}
		rep, err := f.Report(opt)
		if err != nil {
			fmt.Fprintf(env.stderr, "predictions check: %v\n", err)
			return 2
		}
		for _, it := range rep.Items {
			if len(it.Scored) == 0 {
				continue
			}
			res.Scored = append(res.Scored, checkScored{ID: it.ID, Line: it.Line, Outcome: it.Outcome,
				OpensAt: it.OpensAt, CloseAt: it.CloseAt, ClosedAt: it.ClosedAt, Assumed: it.Assumed, Scores: it.Scored})
			if *asJSON {
				continue
			}
			for _, e := range it.Scored {
				fmt.Fprintf(env.stdout, "%s:%d: score %s (%s) %s: baseline %.2f, peer %.2f, coverage %s\n",
					displayName(name), it.Line, it.ID, it.Outcome, e.Who, e.BaselineScore, e.PeerScore, coverage(e.Coverage))
			}
		}
		res.OK = len(res.Findings) == 0
		out.Findings += len(res.Findings)
		out.Warnings += len(res.Warnings)
		if len(res.Findings) > 0 && exit == 0 {
			exit = 1
		}
		out.Files = append(out.Files, res)
	}
	if *asJSON {
		if err := writeJSON(env.stdout, out); err != nil {
			fmt.Fprintf(env.stderr, "predictions check: %v\n", err)
			return 2
		}
	} else if out.Findings+out.Warnings > 0 {
		fmt.Fprintf(env.stderr, "%d finding(s), %d warning(s) in %d file(s)\n", out.Findings, out.Warnings, len(files))
	}
	return exit
}

// coverage writes a share as a percent with one decimal.
func coverage(c float64) string { return strconv.FormatFloat(100*c, 'f', 1, 64) + "%" }

// commonFlags parses the flags of check and score. It returns code >= 0
// when the command must stop with that status.
func commonFlags(fs *flag.FlagSet, args []string, today *string) (forecastfile.Options, []string, int) {
	var opt forecastfile.Options
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return opt, nil, 0
		}
		return opt, nil, 2
	}
	if *today != "" {
		d, err := forecastfile.ParseDate(*today)
		if err != nil {
			fmt.Fprintf(fs.Output(), "predictions %s: --today: %v\n", fs.Name(), err)
			return opt, nil, 2
		}
		t := time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC)
		opt.Now = func() time.Time { return t }
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return opt, nil, 2
	}
	return opt, fs.Args(), -1
}

// displayName is how output names a file: standard input is <stdin>.
func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// writeJSON writes v as indented JSON, as the --json flags print.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// readForecastFile reads and parses a file, or standard input for "-".
func readForecastFile(env *cmdEnv, name string) (*forecastfile.File, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(env.stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	f, err := forecastfile.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", displayName(name), err)
	}
	return f, nil
}
