package evaluate

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes the report as plain text: what was evaluated, a table
// of each pool's mean scores, and tables of its gains over the median and
// over recency with their intervals. Lines have no trailing spaces. It
// returns the first error of w.
func (r *Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	r.writeText(&b)
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		out.WriteString(strings.TrimRight(line, " \n"))
		out.WriteString("\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func (r *Report) writeText(w io.Writer) {
	day := func(t time.Time) string { return t.UTC().Format(time.DateOnly) }
	fmt.Fprintf(w, "Evaluated %d of %d question(s) replayed (resolved yes or no, closing %s to %s): %d forecast(s).\n",
		r.Evaluated, r.Questions, day(r.From), day(r.To), r.Forecasts)
	if r.WarmupQuestions > 0 {
		fmt.Fprintf(w, "The first %d by close (warmup %v) only fed the forecasters' skills.\n", r.WarmupQuestions, r.Warmup)
	}
	s := r.Skipped
	fmt.Fprintf(w, "Left out: %d void, %d open, %d without outcome, %d without a close, %d without forecasts before the close;\n", s.Void, s.Open, s.NoOutcome, s.NoClose, s.NoForecasts)
	fmt.Fprintf(w, "%d forecast(s) made at or after the close, %d unreadable forecast line(s).\n", s.Late, s.Unreadable)

	fmt.Fprintln(w, "\nMean score of each pool's community forecast (log: ln of the probability given to the outcome, higher is better; Brier: lower is better)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "pool\tlog close\tlog time-avg\tBrier close\tBrier time-avg\t")
	for _, p := range r.Pools {
		sc := p.Scores
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t\n", p.Method, sc.LogClose, sc.LogAverage, sc.BrierClose, sc.BrierAverage)
	}
	tw.Flush()

	for _, ref := range []struct {
		name string
		of   func(PoolResult) Gains
	}{
		{"median", func(p PoolResult) Gains { return p.OverMedian }},
		{"recency", func(p PoolResult) Gains { return p.OverRecency }},
	} {
		fmt.Fprintf(w, "\nGain over %s, %% of its mean score (positive is better; paired bootstrap 95%% interval, %d resamples, seed %d)\n", ref.name, r.Resamples, r.Seed)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "pool\tlog close\tlog time-avg\tBrier close\tBrier time-avg\t")
		for _, p := range r.Pools {
			g := ref.of(p)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", p.Method, g.LogClose, g.LogAverage, g.BrierClose, g.BrierAverage)
		}
		tw.Flush()
	}
}

// String writes the gain as +7.70 [+5.10, +10.30]; nil is "-".
func (g *Gain) String() string {
	if g == nil {
		return "-"
	}
	return fmt.Sprintf("%s [%s, %s]", signed(g.Percent), signed(g.Low), signed(g.High))
}

// signed writes x with two decimals and its sign, 0 as +0.00.
func signed(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	if !strings.HasPrefix(s, "-") || s == "-0.00" {
		s = "+" + strings.TrimPrefix(s, "-")
	}
	return s
}
