package loadbench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteTable writes the report as Markdown: the machine, the scenario
// table and the memory table.
func (r *Report) WriteTable(w io.Writer) error {
	m := r.Machine
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %d CPUs, %s, %s, %s. Load average (1 min) %.2f at the start, %.2f at the end.\n",
		m.CPUs, m.CPUModel, m.GoVersion, m.OS, m.LoadStart, m.LoadEnd)
	fmt.Fprintf(&b, "Each scenario: %d rounds of %s taken in turn with its baseline, after a warm-up; wrk with %d connections from %d threads, closed loop (each connection sends its next request when the previous one has answered). p50 and p99 are the medians of the rounds'.\n",
		m.Rounds, time.Duration(m.DurationS*float64(time.Second)), m.Conns, m.Threads)
	for _, s := range r.Seeding {
		fmt.Fprintf(&b, "Seeding %s.\n", s)
	}
	b.WriteString("\n| scenario | conns | req/s | p50 | p99 | server CPU/req | errors | baseline | ratio (rounds) | goal | met | load |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|---|--:|---|---|--:|\n")
	for _, row := range r.Rows {
		errs := strconv.FormatUint(row.Errors, 10)
		if len(row.ErrorText) > 0 {
			errs += " (" + strings.Join(row.ErrorText, "; ") + ")"
		}
		unit := ""
		if strings.HasPrefix(row.Scenario, rawInsertPfx) {
			unit = " rows"
		}
		cpu := "—"
		if row.CPUPerRequestUS > 0 {
			cpu = fmt.Sprintf("%.0f µs", row.CPUPerRequestUS)
		}
		fmt.Fprintf(&b, "| %s | %d | %s%s | %s ms | %s ms | %s | %s | %s | %s | %s | %s | %.2f |\n",
			row.Scenario, row.Conns, thousands(row.RPS), unit, msText(row.P50MS), msText(row.P99MS), cpu, errs,
			dash(row.Baseline), ratioText(row.Ratio)+roundsText(row.RoundRatios), dash(row.Goal), metText(row.Met), row.Load1)
	}
	if len(r.Memory) > 0 {
		b.WriteString("\n| server | peak VmRSS sampled | VmHWM | VmRSS after | goal | met |\n|---|--:|--:|--:|---|---|\n")
		for _, mm := range r.Memory {
			goal := "—"
			if mm.LimitMB > 0 {
				goal = fmt.Sprintf("< %.0f MB", mm.LimitMB)
			}
			fmt.Fprintf(&b, "| %s | %.1f MB | %.1f MB | %.1f MB | %s | %s |\n",
				mm.Process, mm.PeakRSSMB, mm.HWMMB, mm.AfterMB, goal, metText(mm.Met))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// Failed lists the goals not met, one line each.
func (r *Report) Failed() []string {
	var out []string
	for _, row := range r.Rows {
		if row.Met != nil && !*row.Met {
			out = append(out, fmt.Sprintf("%s: %s (ratio %s, p99 %s ms, %d errors)", row.Scenario, row.Goal, ratioText(row.Ratio), msText(row.P99MS), row.Errors))
		}
	}
	for _, m := range r.Memory {
		if m.Met != nil && !*m.Met {
			out = append(out, fmt.Sprintf("%s: RSS %.1f MB, goal < %.0f MB", m.Process, max(m.HWMMB, m.PeakRSSMB), m.LimitMB))
		}
	}
	return out
}

// thousands writes x rounded, with comma separators: 12,345.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func ms(d time.Duration) string { return msText(msf(d)) }

// msText writes milliseconds with three significant digits at most.
func msText(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func ratioText(r float64) string {
	if r == 0 {
		return "—"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "×"
}

// roundsText writes the ratios of the rounds: " (0.51, 0.55, 0.53)".
func roundsText(rs []float64) string {
	if len(rs) == 0 {
		return ""
	}
	var parts []string
	for _, r := range rs {
		parts = append(parts, strconv.FormatFloat(r, 'f', 2, 64))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func metText(m *bool) string {
	switch {
	case m == nil:
		return "—"
	case *m:
		return "met"
	}
	return "**not met**"
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
