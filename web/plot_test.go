package web

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/scoring"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestCalibrationSVG(t *testing.T) {
	fs := []scoring.Forecast{
		{P: 0.05, Outcome: false}, {P: 0.1, Outcome: false}, {P: 0.15, Outcome: true},
		{P: 0.3, Outcome: false}, {P: 0.35, Outcome: true}, {P: 0.4, Outcome: false},
		{P: 0.6, Outcome: true}, {P: 0.65, Outcome: true}, {P: 0.7, Outcome: false}, {P: 0.72, Outcome: true},
		{P: 0.9, Outcome: true}, {P: 0.95, Outcome: true}, {P: 1, Outcome: true},
	}
	res, err := scoring.Score(fs, scoring.Options{Bins: 5})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := scoring.Calibration(nil, 5)
	if err != nil {
		empty = make([]scoring.Bin, 5) // no forecasts: five empty bins
		for i := range empty {
			empty[i] = scoring.Bin{Lo: float64(i) / 5, Hi: float64(i+1) / 5}
		}
	}
	for _, c := range []struct {
		name  string
		bins  []scoring.Bin
		title string
	}{
		{"calibration.svg", res.Overall.Calibration, "Calibration of <agent> & co"},
		{"calibration-empty.svg", empty, "No forecasts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := string(calibrationSVG(c.bins, c.title))
			checkSVG(t, got)
			golden(t, c.name, got+"\n")
		})
	}
}

func TestCombineSVG(t *testing.T) {
	fs := []scaleForecast{
		{Who: "agent:scout", P: 0.62, Weight: 1},
		{Who: "agent:skeptic", P: 0.35, Weight: 1},
		{Who: "person", P: 0.55, Weight: 2},
		{Who: "", P: 0.6, Weight: 1},
		{Who: "<script>alert(1)</script> with a long name", P: 0.58, Weight: 0},
	}
	got := string(combineSVG(fs, 0.553, "pooled 55.3% (geo_odds)"))
	checkSVG(t, got)
	golden(t, "combine.svg", got+"\n")
}

// checkSVG checks what every plot must be: one svg element, escaped
// text, no style attribute (the CSP forbids it) and no script.
func checkSVG(t *testing.T, svg string) {
	t.Helper()
	if !strings.HasPrefix(svg, "<svg ") || !strings.HasSuffix(svg, "</svg>") || strings.Count(svg, "<svg") != 1 {
		t.Errorf("not one svg element: %.80s…", svg)
	}
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`\sstyle=`), regexp.MustCompile(`(?i)<script`), regexp.MustCompile(`NaN|Inf`)} {
		if bad.MatchString(svg) {
			t.Errorf("svg matches %s", bad)
		}
	}
}

func TestStripBidi(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"وكيل", "وكيل"},
		{"a\u202eb\u202cc", "abc"},
		{"\u202a\u202b\u202c\u202d\u202e", ""},
		{"\u2066x\u2067y\u2068z\u2069", "xyz"},
		{"\u200eleft\u200fright\u061c", "leftright"},
		{"zero\u200bwidth\u200d", "zero\u200bwidth\u200d"}, // not bidi controls: kept
	} {
		if got := stripBidi(c.in); got != c.want {
			t.Errorf("stripBidi(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
