package web

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/board"
)

func TestTimeTicks(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name, start, end string
		want             []string
		layout           string
	}{
		// Forecasts a minute apart: two distinct labels, not one twice.
		// A span between two round marks still gets its two ends.
		{"five seconds", "2026-03-01T06:51:01Z", "2026-03-01T06:51:06Z", []string{"06:51:01", "06:51:06"}, "15:04:05"},
		{"a minute", "2026-03-01T06:51:10Z", "2026-03-01T06:52:20Z", []string{"06:51:30", "06:52:00"}, "15:04:05"},
		{"an hour", "2026-03-01T06:51:00Z", "2026-03-01T07:51:00Z", []string{"07:00", "07:15", "07:30", "07:45"}, "15:04"},
		{"a day", "2026-03-01T06:00:00Z", "2026-03-02T06:00:00Z", []string{"Mar 1 12:00", "Mar 2 00:00"}, "Jan 2 15:04"},
		{"three weeks", "2026-03-01T06:00:00Z", "2026-03-22T00:00:00Z", []string{"Mar 2", "Mar 9", "Mar 16"}, "Jan 2"},
		{"a year", "2026-02-10T00:00:00Z", "2027-02-10T00:00:00Z", []string{"Apr 2026", "Jul 2026", "Oct 2026", "Jan 2027"}, "Jan 2006"},
		{"a decade", "2026-02-10T00:00:00Z", "2036-02-10T00:00:00Z", []string{"2030", "2035"}, "2006"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ticks, layout := timeTicks(at(c.start), at(c.end), 4)
			var got []string
			for _, tk := range ticks {
				got = append(got, tk.Format(layout))
			}
			if layout != c.layout {
				t.Errorf("timeTicks(%s, %s) layout %q, want %q", c.start, c.end, layout, c.layout)
			}
			if len(c.want) > 0 {
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("timeTicks(%s, %s) (-want +got):\n%s", c.start, c.end, diff)
				}
			}
			seen := map[string]bool{}
			for _, g := range got {
				if seen[g] {
					t.Errorf("timeTicks(%s, %s): label %q twice in %q", c.start, c.end, g, got)
				}
				seen[g] = true
			}
			if len(got) == 0 || len(got) > 4 {
				t.Errorf("timeTicks(%s, %s): %d ticks %q, want 1 to 4", c.start, c.end, len(got), got)
			}
		})
	}
}

func TestHistorySVG(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 6, 51, 0, 0, time.UTC)
	fc := func(sec int, agent string, p, community float64) board.Forecast {
		return board.Forecast{AgentID: agent, AgentName: agent, P: p, CreatedAt: t0.Add(time.Duration(sec) * time.Second),
			Community: board.CommunityPoint{P: community}}
	}
	fs := []board.Forecast{fc(0, "oracle-1", 0.7, 0.7), fc(20, "skeptic", 0.35, 0.52), fc(40, "<script>x</script>", 0.5, 0.51), fc(50, "oracle-1", 0.6, 0.48)}
	closeAt := t0.Add(55 * time.Second)
	got := string(historySVG(fs, historyChart{Start: t0, End: t0.Add(70 * time.Second), Close: &closeAt, Outcome: board.OutcomeYes, Title: "History of <q>"}))
	checkSVG(t, got)
	for _, want := range []string{"outcome: yes", `class="close"`, "&lt;script&gt;x&lt;/script&gt;", "<polygon", "<rect x=", "06:51:30"} {
		if !strings.Contains(got, want) {
			t.Errorf("history chart lacks %q", want)
		}
	}
	golden(t, "history.svg", got+"\n")
	// Without forecasts, close or outcome.
	empty := string(historySVG(nil, historyChart{Start: t0, End: t0.Add(48 * time.Hour), Title: "Empty"}))
	checkSVG(t, empty)
	if !strings.Contains(empty, "no forecasts yet") || strings.Contains(empty, "outcome") {
		t.Errorf("empty history chart: %s", empty)
	}
}

// TestShapeNumbers: each marker shape, and appendPt, writes its numbers as %.1f does,
// at the places and sizes it always has (the chart draws them with
// strconv, which is cheaper).
func TestShapeNumbers(t *testing.T) {
	const r = 4.5
	f := func(format string, a ...any) string { return fmt.Sprintf(format, a...) }
	fp := func(x, y float64) string { return fmt.Sprintf("%.1f,%.1f", x, y) }
	for _, at := range [][2]float64{{6, 6.5}, {44.04, 183.96}, {383.95, 14}, {0.04, -0.04}} {
		x, y := at[0], at[1]
		fill := `fill="#0072b2" stroke="#1d1d1f" stroke-width="0.8"`
		var pb strings.Builder
		if appendPt(&pb, x, y); pb.String() != fp(x, y) {
			t.Errorf("appendPt(%v, %v) wrote %q, want %q", x, y, pb.String(), fp(x, y))
		}
		for _, tc := range []struct{ shape, want string }{
			{"circle", f(`<circle cx="%.1f" cy="%.1f" r="%.1f" %s/>`, x, y, r, fill)},
			{"square", f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s/>`, x-r+0.5, y-r+0.5, 2*r-1, 2*r-1, fill)},
			{"triangle", f(`<polygon points="%s %s %s" %s/>`, fp(x, y-r-0.5), fp(x+r, y+r-1), fp(x-r, y+r-1), fill)},
			{"diamond", f(`<polygon points="%s %s %s %s" %s/>`, fp(x, y-r-0.5), fp(x+r+0.5, y), fp(x, y+r+0.5), fp(x-r-0.5, y), fill)},
			{"cross", f(`<path d="M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f" stroke="%s" stroke-width="2.5"/>`, x-r, y-r, x+r, y+r, x-r, y+r, x+r, y-r, "#0072b2")},
			{"plus", f(`<path d="M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f" stroke="%s" stroke-width="2.5"/>`, x-r-0.5, y, x+r+0.5, y, x, y-r-0.5, x, y+r+0.5, "#0072b2")},
		} {
			var b strings.Builder
			shape(&b, marker{Shape: tc.shape, Color: "#0072b2"}, x, y, "a tip")
			want := `<g class="mark"><title>a tip</title>` + tc.want + "</g>\n"
			if diff := cmp.Diff(want, b.String()); diff != "" {
				t.Errorf("%s at %v (-want +got):\n%s", tc.shape, at, diff)
			}
		}
	}
}

// TestLegendAgents: the legend names every agent up to its cap, else
// those with the most forecasts (the first to forecast first among
// equals) and you, and counts the others.
func TestLegendAgents(t *testing.T) {
	var fs []board.Forecast
	add := func(agents ...string) {
		for _, a := range agents {
			fs = append(fs, board.Forecast{AgentID: a})
		}
	}
	add("a", "b", "c", "d", "b", "d", "d", "e")
	_, order := markers(fs)
	for _, tc := range []struct {
		name  string
		most  int
		you   string
		named []string
		more  int
	}{
		{"no cap", 0, "", []string{"a", "b", "c", "d", "e"}, 0},
		{"under the cap", 5, "e", []string{"a", "b", "c", "d", "e"}, 0},
		{"the most forecasts", 2, "", []string{"d", "b"}, 3},
		{"ties by first forecast", 3, "", []string{"d", "b", "a"}, 2},
		{"and you", 2, "e", []string{"d", "b", "e"}, 2},
		{"you among them", 2, "d", []string{"d", "b"}, 3},
		{"you without forecasts", 2, "zed", []string{"d", "b"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			named, more := legendAgents(fs, order, tc.most, tc.you)
			if diff := cmp.Diff(tc.named, named); diff != "" || more != tc.more {
				t.Errorf("named (-want +got):\n%s; more %d, want %d", diff, more, tc.more)
			}
		})
	}
}

// TestDodgeGrid: the grid places a crowded chart's marks where a search
// of every mark placed would (each kept within the plot), forecasts
// bunched in time as on a question of hundreds.
func TestDodgeGrid(t *testing.T) {
	top := 36.0
	brute := func(placed [][2]float64, x, y float64) (float64, float64) {
		step := markGap
		if x > histLeft+histW-3*markGap {
			step = -markGap
		}
		x0 := x
		for range len(placed) + 1 {
			clash := slices.ContainsFunc(placed, func(p [2]float64) bool {
				return math.Abs(p[0]-x) < markGap && math.Abs(p[1]-y) < markGap
			})
			if !clash {
				return x, y
			}
			x += step
			if x < histLeft || x > histLeft+histW {
				return x0, y
			}
		}
		return x, y
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pm := newPlacedMarks(top)
	var placed [][2]float64
	for i := range 1500 {
		x := histLeft + histW*float64(i)/1500 + rng.Float64()*3 // about a unit apart
		if i%7 == 0 {
			x = histLeft + histW - rng.Float64()*10 // at the right edge
		}
		y := top + rng.Float64()*histH
		wx, wy := brute(placed, x, y)
		gx, gy := pm.dodge(x, y)
		if gx != wx || gy != wy {
			t.Fatalf("mark %d at %.2f,%.2f: grid %.2f,%.2f, search %.2f,%.2f", i, x, y, gx, gy, wx, wy)
		}
		placed = append(placed, [2]float64{wx, wy})
		pm.add(gx, gy)
	}
}
