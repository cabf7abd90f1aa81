package web

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/internal/tools"
)

func TestScore1(t *testing.T) {
	for _, c := range []struct {
		x          float64
		want, sign string
	}{
		{-1e-6, "0.0", "0.0"}, {-0.04, "0.0", "0.0"}, {0, "0.0", "0.0"}, {-0.05, "-0.1", "-0.1"},
		{4.06, "4.1", "+4.1"}, {-23.456, "-23.5", "-23.5"},
	} {
		if got := score1(c.x); got != c.want {
			t.Errorf("score1(%g) = %q, want %q", c.x, got, c.want)
		}
		if got := signed1(c.x); got != c.sign {
			t.Errorf("signed1(%g) = %q, want %q", c.x, got, c.sign)
		}
	}
}

func TestCloseText(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		// A resolve_by of 2027-06-30 closes at the end of that day.
		{time.Date(2027, 7, 1, 0, 0, 0, 0, time.UTC), "end of 2027-06-30 UTC"},
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), "end of 2026-12-31 UTC"},
		{time.Date(2027, 7, 1, 16, 0, 0, 0, time.UTC), "2027-07-01 16:00 UTC"},
		{time.Date(2027, 7, 1, 2, 0, 0, 0, time.FixedZone("CEST", 2*3600)), "end of 2027-06-30 UTC"},
	} {
		if got := closeText(c.at); got != c.want {
			t.Errorf("closeText(%v) = %q, want %q", c.at, got, c.want)
		}
	}
}

func TestApiText(t *testing.T) {
	got := string(apiText("pick `method` & <b>"))
	if want := "pick <code>method</code> &amp; &lt;b&gt;"; got != want {
		t.Errorf("apiText = %q, want %q", got, want)
	}
}

// TestAnswers: each tool's example answers in percents and odds, the way
// its result box shows it.
func TestAnswers(t *testing.T) {
	want := map[string][]string{
		"implied_probabilities": {"home 45.4%", "draw 28.1%", "away 26.5%", "Bookmaker's margin 4.81%"},
		"convert_odds":          {"Chance 40%", "Decimal odds 2.5", "Fractional odds 3/2", "American odds +150", "Compared with 40% 0.0 points"},
		"combine_forecasts":     {"Combined forecast 50.6%", "Spread 27 points"},
	}
	for _, tl := range tools.All() {
		t.Run(tl.Name, func(t *testing.T) {
			res, err := tl.Call(t.Context(), tl.Example)
			if err != nil {
				t.Fatal(err)
			}
			view, err := resultView(res)
			if err != nil {
				t.Fatal(err)
			}
			if tl.Name == "build_settings" {
				if view.Answer != nil {
					t.Errorf("build_settings: an answer %v besides its install line", view.Answer)
				}
				return
			}
			if view.Answer == nil || len(view.Answer.Rows) == 0 {
				t.Fatalf("%s: no answer", tl.Name)
			}
			var got []string
			for _, r := range view.Answer.Rows {
				if r.Value == "" || r.Detail == "" || strings.Contains(r.Value, "-0.0") {
					t.Errorf("%s: row %+v", tl.Name, r)
				}
				got = append(got, r.Label+" "+r.Value)
			}
			if w, ok := want[tl.Name]; ok {
				if diff := cmp.Diff(w, got); diff != "" {
					t.Errorf("%s answer (-want +got):\n%s", tl.Name, diff)
				}
			}
		})
	}
}
