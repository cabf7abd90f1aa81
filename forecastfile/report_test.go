package forecastfile

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/scoring"
)

func TestReport(t *testing.T) {
	in := "# Will it ship?\n- id: ship\n- resolves: tag published\n- resolve_by: 2026-02-15\n- status: resolved\n- outcome: yes\n" +
		"## Forecasts\n" +
		"- 2026-01-10 · agent:a · 20%\n" +
		"- 2026-01-12 · agent:b · 60%\n" +
		"- 2026-02-01 · agent:a · 80% · latest of a\n" +
		"- 2026-02-01 09:00 · agent:b · 70%\n" +
		"- 2026-02-20 · agent:c · 90% · after resolve_by\n" +
		"- 2026-02-02 · agent:d\n" // unreadable: left out
	f, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Report(pinned)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || len(r.Findings) != 1 || r.Findings[0].Rule != 2 {
		t.Errorf("findings = %v, want one rule-2 finding", r.Findings)
	}
	if len(r.Items) != 1 {
		t.Fatalf("got %d items, want 1", len(r.Items))
	}
	it := r.Items[0]
	var whos []string
	var ps []float64
	for _, e := range it.Latest {
		whos = append(whos, e.Who)
		ps = append(ps, e.P)
	}
	approx := cmpopts.EquateApprox(0, 1e-12)
	if diff := cmp.Diff([]string{"agent:a", "agent:b", "agent:c"}, whos); diff != "" {
		t.Errorf("latest forecasters (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.8, 0.7, 0.9}, ps, approx); diff != "" {
		t.Errorf("latest probabilities (-want +got):\n%s", diff)
	}
	// Geometric mean of odds: (4 × 7/3 × 9)^(1/3) = 84^(1/3).
	odds := math.Cbrt(4.0 * 7.0 / 3.0 * 9.0)
	if want := odds / (1 + odds); it.Combined == nil || math.Abs(it.Combined.P-want) > 1e-12 {
		t.Errorf("combined = %+v, want p %v", it.Combined, want)
	}
	// Scored: the latest forecast on or before resolve_by of a and b; c only
	// forecast after it. Brier = (p-1)², log = ln p.
	//
	// Time-averaged over the life assumed: open at the earliest forecast
	// (Jan 10), close at the end of resolve_by (Feb 16 00:00): 37 days.
	// a: 20% for 22 days, 80% for 15. b: 60% from Jan 12 (2 days after the
	// open) for 20 days minus nothing, 70% from Feb 1 09:00 (14.625 days).
	// Peer, a against b (N = 2, so 100·2·ln(p_a/√(p_a·p_b))): 20 days of
	// 20% v 60%, 0.375 days of 80% v 60%, 14.625 days of 80% v 70%.
	const T = 37.0
	baseline := func(q float64) float64 { return 100 * math.Log2(2*q) }
	peer := func(pa, pb float64) float64 { return 200 * math.Log(pa/math.Sqrt(pa*pb)) }
	aPeer := (20*peer(0.2, 0.6) + 0.375*peer(0.8, 0.6) + 14.625*peer(0.8, 0.7)) / T
	var got []ScoredEntry
	got = append(got, it.Scored...)
	want := []ScoredEntry{
		{Entry: Entry{Who: "agent:a", P: 0.8, Date: Date{2026, 2, 1}, Line: 10, Note: "latest of a"}, Brier: 0.04, LogScore: math.Log(0.8),
			BaselineScore: (22*baseline(0.2) + 15*baseline(0.8)) / T, PeerScore: aPeer, Coverage: 1},
		{Entry: Entry{Who: "agent:b", P: 0.7, Date: Date{2026, 2, 1}, Time: "09:00", Line: 11}, Brier: 0.09, LogScore: math.Log(0.7),
			BaselineScore: (20.375*baseline(0.6) + 14.625*baseline(0.7)) / T, PeerScore: -aPeer, Coverage: 35 / T},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("scored (-want +got):\n%s", diff)
	}
	if r.Scores == nil || r.Scores.Overall.N != 2 || math.Abs(r.Scores.Overall.Brier-0.065) > 1e-12 {
		t.Errorf("overall scores = %+v, want 2 forecasts with Brier 0.065", r.Scores)
	}
	wantNotes := []string{
		"question ship: times assumed for the time-averaged scores: opens_at 2026-01-10 00:00 (the earliest forecast); close_at 2026-02-16 00:00 (the end of resolve_by 2026-02-15, UTC); closed_at 2026-02-16 00:00 (the scheduled close)",
		"question ship: 1 forecaster(s) forecast only after resolve_by 2026-02-15 and are not scored",
	}
	if diff := cmp.Diff(wantNotes, r.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{KeyOpensAt, KeyCloseAt, KeyClosedAt}, it.Assumed); diff != "" {
		t.Errorf("assumed (-want +got):\n%s", diff)
	}
	// The report serialises without NaN or Inf.
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("json.Marshal(report): %v", err)
	}
}

func TestReportBins(t *testing.T) {
	f, err := Parse([]byte(q(okKeys)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Report(Options{Bins: -1}); !errors.Is(err, scoring.ErrBins) {
		t.Errorf("Report(Bins: -1) error = %v, want scoring.ErrBins", err)
	}
	r, err := f.Report(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Scores != nil || r.Items[0].Combined != nil {
		t.Errorf("a question without forecasts has scores %v or combined %v", r.Scores, r.Items[0].Combined)
	}
}
