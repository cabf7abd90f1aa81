package evaluate_test

import (
	"errors"
	"math"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/evaluate"
	"github.com/predictions-md/predictions/forecastfile"
	"github.com/predictions-md/predictions/pool"
)

// approx compares floats to 1e-12, relative or absolute.
var approx = cmp.Options{cmpopts.EquateApprox(1e-12, 1e-12)}

// mustParse parses a forecast file's text.
func mustParse(tb testing.TB, text string) *forecastfile.File {
	tb.Helper()
	f, err := forecastfile.Parse([]byte(text))
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	return f
}

// mustRead parses a forecast file.
func mustRead(tb testing.TB, path string) *forecastfile.File {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return mustParse(tb, string(b))
}

// mustRun runs the evaluation on the texts.
func mustRun(tb testing.TB, opt evaluate.Options, texts ...string) *evaluate.Report {
	tb.Helper()
	var fs []*forecastfile.File
	for _, t := range texts {
		fs = append(fs, mustParse(tb, t))
	}
	rep, err := evaluate.Run(fs, opt)
	if err != nil {
		tb.Fatalf("Run: %v", err)
	}
	return rep
}

// scoresOf returns each pool's scores.
func scoresOf(rep *evaluate.Report) map[pool.Method]evaluate.Scores {
	m := map[pool.Method]evaluate.Scores{}
	for _, p := range rep.Pools {
		m[p.Method] = p.Scores
	}
	return m
}

// percents returns each pool's gains over the median and over recency, in
// percent, in the order of evaluate.Scores (NaN for a nil gain).
func percents(rep *evaluate.Report) map[pool.Method][2][4]float64 {
	pct := func(g *evaluate.Gain) float64 {
		if g == nil {
			return math.NaN()
		}
		return g.Percent
	}
	m := map[pool.Method][2][4]float64{}
	for _, p := range rep.Pools {
		var v [2][4]float64
		for i, g := range []evaluate.Gains{p.OverMedian, p.OverRecency} {
			v[i] = [4]float64{pct(g.LogClose), pct(g.LogAverage), pct(g.BrierClose), pct(g.BrierAverage)}
		}
		m[p.Method] = v
	}
	return m
}

// fixtureScores are the mean scores of testdata/fixture.md, worked by hand
// (the community after each forecast by the formulas of package pool's
// documentation, then ln q and (p − o)², averaged as the report says):
//
//   - first (yes): alice 0.8 and bob 0.4, both at the open, stand 10 days.
//     After alice: 0.8 by every pool, for no time (bob came at the same
//     instant). After bob: geo_odds and skill (two forecasters, no skill
//     yet) √(4·2/3)/(1+√(4·2/3)) = 0.620204; mean, median, recency 0.6.
//     So alice's peer score is 100·2/1·ln(0.8/√(0.8·0.4)) = 100 ln 2,
//     bob's −100 ln 2, both coverage 1: skill ±100 ln 2 / 31 = ±2.2360.
//   - second (yes): carol 1.0 (no history), alice 0.7, bob 0.1, erin 0.3
//     (no history), carol 0.9, every 2 days from the open over 10 days
//     (each community value counts 0.2); gina's line is unreadable and
//     frank's comes at the close. Medians: 1, 0.85, 0.7, 0.5, 0.5;
//     recency (weights e^(√n−√N), oldest first): 1, 0.85, 0.7, 0.3, 0.7;
//     skill: log-odds weighted by e^(√n−√N) · e^(8·skill/100), extremized
//     by 1.2 from 3 forecasters: 0.999, 0.973578, 0.771850, 0.594481,
//     0.599652.
//   - third (no): dave 0% alone: 0 by mean, median and recency, 0.001 by
//     geo_odds and skill (clipped); every log score ln 0.999.
var fixtureScores = map[pool.Method]evaluate.Scores{
	pool.GeoOdds: {LogClose: -0.390618112601989, LogAverage: -0.23483161372608, BrierClose: 0.131415307821358, BrierAverage: 0.0697001662210164},
	pool.Mean:    {LogClose: -0.40165776821984, LogAverage: -0.304731991403045, BrierClose: 0.136666666666667, BrierAverage: 0.0972083333333333},
	pool.Median:  {LogClose: -0.40165776821984, LogAverage: -0.297707957025857, BrierClose: 0.136666666666667, BrierAverage: 0.0941666666666666},
	pool.Recency: {LogClose: -0.289500356012769, LogAverage: -0.309331516168842, BrierClose: 0.0833333333333333, BrierAverage: 0.0995},
	pool.Skill:   {LogClose: -0.330037833419352, LogAverage: -0.247450134275476, BrierClose: 0.101508236371848, BrierAverage: 0.0732470520779709},
}

// fixtureGains are the gains over the median and over recency of
// fixtureScores, (pool − ref)/|ref|·100, and the other way round for Brier.
var fixtureGains = map[pool.Method][2][4]float64{
	pool.GeoOdds: {{2.74852286980003, 21.1201420102841, 3.84245769168913, 25.9821243670622}, {-34.9283703764289, 24.0841616675417, -57.6983693856298, 29.9495816874206}},
	pool.Mean:    {{0, -2.35937072269063, 0, -3.23008849557522}, {-38.7417182319887, 1.4869240686378, -64, 2.3031825795645}},
	pool.Median:  {{0, 0, 0, 0}, {-38.7417182319887, 3.75763817633141, -64, 5.36013400335009}},
	pool.Recency: {{27.9236258031698, -3.90434950382453, 39.0243902439024, -5.6637168141593}, {0, 0, 0, 0}},
	pool.Skill:   {{17.8310841883901, 16.8815853134941, 25.7256807035262, 22.215519917199}, {-14.0025656496239, 20.0048745953157, -21.809883646217, 26.3848722834463}},
}

func TestRunFixture(t *testing.T) {
	rep, err := evaluate.Run([]*forecastfile.File{mustRead(t, "testdata/fixture.md")}, evaluate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	wantHead := evaluate.Report{
		Questions: 3, Evaluated: 3, From: day(11), To: day(41), Forecasts: 8,
		Skipped:   evaluate.Skipped{Void: 1, Open: 1, NoOutcome: 1, NoClose: 1, NoForecasts: 1, Late: 2, Unreadable: 1},
		Resamples: evaluate.DefaultResamples,
	}
	gotHead := *rep
	gotHead.Pools = nil
	if diff := cmp.Diff(wantHead, gotHead); diff != "" {
		t.Errorf("Run(fixture) counts (-want +got):\n%s", diff)
	}
	var methods []pool.Method
	for _, p := range rep.Pools {
		methods = append(methods, p.Method)
	}
	if diff := cmp.Diff(pool.Methods(), methods); diff != "" {
		t.Errorf("Run(fixture) pools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fixtureScores, scoresOf(rep), approx); diff != "" {
		t.Errorf("Run(fixture) scores (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(fixtureGains, percents(rep), approx); diff != "" {
		t.Errorf("Run(fixture) gains (-want +got):\n%s", diff)
	}
}

// TestRunWarmup: the warmup leaves the earliest questions by close out of
// the scores, but not out of the skills.
func TestRunWarmup(t *testing.T) {
	// The second and third questions of the fixture alone, worked as in
	// fixtureScores (the first still gives alice and bob their skills).
	lastTwo := map[pool.Method]evaluate.Scores{
		pool.GeoOdds: {LogClose: -0.347073840446764, LogAverage: -0.113394092132901, BrierClose: 0.1250005, BrierAverage: 0.0324277875994874},
		pool.Mean:    {LogClose: -0.347073840446764, LogAverage: -0.201685175221573, BrierClose: 0.125, BrierAverage: 0.0658125},
		pool.Median:  {LogClose: -0.347073840446764, LogAverage: -0.19114912365579, BrierClose: 0.125, BrierAverage: 0.06125},
		pool.Recency: {LogClose: -0.178837722136158, LogAverage: -0.208584462370268, BrierClose: 0.045, BrierAverage: 0.06925},
		pool.Skill:   {LogClose: -0.256203421672808, LogAverage: -0.132321872956995, BrierClose: 0.080139892825734, BrierAverage: 0.0377481163849191},
	}
	f := mustRead(t, "testdata/fixture.md")
	tests := []struct {
		warmup          float64
		warm, evaluated int
		scores          map[pool.Method]evaluate.Scores
	}{
		{0, 0, 3, fixtureScores},
		{0.3, 0, 3, fixtureScores}, // ⌊0.9⌋ = 0
		{1.0 / 3, 1, 2, lastTwo},
		{0.5, 1, 2, lastTwo},
	}
	for _, tt := range tests {
		rep, err := evaluate.Run([]*forecastfile.File{f}, evaluate.Options{Warmup: tt.warmup})
		if err != nil {
			t.Fatalf("Run(warmup %v): %v", tt.warmup, err)
		}
		if rep.WarmupQuestions != tt.warm || rep.Evaluated != tt.evaluated || rep.Questions != 3 {
			t.Errorf("Run(warmup %v): %d warmup, %d evaluated of %d; want %d, %d of 3", tt.warmup, rep.WarmupQuestions, rep.Evaluated, rep.Questions, tt.warm, tt.evaluated)
		}
		if diff := cmp.Diff(tt.scores, scoresOf(rep), approx); diff != "" {
			t.Errorf("Run(warmup %v) scores (-want +got):\n%s", tt.warmup, diff)
		}
	}
}

// question writes a resolved question of a forecast file: its times are
// opens_at, close_at = closed_at, and each forecast line is "TIME · WHO ·
// P%".
func question(id, outcome, open, closes string, forecasts ...string) string {
	s := "# " + id + "\n\n- id: " + id + "\n- resolves: yes\n- status: resolved\n- outcome: " + outcome +
		"\n- opens_at: " + open + "\n- close_at: " + closes + "\n- closed_at: " + closes + "\n\n## Forecasts\n\n"
	for _, f := range forecasts {
		s += "- " + f + "\n"
	}
	return s + "\n"
}

// all gives every pool the same scores.
func all(s evaluate.Scores) map[pool.Method]evaluate.Scores {
	m := map[pool.Method]evaluate.Scores{}
	for _, p := range pool.Methods() {
		m[p] = s
	}
	return m
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// TestRunEdges: the edge cases, each worked by hand.
func TestRunEdges(t *testing.T) {
	ln := math.Log
	// Four forecasts at one instant by four forecasters, in file order,
	// weigh e^(√n−2) for recency: (0.368, 0.557, 0.765, 1), 2.690 in all.
	w := func(n float64) float64 { return math.Exp(math.Sqrt(n) - 2) }
	// skill of four tied forecasts with these log-odds, in file order
	// (no skills yet), extremized by 1.2.
	skill4 := func(l1, l2, l3, l4 float64) float64 {
		return logistic(1.2 * (w(1)*l1 + w(2)*l2 + w(3)*l3 + w(4)*l4) / (w(1) + w(2) + w(3) + w(4)))
	}
	no := func(p float64) evaluate.Scores { // one community value p on a question resolved no
		return evaluate.Scores{LogClose: ln(1 - p), LogAverage: ln(1 - p), BrierClose: p * p, BrierAverage: p * p}
	}
	tied := func(ps ...float64) map[pool.Method]evaluate.Scores {
		m := all(no(0.5)) // geo_odds, mean and median: 0.5 for both orders below
		m[pool.Recency] = no(ps[0])
		m[pool.Skill] = no(ps[1])
		return m
	}
	tests := []struct {
		name  string
		texts []string
		want  map[pool.Method]evaluate.Scores
	}{{
		name:  "one forecast",
		texts: []string{question("q", "yes", "2026-01-01 00:00", "2026-01-03 00:00", "2026-01-02 00:00 · agent:a · 70%")},
		want:  all(evaluate.Scores{LogClose: ln(0.7), LogAverage: ln(0.7), BrierClose: 0.09, BrierAverage: 0.09}),
	}, {
		// 0% for a day, then 0% and 100% for a day: 0 (0.001 by the
		// pools of log-odds), then 0.5 by every pool. ln 0 is clipped to
		// ln 0.001.
		name: "0% and 100%",
		texts: []string{question("q", "yes", "2026-01-01 00:00", "2026-01-03 00:00",
			"2026-01-01 00:00 · agent:a · 0%", "2026-01-02 00:00 · agent:b · 100%")},
		want: func() map[pool.Method]evaluate.Scores {
			m := all(evaluate.Scores{LogClose: ln(0.5), LogAverage: (ln(0.001) + ln(0.5)) / 2, BrierClose: 0.25, BrierAverage: (1 + 0.25) / 2})
			m[pool.GeoOdds] = evaluate.Scores{LogClose: ln(0.5), LogAverage: (ln(0.001) + ln(0.5)) / 2, BrierClose: 0.25, BrierAverage: (0.999*0.999 + 0.25) / 2}
			m[pool.Skill] = m[pool.GeoOdds]
			return m
		}(),
	}, {
		// Ties keep file order: the last in the file is the most recent.
		// a 90%, b 80%, c 20%, d 10%: recency sorts d 0.1 (1), c 0.2
		// (0.765): 1.765 passes half of 2.690 at c.
		name: "ties in time, file order",
		texts: []string{question("q", "no", "2026-01-01 00:00", "2026-01-02 00:00",
			"2026-01-01 00:00 · agent:a · 90%", "2026-01-01 00:00 · agent:b · 80%",
			"2026-01-01 00:00 · agent:c · 20%", "2026-01-01 00:00 · agent:d · 10%")},
		want: tied(0.2, skill4(ln(9), ln(4), -ln(4), -ln(9))),
	}, {
		// The other order: d 0.1 (0.368), c 0.2 (0.557), b 0.8 (0.765):
		// 1.690 passes half at b.
		name: "ties in time, reversed file order",
		texts: []string{question("q", "no", "2026-01-01 00:00", "2026-01-02 00:00",
			"2026-01-01 00:00 · agent:d · 10%", "2026-01-01 00:00 · agent:c · 20%",
			"2026-01-01 00:00 · agent:b · 80%", "2026-01-01 00:00 · agent:a · 90%")},
		want: tied(0.8, skill4(-ln(9), -ln(4), ln(4), ln(9))),
	}, {
		name: "one forecaster twice at one instant: the later line stands",
		texts: []string{question("q", "yes", "2026-01-01 00:00", "2026-01-02 00:00",
			"2026-01-01 00:00 · agent:a · 30%", "2026-01-01 00:00 · agent:a · 60%")},
		want: all(evaluate.Scores{LogClose: ln(0.6), LogAverage: ln(0.6), BrierClose: 0.16, BrierAverage: 0.16}),
	}, {
		// A question of zero life (open = close) scores nobody: a, who
		// was right on it, has no skill on the next question, where the
		// skill pool is then geo_odds. Its own forecasts, before the
		// open, are averaged from the first to the close: 0.8 for 12
		// hours, then 0.5.
		name: "zero-length life and forecasters with no history",
		texts: []string{question("z", "yes", "2026-01-05 00:00", "2026-01-05 00:00",
			"2026-01-04 00:00 · agent:a · 80%", "2026-01-04 12:00 · agent:b · 20%"),
			question("next", "yes", "2026-01-10 00:00", "2026-01-12 00:00",
				"2026-01-10 00:00 · agent:a · 70%", "2026-01-11 00:00 · agent:b · 20%")},
		want: func() map[pool.Method]evaluate.Scores {
			geo := logistic((ln(7.0/3) + ln(0.25)) / 2)
			m := map[pool.Method]evaluate.Scores{}
			for _, p := range []pool.Method{pool.GeoOdds, pool.Skill, pool.Mean, pool.Median, pool.Recency} {
				c := 0.45
				if p == pool.GeoOdds || p == pool.Skill {
					c = geo
				}
				m[p] = evaluate.Scores{
					LogClose:     (ln(0.5) + ln(c)) / 2,
					LogAverage:   ((ln(0.8)+ln(0.5))/2 + (ln(0.7)+ln(c))/2) / 2,
					BrierClose:   (0.25 + (1-c)*(1-c)) / 2,
					BrierAverage: ((0.04+0.25)/2 + (0.09+(1-c)*(1-c))/2) / 2,
				}
			}
			return m
		}(),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := mustRun(t, evaluate.Options{}, tt.texts...)
			if diff := cmp.Diff(tt.want, scoresOf(rep), approx); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunSkill: the skill pool weighs a forecaster by the skill known
// when it pools, from questions closed strictly before.
func TestRunSkill(t *testing.T) {
	first := question("first", "yes", "2026-01-01 00:00", "2026-01-11 00:00",
		"2026-01-01 00:00 · agent:alice · 80%", "2026-01-01 00:00 · agent:bob · 40%")
	// alice 0.7 and bob 0.2: with skills ±100 ln 2/31 the weights are
	// e^(±0.08·100 ln 2/31) (two forecasters: no recency, no extremizing).
	sk := 8 * math.Log(2) / 31
	skilled := logistic((math.Exp(sk)*math.Log(7.0/3) + math.Exp(-sk)*math.Log(0.25)) / (math.Exp(sk) + math.Exp(-sk)))
	plain := logistic((math.Log(7.0/3) + math.Log(0.25)) / 2)
	tests := []struct {
		name string
		at   string // when the second question's forecasts are made
		want float64
	}{
		{"after the first closed", "2026-01-20 00:00", skilled},
		{"at the first's close: not yet known", "2026-01-11 00:00", plain},
		{"before the first closed", "2026-01-10 00:00", plain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			second := question("second", "yes", "2026-01-10 00:00", "2026-01-30 00:00",
				tt.at+" · agent:alice · 70%", tt.at+" · agent:bob · 20%")
			rep := mustRun(t, evaluate.Options{Warmup: 0.5}, first, second)
			got := scoresOf(rep)[pool.Skill].LogClose
			if diff := cmp.Diff(math.Log(tt.want), got, approx); diff != "" {
				t.Errorf("skill pool's log score (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	one := question("q", "yes", "2026-01-01 00:00", "2026-01-03 00:00", "2026-01-02 00:00 · agent:a · 70%")
	tests := []struct {
		name  string
		texts []string
		opt   evaluate.Options
		want  error
	}{
		{"negative warmup", []string{one}, evaluate.Options{Warmup: -0.1}, evaluate.ErrWarmup},
		{"warmup 1", []string{one}, evaluate.Options{Warmup: 1}, evaluate.ErrWarmup},
		{"warmup NaN", []string{one}, evaluate.Options{Warmup: math.NaN()}, evaluate.ErrWarmup},
		{"negative resamples", []string{one}, evaluate.Options{Resamples: -1}, evaluate.ErrResamples},
		{"no files", nil, evaluate.Options{}, evaluate.ErrNoQuestions},
		{"warmup 0.99 still leaves one", []string{one}, evaluate.Options{Warmup: 0.99}, nil}, // ⌊0.99⌋ = 0
		{"only late forecasts", []string{question("q", "yes", "2026-01-01 00:00", "2026-01-03 00:00", "2026-01-03 00:00 · agent:a · 70%")}, evaluate.Options{}, evaluate.ErrNoQuestions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs []*forecastfile.File
			for _, s := range tt.texts {
				fs = append(fs, mustParse(t, s))
			}
			_, err := evaluate.Run(fs, tt.opt)
			if !errors.Is(err, tt.want) {
				t.Errorf("Run = %v, want %v", err, tt.want)
			}
		})
	}
}
