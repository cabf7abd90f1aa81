package scoring_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/scoring"
)

// decode turns fuzz bytes into forecasts, 9 bytes each: who (one of four),
// outcome, and the bits of p (a raw float64 when the top bit of the who
// byte is set, so NaN, Inf and out-of-range values occur; otherwise a
// probability in [0, 1]).
func decode(data []byte) []scoring.Forecast {
	whos := []string{"", "agent:a", "agent:b", "person"}
	var fs []scoring.Forecast
	for len(data) >= 10 {
		bits := binary.LittleEndian.Uint64(data[2:10])
		p := float64(bits>>11) / (1 << 53)
		if data[0]&0x80 != 0 {
			p = math.Float64frombits(bits)
		}
		fs = append(fs, scoring.Forecast{Who: whos[data[0]&3], Outcome: data[1]&1 == 1, P: p})
		data = data[10:]
	}
	return fs
}

func FuzzScore(f *testing.F) {
	f.Add([]byte{}, int8(0))
	f.Add([]byte("\x01\x01\x00\x00\x00\x00\x00\x00\xf0\x3f\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00"), int8(10))
	f.Add([]byte("\x81\x00\x01\x00\x00\x00\x00\x00\xf8\x7f"), int8(3)) // NaN
	f.Add([]byte("0123456789abcdefghijABCDEFGHIJklmnopqrst"), int8(20))
	f.Add([]byte("0123456789"), int8(-1))
	f.Fuzz(func(t *testing.T, data []byte, bins int8) {
		fs := decode(data)
		res, err := scoring.Score(fs, scoring.Options{Bins: int(bins)})
		if err != nil {
			if !errors.Is(err, scoring.ErrEmpty) && !errors.Is(err, scoring.ErrBins) && !errors.Is(err, scoring.ErrProbability) {
				t.Fatalf("Score: untyped error %v", err)
			}
			var fe *scoring.ForecastError
			if errors.As(err, &fe) && (fe.Index < 0 || fe.Index >= len(fs) || (fs[fe.Index].P >= 0 && fs[fe.Index].P <= 1)) {
				t.Fatalf("ForecastError names index %d of %d, a valid forecast", fe.Index, len(fs))
			}
			return
		}
		if _, err := json.Marshal(res); err != nil { // fails on NaN or Inf
			t.Fatalf("json.Marshal: %v", err)
		}
		n := 0
		for _, fc := range res.Forecasters {
			n += fc.N
		}
		if n != len(fs) || res.Overall.N != len(fs) {
			t.Fatalf("forecasters hold %d, overall %d forecasts; want %d", n, res.Overall.N, len(fs))
		}
		for i := 1; i < len(res.Forecasters); i++ {
			if strings.Compare(res.Forecasters[i-1].Who, res.Forecasters[i].Who) >= 0 {
				t.Fatalf("forecasters not sorted: %q before %q", res.Forecasters[i-1].Who, res.Forecasters[i].Who)
			}
		}
		for _, s := range append([]scoring.Summary{res.Overall}, summaries(res.Forecasters)...) {
			check(t, s, res.Bins)
		}
	})
}

func summaries(fs []scoring.Forecaster) []scoring.Summary {
	var out []scoring.Summary
	for _, f := range fs {
		out = append(out, f.Summary)
	}
	return out
}

func check(t *testing.T, s scoring.Summary, bins int) {
	t.Helper()
	if s.Brier < 0 || s.Brier > 1 {
		t.Fatalf("Brier = %v, outside [0, 1]", s.Brier)
	}
	if s.LogScore > 0 || s.LogScore < math.Log(scoring.ClipLow) {
		t.Fatalf("LogScore = %v, outside [ln 0.001, 0]", s.LogScore)
	}
	if len(s.Calibration) != bins {
		t.Fatalf("%d calibration rows, want %d", len(s.Calibration), bins)
	}
	n, yes := 0, 0
	for _, b := range s.Calibration {
		n += b.Count
		yes += b.Yes
		if (b.Count == 0) != (b.MeanForecast == nil) {
			t.Fatalf("bin %+v: mean forecast nil iff empty", b)
		}
		if b.MeanForecast != nil && (*b.MeanForecast < b.Lo-1e-12 || *b.MeanForecast > b.Hi+1e-12) {
			t.Fatalf("bin [%v, %v): mean forecast %v outside it", b.Lo, b.Hi, *b.MeanForecast)
		}
	}
	if n != s.N || yes != s.Yes {
		t.Fatalf("bins hold %d forecasts, %d yes; want %d, %d", n, yes, s.N, s.Yes)
	}
	if (s.BrierSkill == nil) != (s.Yes == 0 || s.Yes == s.N) {
		t.Fatalf("BrierSkill = %v with %d of %d yes", s.BrierSkill, s.Yes, s.N)
	}
	m := s.Murphy
	if sum := m.Reliability - m.Resolution + m.Uncertainty + m.WithinBinVariance - m.WithinBinCovariance; math.Abs(sum-s.Brier) > 1e-9 {
		t.Fatalf("REL − RES + UNC + WBV − WBC = %v, Brier = %v (%+v)", sum, s.Brier, m)
	}
}

func FuzzParseOutcome(f *testing.F) {
	for _, s := range []string{"yes", "no", "1", "0", "YES", " no ", "void", "", "yes\x00", "ｙｅｓ", "yeſ", "\u00a0no"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		yes, err := scoring.ParseOutcome(s)
		w := strings.ToLower(strings.TrimSpace(s))
		valid := w == "yes" || w == "no" || w == "1" || w == "0"
		if err != nil {
			var oe *scoring.OutcomeError
			if !errors.As(err, &oe) || !errors.Is(err, scoring.ErrOutcome) || oe.Value != s {
				t.Fatalf("ParseOutcome(%q): error %v is not an *OutcomeError for the input", s, err)
			}
			if valid {
				t.Fatalf("ParseOutcome(%q) rejected a valid outcome: %v", s, err)
			}
			return
		}
		if !valid {
			t.Fatalf("ParseOutcome(%q) = %v, want an error", s, yes)
		}
		if yes != (w == "yes" || w == "1") {
			t.Fatalf("ParseOutcome(%q) = %v", s, yes)
		}
	})
}
