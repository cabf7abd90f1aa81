package forecastfile

import (
	"errors"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseTime(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in            string
		want          time.Time
		wantCanonical string // "" for an error
	}{
		{"2026-02-10 17:05", utc(2026, 2, 10, 17, 5, 0, 0), "2026-02-10 17:05"},
		{"2026-02-10 17:05:00", utc(2026, 2, 10, 17, 5, 0, 0), "2026-02-10 17:05"},
		{"2026-02-10 17:05:09", utc(2026, 2, 10, 17, 5, 9, 0), "2026-02-10 17:05:09"},
		{"2026-02-10 17:05:09.000", utc(2026, 2, 10, 17, 5, 9, 0), "2026-02-10 17:05:09"},
		{"2026-02-10 17:05:09.5", utc(2026, 2, 10, 17, 5, 9, 500000000), "2026-02-10 17:05:09.5"},
		{"2026-02-10 17:05:09.123456", utc(2026, 2, 10, 17, 5, 9, 123456000), "2026-02-10 17:05:09.123456"},
		{"2026-02-10 00:00:00.000001", utc(2026, 2, 10, 0, 0, 0, 1000), "2026-02-10 00:00:00.000001"},
		{"2026-02-10", utc(2026, 2, 10, 0, 0, 0, 0), "2026-02-10"},
		{"2026-02-10T17:05:09Z", utc(2026, 2, 10, 17, 5, 9, 0), "2026-02-10 17:05:09"},
		{"2026-02-10t17:05:09.25z", utc(2026, 2, 10, 17, 5, 9, 250000000), "2026-02-10 17:05:09.25"},
		{"2026-02-10T17:05", utc(2026, 2, 10, 17, 5, 0, 0), "2026-02-10 17:05"},
		{"2026-02-10 17:05:09.1234567", time.Time{}, ""}, // finer than microseconds
		{"2026-02-10 17:05:09.", time.Time{}, ""},
		{"2026-02-10 17:5", time.Time{}, ""},
		{"2026-02-10 24:00", time.Time{}, ""},
		{"2026-02-10 23:60", time.Time{}, ""},
		{"2026-02-10 23:59:60", time.Time{}, ""},
		{"2026-02-10 17:05+02:00", time.Time{}, ""},
		{"2026-02-10T17:05:09+00:00", time.Time{}, ""},
		{"2026-02-30 10:00", time.Time{}, ""},
		{"2026-02-10 17:05 UTC", time.Time{}, ""},
		{"2026-02-10x17:05", time.Time{}, ""},
		{"10:00", time.Time{}, ""},
		{"", time.Time{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTime(tt.in)
			if (err == nil) != (tt.wantCanonical != "") {
				t.Fatalf("ParseTime(%q) error = %v, want error %v", tt.in, err, tt.wantCanonical == "")
			}
			if err != nil {
				if !errors.Is(err, ErrTime) {
					t.Errorf("ParseTime(%q) error %v does not wrap ErrTime", tt.in, err)
				}
				return
			}
			if !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("ParseTime(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if _, c, _ := readTime(tt.in); c != tt.wantCanonical {
				t.Errorf("canonical form of %q = %q, want %q", tt.in, c, tt.wantCanonical)
			}
		})
	}
}

func TestClock(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 2, 10, 17, 5, 0, 0, time.UTC), "17:05"},
		{time.Date(2026, 2, 10, 17, 5, 9, 0, time.UTC), "17:05:09"},
		{time.Date(2026, 2, 10, 17, 5, 9, 120000000, time.UTC), "17:05:09.12"},
		{time.Date(2026, 2, 10, 17, 5, 9, 123456789, time.UTC), "17:05:09.123456"}, // cut to microseconds
		{time.Date(2026, 2, 10, 17, 5, 0, 999, time.UTC), "17:05"},
		{time.Date(2026, 2, 10, 19, 5, 0, 0, time.FixedZone("CEST", 2*3600)), "17:05"},
	}
	for _, tt := range tests {
		if got := Clock(tt.in); got != tt.want {
			t.Errorf("Clock(%v) = %q, want %q", tt.in, got, tt.want)
		}
		if got, want := FormatTime(tt.in), "2026-02-10 "+tt.want; got != want {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.in, got, want)
		}
		back, err := ParseTime(FormatTime(tt.in))
		if err != nil || !back.Equal(tt.in.Truncate(time.Microsecond)) {
			t.Errorf("ParseTime(FormatTime(%v)) = %v, %v", tt.in, back, err)
		}
	}
}

// TestForecastTimes: forecast lines carry seconds and fractions, Format
// writes them with the precision they need, and At gives the moment.
func TestForecastTimes(t *testing.T) {
	in := q(okKeys,
		"2026-02-10 17:05:09.123456 · agent:a · 30%",
		"2026-02-10 17:05:00 · agent:b · 30%",
		"2026-02-10T17:05:09.500Z · agent:c · 30%",
		"2026-02-10 17:05 · agent:d · 30%",
		"2026-02-10 · agent:e · 30%",
		"2026-02-10 17:05:09.1234567 · agent:f · 30%")
	f, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var times []string
	var ats []time.Time
	for _, fc := range f.Questions[0].Forecasts {
		times = append(times, fc.Time)
		ats = append(ats, fc.At())
	}
	day := func(h, m, s, ns int) time.Time { return time.Date(2026, 2, 10, h, m, s, ns, time.UTC) }
	if diff := cmp.Diff([]string{"17:05:09.123456", "17:05", "17:05:09.5", "17:05", "", ""}, times); diff != "" {
		t.Errorf("times (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Time{day(17, 5, 9, 123456000), day(17, 5, 0, 0), day(17, 5, 9, 500000000), day(17, 5, 0, 0), day(0, 0, 0, 0), day(0, 0, 0, 0)}, ats); diff != "" {
		t.Errorf("At (-want +got):\n%s", diff)
	}
	if fc := f.Questions[0].Forecasts[5]; fc.OK() {
		t.Errorf("a fraction of seven digits was read: %+v", fc)
	}
	out := string(Format(f))
	for _, line := range []string{
		"- 2026-02-10 17:05:09.123456 · agent:a · 30%\n", "- 2026-02-10 17:05 · agent:b · 30%\n",
		"- 2026-02-10 17:05:09.5 · agent:c · 30%\n", "- 2026-02-10 · agent:e · 30%\n",
	} {
		if !regexp.MustCompile(regexp.QuoteMeta(line)).MatchString(out) {
			t.Errorf("Format lacks the line %q:\n%s", line, out)
		}
	}
	// A Forecast built by a program: Format writes its time canonically.
	if got := FormatForecast(Forecast{Date: Date{2026, 2, 10}, Time: "09:30:00.000", Who: "x", P: 0.5}); got != "2026-02-10 09:30 · x · 50%" {
		t.Errorf("FormatForecast = %q", got)
	}
}

// TestQuestionTimes: the keys are read into the Question, written back
// canonically, and the report uses them.
func TestQuestionTimes(t *testing.T) {
	in := "# Q?\n- id: q\n- resolves: x\n- resolve_by: 2026-02-10\n- status: resolved\n- outcome: yes\n" +
		"- Opens At: 2026-02-01T10:00:00Z\n- close_at: 2026-02-11\n- closed_at: 2026-02-05 10:00:00.000\n" +
		"## Forecasts\n- 2026-02-01 10:00 · a · 60%\n"
	f, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	q := f.Questions[0]
	want := [3]time.Time{time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC), time.Date(2026, 2, 11, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 5, 10, 0, 0, 0, time.UTC)}
	if got := [3]time.Time{q.OpensAt, q.CloseAt, q.ClosedAt}; got != want {
		t.Errorf("times = %v, want %v", got, want)
	}
	out := string(Format(f))
	for _, line := range []string{"- opens_at: 2026-02-01 10:00\n", "- close_at: 2026-02-11\n", "- closed_at: 2026-02-05 10:00\n"} {
		if !regexp.MustCompile(regexp.QuoteMeta(line)).MatchString(out) {
			t.Errorf("Format lacks %q:\n%s", line, out)
		}
	}
	r, err := f.Report(pinned)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) > 0 || len(r.Notes) > 0 {
		t.Errorf("findings %v, notes %q; want none", r.Findings, r.Notes)
	}
	// Alone for 4 of the 9.583 scheduled days: 100·log2(1.2) · 96/230.
	it := r.Items[0]
	wantScored := []ScoredEntry{{Entry: Entry{Who: "a", P: 0.6, Date: Date{2026, 2, 1}, Time: "10:00", Line: 11},
		Brier: 0.16, LogScore: -0.5108256237659907, BaselineScore: 26.303440583379377 * 96 / 230, Coverage: 96.0 / 230}}
	if diff := cmp.Diff(wantScored, it.Scored, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("scored (-want +got):\n%s", diff)
	}
}

// TestScoresDoc: the forecast file of docs/SCORES.md's worked example
// reports the scores of its table.
func TestScoresDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/SCORES.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```markdown\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/SCORES.md has no markdown block")
	}
	f, err := Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Report(pinned)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Findings)+len(r.Warnings)+len(r.Notes) > 0 {
		t.Errorf("findings %v, warnings %v, notes %q: want none", r.Findings, r.Warnings, r.Notes)
	}
	type row struct {
		Who                 string
		Baseline, Peer, Cov float64
	}
	var got []row
	for _, s := range r.Items[0].Scored {
		got = append(got, row{s.Who, s.BaselineScore, s.PeerScore, s.Coverage})
	}
	want := []row{{"ann", 37.64, 47.99, 0.8}, {"bob", -44.22, -48.40, 0.6}, {"cy", 0, 0.41, 0.2}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 0.005)); diff != "" {
		t.Errorf("scores of the worked example (-want +got):\n%s", diff)
	}
}
