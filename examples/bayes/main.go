// Command bayes updates a forecast with pieces of evidence, one at a time,
// and prints every step of Bayes' rule in odds form:
//
//	posterior odds = prior odds × likelihood ratio
//
// Usage:
//
//	go run ./examples/bayes                      # a worked example
//	go run ./examples/bayes -prior 20% "leak=3" "missed date=0.7/0.35"
//
// A piece of evidence is label=LR (the likelihood ratio, how many times
// likelier the evidence is if the answer is yes than if it is no) or
// label=P(E|yes)/P(E|no). It uses [bayes.Update], which reports each step.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/predictions-md/predictions/bayes"
	"github.com/predictions-md/predictions/odds"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bayes:", err)
		os.Exit(1)
	}
}

// run is the whole program; main only reports its error, so a test can call
// run with its own arguments and read what it prints.
func run(_ context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bayes", flag.ContinueOnError)
	priorText := fs.String("prior", "30%", "the forecast before the evidence, such as 30% or 0.3 (start from a base rate)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	prior, _, err := odds.ReadProbabilityText(*priorText)
	if err != nil {
		return fmt.Errorf("-prior: %w", err)
	}
	pieces := fs.Args()
	if len(pieces) == 0 {
		// Will the product launch slip past the quarter? Base rate 30%.
		pieces = []string{
			"two of three vendors missed their last dates=0.6/0.2", // seen in 60% of slips, 20% of on-time launches
			"the team hired a release manager=0.5",                 // halves the odds
			"launch event venue booked=0.3/0.6",
		}
	}
	var evidence []bayes.Evidence
	for _, piece := range pieces {
		e, err := parseEvidence(piece)
		if err != nil {
			return err
		}
		evidence = append(evidence, e)
	}

	res, err := bayes.Update(prior, evidence)
	if err != nil {
		// An *bayes.EvidenceError names the piece (Index, Label) and the
		// field at fault; errors.Is(err, bayes.ErrRange) and the like work.
		return err
	}

	fmt.Fprintf(out, "Prior %.1f%% (odds %s)\n", 100*res.Prior, num(&res.PriorOdds))
	for _, s := range res.Steps {
		fmt.Fprintf(out, "\nStep %d: %s\n", s.Index+1, s.Label)
		// LR and the odds are pointers: nil means infinite (evidence that
		// rules an answer out), which float64 JSON cannot carry.
		from := "given"
		if s.From == bayes.FromPIf {
			from = "from P(E|yes)/P(E|no)"
		}
		fmt.Fprintf(out, "  likelihood ratio %s (%s)\n", num(s.LR), from)
		fmt.Fprintf(out, "  odds %s × %s = %s\n", num(s.PriorOdds), num(s.LR), num(s.PosteriorOdds))
		fmt.Fprintf(out, "  %.1f%% -> %.1f%% (%+.1f points)\n", 100*s.Prior, 100*s.Posterior, s.ChangePts)
	}
	fmt.Fprintf(out, "\nPosterior %.1f%% (%+.1f points; all evidence together: likelihood ratio %s)\n",
		100*res.Posterior, res.ChangePts, num(res.TotalLR))
	for _, n := range res.Notes {
		fmt.Fprintln(out, "note:", n)
	}
	return nil
}

// parseEvidence reads label=LR or label=P(E|yes)/P(E|no).
func parseEvidence(s string) (bayes.Evidence, error) {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return bayes.Evidence{}, fmt.Errorf("%q: write label=LR (such as leak=3) or label=P(E|yes)/P(E|no) (such as leak=0.6/0.2)", s)
	}
	label, value := s[:i], s[i+1:]
	if yes, no, ok := strings.Cut(value, "/"); ok {
		pYes, err1 := strconv.ParseFloat(yes, 64)
		pNo, err2 := strconv.ParseFloat(no, 64)
		if err1 != nil || err2 != nil {
			return bayes.Evidence{}, fmt.Errorf("%q: P(E|yes)/P(E|no) must be two numbers from 0 to 1, such as 0.6/0.2", s)
		}
		return bayes.Pair(label, pYes, pNo), nil
	}
	lr, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return bayes.Evidence{}, fmt.Errorf("%q: the likelihood ratio must be a number, such as 3 or 0.5", s)
	}
	return bayes.Ratio(label, lr), nil
}

// num writes an optional number; nil means infinite.
func num(v *float64) string {
	if v == nil {
		return "∞"
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}
