package scoring_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/predictions-md/predictions/scoring"
)

var (
	day0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// tenDays is a life of ten days that closes on schedule.
	tenDays = scoring.Life{Open: day0, Close: day0.AddDate(0, 0, 10), ActualClose: day0.AddDate(0, 0, 10)}
)

// fc and sc build a forecast and a score.
func fc(who string, p float64, at time.Time) scoring.TimedForecast {
	return scoring.TimedForecast{Who: who, P: p, At: at}
}

func sc(who string, baseline, peer, coverage float64) scoring.TimeScore {
	return scoring.TimeScore{Who: who, Baseline: baseline, Peer: peer, Coverage: coverage}
}

// on returns the time d days after day0 (d may be fractional).
func on(d float64) time.Time { return day0.Add(time.Duration(d * 24 * float64(time.Hour))) }

func TestTimeAveraged(t *testing.T) {
	tests := []struct {
		name string
		fs   []scoring.TimedForecast
		life scoring.Life
		yes  bool
		want []scoring.TimeScore
	}{
		{
			// Both stand the whole life. Baseline 100·log2(2q): 100·log2(1.2)
			// = 26.3034 and 100·log2(0.6) = −73.6966. G = √(0.6·0.3) = √0.18;
			// peer of 0.6 = 100·2/1·ln(0.6/√0.18) = 200·ln √2 = 100·ln 2
			// = 69.3147, and the other's is its negative.
			name: "two forecasters, whole life",
			fs:   []scoring.TimedForecast{fc("a", 0.6, day0), fc("b", 0.3, day0)},
			life: tenDays, yes: true,
			want: []scoring.TimeScore{sc("a", 26.303440583379377, 69.31471805599453, 1), sc("b", -73.69655941662062, -69.31471805599453, 1)},
		},
		{
			// a alone for days 0–5 (peer 0), then with b for days 5–10:
			// G = √(0.8·0.5); a's peer = 200·ln(0.8/√0.4)·0.5 = 50·ln 1.6
			// = 23.5002. a's baseline 100·log2(1.6) = 67.8072 all along; b's
			// 100·log2(1) = 0 for half the life.
			name: "a late forecaster, closing on schedule",
			fs:   []scoring.TimedForecast{fc("a", 0.8, day0), fc("b", 0.5, on(5))},
			life: tenDays, yes: true,
			want: []scoring.TimeScore{sc("a", 67.80719051126377, 23.500181462286783, 1), sc("b", 0, -23.500181462286783, 0.5)},
		},
		{
			// The first case resolved after 5 of 10 scheduled days: every
			// score and the coverage are halved.
			name: "early resolution",
			fs:   []scoring.TimedForecast{fc("a", 0.6, day0), fc("b", 0.3, on(1))},
			life: scoring.Life{Open: day0, Close: on(10), ActualClose: on(5)}, yes: true,
			// a: baseline 26.3034·0.5; peer 69.3147 over days 1–5 = ·0.4.
			want: []scoring.TimeScore{sc("a", 26.303440583379377/2, 69.31471805599453*0.4, 0.5), sc("b", -73.69655941662062*0.4, -69.31471805599453*0.4, 0.4)},
		},
		{
			// 100·log2(1.4) = 48.5427; alone, so peer 0.
			name: "lone forecaster",
			fs:   []scoring.TimedForecast{fc("solo", 0.7, on(2))},
			life: tenDays, yes: true,
			want: []scoring.TimeScore{sc("solo", 48.542682717024164*0.8, 0, 0.8)},
		},
		{
			// Forecasts before the open count from the open: the first case.
			name: "forecasts before open",
			fs:   []scoring.TimedForecast{fc("a", 0.1, on(-5)), fc("a", 0.6, on(-3)), fc("b", 0.3, on(-1))},
			life: tenDays, yes: true,
			want: []scoring.TimeScore{sc("a", 26.303440583379377, 69.31471805599453, 1), sc("b", -73.69655941662062, -69.31471805599453, 1)},
		},
		{
			// T = ActualClose − Open: the first case again.
			name: "no scheduled close",
			fs:   []scoring.TimedForecast{fc("a", 0.6, day0), fc("b", 0.3, day0)},
			life: scoring.Life{Open: day0, ActualClose: on(10)}, yes: true,
			want: []scoring.TimeScore{sc("a", 26.303440583379377, 69.31471805599453, 1), sc("b", -73.69655941662062, -69.31471805599453, 1)},
		},
		{
			// Resolved no: 100% gives q = 0.001, 0% gives q = 0.999.
			// Baselines 100·log2(0.002) = −896.5784 and 100·log2(1.998)
			// = 99.8557; peer of q = 0.001: 200·ln(0.001/√0.000999)
			// = 100·ln(0.001/0.999) = −690.6755.
			name: "clipping at 0 and 1",
			fs:   []scoring.TimedForecast{fc("sure-yes", 1, day0), fc("sure-no", 0, day0)},
			life: tenDays, yes: false,
			want: []scoring.TimeScore{sc("sure-yes", -896.5784284662087, -690.6754778648553, 1), sc("sure-no", 99.85565831303312, 690.6754778648553, 1)},
		},
		{
			// 50% (baseline 0) for 2.5 days, then 90% for 7.5:
			// 0.75·100·log2(1.8) = 63.5998.
			name: "an update",
			fs:   []scoring.TimedForecast{fc("a", 0.9, on(2.5)), fc("a", 0.5, day0)},
			life: tenDays, yes: true,
			want: []scoring.TimeScore{sc("a", 63.599767991621256, 0, 1)},
		},
		{
			// Same time, same forecaster: the later in the slice stands.
			name: "ties keep the slice order",
			fs:   []scoring.TimedForecast{fc("a", 0.2, day0), fc("a", 0.6, day0), fc("b", 0.3, day0)},
			life: tenDays, yes: true,
			want: []scoring.TimeScore{sc("a", 26.303440583379377, 69.31471805599453, 1), sc("b", -73.69655941662062, -69.31471805599453, 1)},
		},
		{
			// late forecasts at the actual close and after it stand for no
			// time; they are listed, in order of first forecast, with 0.
			name: "zero coverage",
			fs:   []scoring.TimedForecast{fc("after", 0.9, on(11)), fc("at-close", 0.9, on(10)), fc("a", 0.7, day0)},
			life: tenDays, yes: true,
			want: []scoring.TimeScore{sc("a", 48.542682717024164, 0, 1), sc("at-close", 0, 0, 0), sc("after", 0, 0, 0)},
		},
		{
			name: "actual close after the scheduled close is the scheduled close",
			fs:   []scoring.TimedForecast{fc("a", 0.6, day0), fc("b", 0.3, day0)},
			life: scoring.Life{Open: day0, Close: on(10), ActualClose: on(20)}, yes: true,
			want: []scoring.TimeScore{sc("a", 26.303440583379377, 69.31471805599453, 1), sc("b", -73.69655941662062, -69.31471805599453, 1)},
		},
		{
			name: "actual close at the open",
			fs:   []scoring.TimedForecast{fc("a", 0.6, day0), fc("b", 0.3, on(-1))},
			life: scoring.Life{Open: day0, Close: on(10), ActualClose: day0}, yes: true,
			want: []scoring.TimeScore{sc("b", 0, 0, 0), sc("a", 0, 0, 0)},
		},
		{
			name: "actual close before the open, no scheduled close",
			fs:   []scoring.TimedForecast{fc("a", 0.6, day0)},
			life: scoring.Life{Open: day0, ActualClose: on(-1)}, yes: true,
			want: []scoring.TimeScore{sc("a", 0, 0, 0)},
		},
		{
			name: "scheduled close before the open",
			fs:   []scoring.TimedForecast{fc("a", 0.6, day0)},
			life: scoring.Life{Open: day0, Close: on(-1), ActualClose: on(3)}, yes: true,
			want: []scoring.TimeScore{sc("a", 0, 0, 0)},
		},
		{
			name: "no forecasts",
			life: tenDays, yes: true,
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.fs)
			got, err := scoring.TimeAveraged(tt.fs, tt.life, tt.yes)
			if err != nil {
				t.Fatalf("TimeAveraged: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("TimeAveraged (-want +got):\n%s", diff)
			}
			if !slices.Equal(in, tt.fs) {
				t.Errorf("TimeAveraged modified its input")
			}
		})
	}
}

func TestTimeAveragedErrors(t *testing.T) {
	tests := []struct {
		name      string
		fs        []scoring.TimedForecast
		life      scoring.Life
		wantIs    error
		wantIndex int
	}{
		{"NaN", []scoring.TimedForecast{fc("a", 0.5, day0), fc("b", math.NaN(), day0)}, tenDays, scoring.ErrProbability, 1},
		{"above 1", []scoring.TimedForecast{fc("a", 1.5, day0)}, tenDays, scoring.ErrProbability, 0},
		{"below 0", []scoring.TimedForecast{fc("a", -0.1, day0)}, tenDays, scoring.ErrProbability, 0},
		{"no open", nil, scoring.Life{Close: on(10), ActualClose: on(10)}, scoring.ErrLife, -1},
		{"no actual close", nil, scoring.Life{Open: day0, Close: on(10)}, scoring.ErrLife, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoring.TimeAveraged(tt.fs, tt.life, true)
			if !errors.Is(err, tt.wantIs) || got != nil {
				t.Fatalf("TimeAveraged = %v, %v; want nil and an error wrapping %v", got, err, tt.wantIs)
			}
			var fe *scoring.ForecastError
			if errors.As(err, &fe) != (tt.wantIndex >= 0) || (fe != nil && fe.Index != tt.wantIndex) {
				t.Errorf("TimeAveraged error %v: want a *ForecastError with index %d: %v", err, tt.wantIndex, fe)
			}
		})
	}
}

// randomQuestion returns forecasts by up to six forecasters on a question
// of a random life: times on a coarse grid (so that ties happen) from
// before the open to after the close, probabilities including 0 and 1.
func randomQuestion(r *rand.Rand) ([]scoring.TimedForecast, scoring.Life, bool) {
	span := 1 + r.IntN(100) // grid steps of one hour
	life := scoring.Life{Open: day0, Close: day0.Add(time.Duration(span) * time.Hour)}
	switch r.IntN(6) {
	case 0: // no scheduled close
		life.ActualClose, life.Close = life.Close, time.Time{}
	case 1, 2: // early resolution
		life.ActualClose = day0.Add(time.Duration(r.IntN(span+1)) * time.Hour)
	default:
		life.ActualClose = life.Close
	}
	n := r.IntN(20)
	fs := make([]scoring.TimedForecast, n)
	for i := range fs {
		p := r.Float64()
		switch r.IntN(10) {
		case 0:
			p = 0
		case 1:
			p = 1
		case 2:
			p = math.Round(p*10) / 10
		}
		step := r.IntN(span+span/2+3) - span/4 - 1
		fs[i] = scoring.TimedForecast{Who: fmt.Sprint("f", r.IntN(6)), P: p, At: day0.Add(time.Duration(step)*time.Hour + time.Duration(r.IntN(2))*time.Second)}
	}
	return fs, life, r.IntN(2) == 0
}

// TestTimeAveragedProperties: the peer scores of all forecasters sum to
// about zero, coverage is in [0, 1], and no score is NaN or infinite.
func TestTimeAveragedProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		fs, life, yes := randomQuestion(r)
		got, err := scoring.TimeAveraged(fs, life, yes)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, s := range got {
			sum += s.Peer
			if !(s.Coverage >= 0 && s.Coverage <= 1) || math.IsNaN(s.Baseline) || math.IsInf(s.Baseline, 0) || math.IsNaN(s.Peer) || math.IsInf(s.Peer, 0) {
				t.Fatalf("question %d: %+v out of range", i, s)
			}
		}
		if math.Abs(sum) > 1e-9 {
			t.Fatalf("question %d: peer scores sum to %g, want 0: %+v", i, sum, got)
		}
	}
}

// metaculusForecast is a forecast as Metaculus's scoring code sees it:
// start and end timestamps (seconds from the open; end NaN for None) and
// the pmf's value at the resolution bucket.
type metaculusForecast struct {
	who        string
	start, end float64
	q          float64
}

// metaculusGM is Metaculus's AggregationEntry of a geometric mean.
type metaculusGM struct {
	q         float64
	n         int
	timestamp float64
}

// metaculusScores is a transcription of Metaculus's scoring/score_math.py
// for a binary question, user forecasts only: get_geometric_means,
// evaluate_forecasts_baseline_accuracy, evaluate_forecasts_peer_accuracy
// and the per-user sums of evaluate_question. It returns each user's
// baseline and peer score and the two coverages; users without coverage
// are left out, as Metaculus stores no score for them.
func metaculusScores(fs []scoring.TimedForecast, life scoring.Life, yes bool) map[string][4]float64 {
	ts := func(t time.Time) float64 { return t.Sub(life.Open).Seconds() }
	// Each user's forecast ends where that user's next one starts.
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b scoring.TimedForecast) int { return a.At.Compare(b.At) })
	var forecasts []metaculusForecast
	last := map[string]int{}
	for _, f := range sorted {
		p := min(max(f.P, 0.001), 0.999) // Metaculus limits binary forecasts to [0.1%, 99.9%]
		pmf := []float64{1 - p, p}
		bucket := 0
		if yes {
			bucket = 1
		}
		if j, ok := last[f.Who]; ok {
			forecasts[j].end = ts(f.At)
		}
		last[f.Who] = len(forecasts)
		forecasts = append(forecasts, metaculusForecast{who: f.Who, start: ts(f.At), end: math.NaN(), q: pmf[bucket]})
	}
	horizonStart := 0.0
	actualClose := ts(life.ActualClose)
	horizonEnd := ts(life.Close)
	if life.Close.IsZero() {
		horizonEnd = actualClose
	}

	// get_geometric_means
	var steps []float64
	for _, f := range forecasts {
		steps = append(steps, f.start)
		if !math.IsNaN(f.end) {
			steps = append(steps, f.end)
		}
	}
	slices.Sort(steps)
	steps = slices.Compact(steps)
	var gms []metaculusGM
	for _, step := range steps {
		var vals []float64
		for _, f := range forecasts {
			if f.start <= step && (math.IsNaN(f.end) || f.end > step) {
				vals = append(vals, f.q)
			}
		}
		if len(vals) == 0 {
			continue
		}
		var logSum float64
		for _, v := range vals {
			logSum += math.Log(v)
		}
		n := len(vals)
		if n == 1 {
			n = 0
		}
		gms = append(gms, metaculusGM{q: math.Exp(logSum / float64(len(vals))), n: n, timestamp: step})
	}

	total := horizonEnd - horizonStart
	bounds := func(f metaculusForecast) (float64, float64) {
		start := max(f.start, horizonStart)
		end := actualClose
		if !math.IsNaN(f.end) {
			end = min(f.end, actualClose)
		}
		return start, end
	}
	// evaluate_forecasts_baseline_accuracy
	baseline := make([][2]float64, len(forecasts)) // score, coverage
	for i, f := range forecasts {
		start, end := bounds(f)
		if end-start <= 0 {
			continue
		}
		coverage := (end - start) / total
		baseline[i] = [2]float64{100 * math.Log(f.q*2) / math.Log(2) * coverage, coverage}
	}
	// evaluate_forecasts_peer_accuracy
	for i := range gms {
		gms[i].timestamp = max(gms[i].timestamp, horizonStart)
	}
	peer := make([][2]float64, len(forecasts))
	for i, f := range forecasts {
		start, end := bounds(f)
		if end-start <= 0 {
			continue
		}
		interval := make([]float64, len(gms)) // NaN for None
		for j, gm := range gms {
			interval[j] = math.NaN()
			if start <= gm.timestamp && gm.timestamp < end {
				interval[j] = 100 * (float64(gm.n) / float64(gm.n-1)) * math.Log(f.q/gm.q)
			}
		}
		var times []float64
		for _, gm := range gms {
			if gm.timestamp < actualClose {
				times = append(times, gm.timestamp)
			}
		}
		times = append(times, actualClose)
		var score, coverage float64
		for j := 0; j < len(times)-1; j++ {
			if math.IsNaN(interval[j]) {
				continue
			}
			d := times[j+1] - times[j]
			score += interval[j] * d / total
			coverage += d / total
		}
		peer[i] = [2]float64{score, coverage}
	}
	// evaluate_question: per-user sums, users with coverage only.
	out := map[string][4]float64{}
	for i, f := range forecasts {
		s := out[f.who]
		s[0] += baseline[i][0]
		s[1] += peer[i][0]
		s[2] += baseline[i][1]
		s[3] += peer[i][1]
		out[f.who] = s
	}
	for w, s := range out {
		if s[2] <= 0 {
			delete(out, w)
		}
	}
	return out
}

// TestTimeAveragedMetaculus compares TimeAveraged with the transcription
// of Metaculus's code on random questions.
func TestTimeAveragedMetaculus(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		fs, life, yes := randomQuestion(r)
		if life.ActualClose.After(life.Close) && !life.Close.IsZero() {
			t.Fatalf("generator: actual close after close")
		}
		got, err := scoring.TimeAveraged(fs, life, yes)
		if err != nil {
			t.Fatal(err)
		}
		want := metaculusScores(fs, life, yes)
		gotMap := map[string][4]float64{}
		for _, s := range got {
			if s.Coverage > 0 {
				gotMap[s.Who] = [4]float64{s.Baseline, s.Peer, s.Coverage, s.Coverage}
			} else if s.Baseline != 0 || s.Peer != 0 {
				t.Fatalf("question %d: %+v has scores without coverage", i, s)
			}
		}
		if diff := cmp.Diff(want, gotMap, cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("question %d (yes %v, life %+v): Metaculus (-want) and TimeAveraged (+got) differ:\n%s\nforecasts: %+v", i, yes, life, diff, fs)
		}
	}
}

// TestScoresDoc checks the worked example of docs/SCORES.md against
// TimeAveraged: every forecaster's row of its result table.
func TestScoresDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/SCORES.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := scoring.TimeAveraged(workedExample())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		row := fmt.Sprintf("| %s | %.2f | %.2f | %.0f%% |", s.Who, s.Baseline, s.Peer, 100*s.Coverage)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/SCORES.md lacks the row %q", row)
		}
	}
}

// workedExample is the example of docs/SCORES.md: open 2026-01-01, close
// scheduled 2026-01-11, resolved yes early on 2026-01-09.
func workedExample() ([]scoring.TimedForecast, scoring.Life, bool) {
	return []scoring.TimedForecast{
		{Who: "ann", P: 0.6, At: on(0)},
		{Who: "bob", P: 0.3, At: on(2)},
		{Who: "ann", P: 0.8, At: on(4)},
		{Who: "cy", P: 0.5, At: on(6)},
	}, scoring.Life{Open: on(0), Close: on(10), ActualClose: on(8)}, true
}
