package odds_test

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/predictions-md/predictions/odds"
)

// rat parses a fraction such as "2/5" for expected values.
func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("bad test fraction %q", s)
	}
	return r
}

func TestParse(t *testing.T) {
	// Expected probabilities follow from the definitions of spec 2.3 and
	// DECISIONS.md: decimal d is 1/d, fractional a/b is b/(a+b), American
	// +A is 100/(A+100) and -A is A/(A+100), odds for a:b is a/(a+b).
	tests := []struct {
		in     string
		from   odds.Notation
		want   string // exact probability
		readAs odds.Notation
	}{
		// The same chance, 40%, in every notation, guessed by Auto.
		{"0.4", odds.Auto, "2/5", odds.Probability},
		{"40%", odds.Auto, "2/5", odds.Percent},
		{"2.5", odds.Auto, "2/5", odds.Decimal},
		{"3/2", odds.Auto, "2/5", odds.Fractional},
		{"+150", odds.Auto, "2/5", odds.American},
		{"2:3", odds.Auto, "2/5", odds.OddsFor},
		// Favourites.
		{"-150", odds.Auto, "3/5", odds.American},
		{"-110", odds.Auto, "11/21", odds.American},
		{"−110", odds.Auto, "11/21", odds.American}, // Unicode minus sign
		{"-100", odds.Auto, "1/2", odds.American},
		{"+100", odds.Auto, "1/2", odds.American},
		{"1.91", odds.Auto, "100/191", odds.Decimal},
		{"2/5", odds.Auto, "5/7", odds.Fractional},
		// Even money.
		{"evens", odds.Auto, "1/2", odds.Fractional},
		{"EVS", odds.Auto, "1/2", odds.Fractional},
		{"Even", odds.Auto, "1/2", odds.Fractional},
		{"evens", odds.Decimal, "1/2", odds.Decimal},
		{"even", odds.American, "1/2", odds.American},
		{"evs", odds.OddsFor, "1/2", odds.OddsFor},
		// Spaces and number shapes.
		{"  2.5  ", odds.Auto, "2/5", odds.Decimal},
		{"3 / 2", odds.Auto, "2/5", odds.Fractional},
		{"2 : 3", odds.Auto, "2/5", odds.OddsFor},
		{"40 %", odds.Auto, "2/5", odds.Percent},
		{"- 110", odds.Auto, "11/21", odds.American},
		{".5", odds.Auto, "1/2", odds.Probability},
		{"5.", odds.Auto, "1/5", odds.Decimal},
		{"1e-3", odds.Auto, "1/1000", odds.Probability},
		{"2.5E0", odds.Auto, "2/5", odds.Decimal},
		{"1.5/1", odds.Auto, "2/5", odds.Fractional},
		{"0.25%", odds.Auto, "1/400", odds.Percent},
		{"007", odds.Auto, "1/7", odds.Decimal},
		// Explicit notations.
		{"0.4", odds.Percent, "1/250", odds.Percent},
		{"40", odds.Percent, "2/5", odds.Percent},
		{"+2.5", odds.Decimal, "2/5", odds.Decimal},
		{"2", odds.Fractional, "1/3", odds.Fractional},
		{"2", odds.OddsFor, "2/3", odds.OddsFor},
		{"150", odds.American, "2/5", odds.American},
		{"-110.5", odds.American, "221/421", odds.American},
		{"0.4", odds.Probability, "2/5", odds.Probability},
		{"0.4", "", "2/5", odds.Probability},                   // "" is Auto
		{"2.5", odds.Notation("Decimal"), "2/5", odds.Decimal}, // another spelling
	}
	for _, tt := range tests {
		t.Run(string(tt.from)+"/"+tt.in, func(t *testing.T) {
			v, err := odds.Parse(tt.in, tt.from)
			if err != nil {
				t.Fatalf("Parse(%q, %q) error: %v", tt.in, tt.from, err)
			}
			want := rat(t, tt.want)
			if got := v.Exact(); got == nil || got.Cmp(want) != 0 {
				t.Errorf("Parse(%q, %q).Exact() = %v, want %v", tt.in, tt.from, got, want)
			}
			if wf, _ := want.Float64(); v.P != wf {
				t.Errorf("Parse(%q, %q).P = %v, want %v", tt.in, tt.from, v.P, wf)
			}
			if v.ReadAs != tt.readAs {
				t.Errorf("Parse(%q, %q).ReadAs = %q, want %q", tt.in, tt.from, v.ReadAs, tt.readAs)
			}
			if v.Input != strings.TrimSpace(tt.in) {
				t.Errorf("Parse(%q, %q).Input = %q, want the trimmed input", tt.in, tt.from, v.Input)
			}
		})
	}
}

func TestParseNote(t *testing.T) {
	tests := []struct {
		in       string
		wantNote bool
	}{
		{"50", true}, // 50 is decimal odds (2%), but may be meant as 50%
		{"10", true},
		{"100", true},
		{"9", false},
		{"101", false},
		{"12.5", false},
		{"0.5", false},
	}
	for _, tt := range tests {
		v, err := odds.Parse(tt.in, odds.Auto)
		if err != nil {
			t.Fatalf("Parse(%q) error: %v", tt.in, err)
		}
		if got := v.Note != ""; got != tt.wantNote {
			t.Errorf("Parse(%q).Note = %q, want a note: %v", tt.in, v.Note, tt.wantNote)
		}
	}
	if v, _ := odds.Parse("50", odds.Decimal); v.Note != "" {
		t.Errorf("Parse(%q, decimal).Note = %q, want none for an explicit notation", "50", v.Note)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		from     odds.Notation
		want     error
		notation odds.Notation // the notation in the *Error
		reason   string        // a fragment of the message
		certainP float64       // for ErrCertain: the P returned
	}{
		{"empty", "", odds.Auto, odds.ErrSyntax, odds.Auto, "is empty", 0},
		{"spaces", "   ", odds.Decimal, odds.ErrSyntax, odds.Decimal, "is empty", 0},
		{"too long", strings.Repeat("1", odds.MaxLen+1), odds.Auto, odds.ErrSyntax, odds.Auto, "longer than", 0},
		{"garbage", "abc", odds.Auto, odds.ErrSyntax, odds.Auto, "not a number", 0},
		{"NaN", "NaN", odds.Auto, odds.ErrSyntax, odds.Auto, "not a number", 0},
		{"Inf", "Inf", odds.Auto, odds.ErrSyntax, odds.Auto, "not a number", 0},
		{"hex", "0x10", odds.Auto, odds.ErrSyntax, odds.Auto, "not a number", 0},
		{"decimal comma", "1,91", odds.Auto, odds.ErrSyntax, odds.Auto, "1.91", 0},
		{"thousands", "+1,000", odds.Auto, odds.ErrSyntax, odds.American, "comma", 0},
		{"dash fraction", "5-2", odds.Auto, odds.ErrSyntax, odds.Auto, "write 5/2", 0},
		{"to", "3 to 2", odds.Auto, odds.ErrSyntax, odds.Auto, "3:2", 0},
		{"two points", "1.2.3", odds.Auto, odds.ErrSyntax, odds.Auto, "not a number", 0},
		{"bad exponent", "1e", odds.Auto, odds.ErrSyntax, odds.Auto, "not a number", 0},
		{"huge exponent", "1e1000000000", odds.Auto, odds.ErrRange, odds.Auto, "exponent", 0},
		{"exponent 331", "1e-331", odds.Auto, odds.ErrRange, odds.Auto, "exponent", 0},
		{"two slashes", "1/2/3", odds.Auto, odds.ErrSyntax, odds.Fractional, "more than one /", 0},
		{"empty side", "/2", odds.Auto, odds.ErrSyntax, odds.Fractional, "empty side", 0},
		{"signed fraction", "-3/2", odds.Auto, odds.ErrRange, odds.Fractional, "negative", 0},
		{"two percent", "40%%", odds.Auto, odds.ErrSyntax, odds.Percent, "more than one %", 0},
		// Probabilities of 0 and 1: ErrCertain, with the value.
		{"auto 0", "0", odds.Auto, odds.ErrCertain, odds.Probability, "probability of 0", 0},
		{"auto 1", "1", odds.Auto, odds.ErrCertain, odds.Probability, "probability of 1", 1},
		{"auto 1.00", "1.00", odds.Auto, odds.ErrCertain, odds.Probability, "probability of 1", 1},
		{"probability 0", "0.0", odds.Probability, odds.ErrCertain, odds.Probability, "probability of 0", 0},
		{"0%", "0%", odds.Auto, odds.ErrCertain, odds.Percent, "0%", 0},
		{"100%", "100%", odds.Auto, odds.ErrCertain, odds.Percent, "100%", 1},
		{"decimal 1", "1", odds.Decimal, odds.ErrCertain, odds.Decimal, "only the stake", 1},
		{"decimal 1.0", "1.0", odds.Decimal, odds.ErrCertain, odds.Decimal, "only the stake", 1},
		{"0/x", "0/5", odds.Auto, odds.ErrCertain, odds.Fractional, "wins nothing", 1},
		{"x/0", "5/0", odds.Auto, odds.ErrCertain, odds.Fractional, "denominator of 0", 0},
		{"0:x", "0:5", odds.Auto, odds.ErrCertain, odds.OddsFor, "no chance for", 0},
		{"x:0", "5:0", odds.Auto, odds.ErrCertain, odds.OddsFor, "no chance against", 1},
		// Out of range.
		{"0/0", "0/0", odds.Auto, odds.ErrRange, odds.Fractional, "0 on both sides", 0},
		{"0:0", "0:0", odds.Auto, odds.ErrRange, odds.OddsFor, "0 on both sides", 0},
		{"decimal below 1", "0.5", odds.Decimal, odds.ErrRange, odds.Decimal, "below 1", 0},
		{"decimal 0", "0", odds.Decimal, odds.ErrRange, odds.Decimal, "below 1", 0},
		{"decimal negative", "-2", odds.Decimal, odds.ErrRange, odds.Decimal, "negative", 0},
		{"american +0", "+0", odds.Auto, odds.ErrRange, odds.American, "between -100 and +100", 0},
		{"american -0", "-0", odds.Auto, odds.ErrRange, odds.American, "between -100 and +100", 0},
		{"american +99", "+99", odds.Auto, odds.ErrRange, odds.American, "between -100 and +100", 0},
		{"american -99.9", "-99.9", odds.Auto, odds.ErrRange, odds.American, "between -100 and +100", 0},
		{"auto negative probability", "-0.5", odds.Auto, odds.ErrRange, odds.American, "read as American", 0},
		{"percent above 100", "100.5%", odds.Auto, odds.ErrRange, odds.Percent, "above 100%", 0},
		{"percent negative", "-5%", odds.Auto, odds.ErrRange, odds.Percent, "negative", 0},
		{"probability above 1", "40", odds.Probability, odds.ErrRange, odds.Probability, "above 1", 0},
		{"near 1", "0." + strings.Repeat("9", 30), odds.Auto, odds.ErrRange, odds.Probability, "float64", 0},
		{"below 1e-300", "1e-100/1e100", odds.Auto, odds.ErrRange, odds.Fractional, "float64", 0},
		// Notation mismatches name the notation the text looks like.
		{"percent as probability", "40%", odds.Probability, odds.ErrSyntax, odds.Probability, "percent", 0},
		{"fraction as decimal", "3/2", odds.Decimal, odds.ErrSyntax, odds.Decimal, "notation fractional", 0},
		{"ratio as fractional", "2:3", odds.Fractional, odds.ErrSyntax, odds.Fractional, "notation odds_for", 0},
		{"unknown notation", "2.5", odds.Notation("moneyline"), odds.ErrNotation, "", "not an odds notation", 0},
		{"log odds input", "0.5", odds.LogOdds, odds.ErrNotation, "", "log-odds", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := odds.Parse(tt.in, tt.from)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse(%q, %q) error = %v, want %v", tt.in, tt.from, err, tt.want)
			}
			var pe *odds.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q, %q) error %T is not an *odds.Error", tt.in, tt.from, err)
			}
			if pe.Notation != tt.notation {
				t.Errorf("Parse(%q, %q) error notation = %q, want %q", tt.in, tt.from, pe.Notation, tt.notation)
			}
			if pe.Reason == "" || pe.Hint == "" {
				t.Errorf("Parse(%q, %q) error %q lacks a reason or a hint", tt.in, tt.from, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "odds: ") || !strings.Contains(msg, tt.reason) {
				t.Errorf("Parse(%q, %q) error = %q, want it to contain %q", tt.in, tt.from, msg, tt.reason)
			}
			if tt.want == odds.ErrCertain {
				if v.P != tt.certainP || v.ReadAs != tt.notation {
					t.Errorf("Parse(%q, %q) with ErrCertain = P %v as %q, want P %v as %q", tt.in, tt.from, v.P, v.ReadAs, tt.certainP, tt.notation)
				}
			} else if diff := cmp.Diff(odds.Value{}, v, cmp.AllowUnexported(odds.Value{})); diff != "" {
				t.Errorf("Parse(%q, %q) returned a value with the error (-want +got):\n%s", tt.in, tt.from, diff)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := odds.Parse("1.0", odds.Decimal)
	want := `odds: "1.0" as decimal odds: decimal odds of 1 return only the stake, which is a probability of 1 (certain); use decimal odds above 1, such as 1.01`
	if err == nil || err.Error() != want {
		t.Errorf("Parse(%q, decimal) error =\n%v\nwant\n%s", "1.0", err, want)
	}
}

func TestParseNotation(t *testing.T) {
	tests := []struct {
		in   string
		want odds.Notation
	}{
		{"", odds.Auto},
		{"auto", odds.Auto},
		{"Probability", odds.Probability},
		{" percent ", odds.Percent},
		{"DECIMAL", odds.Decimal},
		{"fractional", odds.Fractional},
		{"american", odds.American},
		{"odds_for", odds.OddsFor},
		{"odds-for", odds.OddsFor},
		{"odds for", odds.OddsFor},
	}
	for _, tt := range tests {
		got, err := odds.ParseNotation(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseNotation(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"log_odds", "moneyline", "decimals", "%"} {
		if _, err := odds.ParseNotation(in); !errors.Is(err, odds.ErrNotation) {
			t.Errorf("ParseNotation(%q) error = %v, want ErrNotation", in, err)
		}
	}
}

func TestFromProbability(t *testing.T) {
	v, err := odds.FromProbability(0.25)
	if err != nil || v.P != 0.25 || v.ReadAs != odds.Probability || v.Exact() != nil {
		t.Errorf("FromProbability(0.25) = %+v, %v; want P 0.25 as probability, not exact", v, err)
	}
	for _, p := range []float64{0, 1} {
		v, err := odds.FromProbability(p)
		if !errors.Is(err, odds.ErrCertain) || v.P != p {
			t.Errorf("FromProbability(%v) = P %v, %v; want P %v with ErrCertain", p, v.P, err, p)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN(), math.Inf(1), 1e-320} {
		if _, err := odds.FromProbability(p); !errors.Is(err, odds.ErrRange) {
			t.Errorf("FromProbability(%v) error = %v, want ErrRange", p, err)
		}
	}
}

func TestReadProbability(t *testing.T) {
	// The rule of DECISIONS.md for a lone number: below 1 a fraction,
	// above 1 to 100 a percent, exactly 1 an error (1% or certain?).
	tests := []struct {
		x    float64
		want float64
		as   odds.Notation
	}{
		{0, 0, odds.Probability},
		{0.75, 0.75, odds.Probability},
		{0.999, 0.999, odds.Probability},
		{75, 0.75, odds.Percent},
		{99.5, 0.995, odds.Percent},
		{99.9, 0.999, odds.Percent}, // rounded once, not 0.9990000000000001
		{100, 1, odds.Percent},
	}
	for _, tt := range tests {
		p, as, err := odds.ReadProbability(tt.x)
		if err != nil || p != tt.want || as != tt.as {
			t.Errorf("ReadProbability(%v) = %v, %q, %v; want %v, %q", tt.x, p, as, err, tt.want, tt.as)
		}
	}
	for _, x := range []float64{-0.01, 100.01, 1e9, math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, _, err := odds.ReadProbability(x)
		var pe *odds.Error
		if !errors.Is(err, odds.ErrRange) || !errors.As(err, &pe) || pe.Hint == "" {
			t.Errorf("ReadProbability(%v) error = %v, want an *Error with ErrRange and a hint", x, err)
		}
	}
}

func TestReadProbabilityText(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		as   odds.Notation
	}{
		{"75%", 0.75, odds.Percent},
		{" 75 % ", 0.75, odds.Percent},
		{"0%", 0, odds.Percent},
		{"100%", 1, odds.Percent},
		{"0.5%", 0.005, odds.Percent},
		{"0.75", 0.75, odds.Probability},
		{"75", 0.75, odds.Percent},
		{"0", 0, odds.Probability},
		{"99.9%", 0.999, odds.Percent},
		{"99.9", 0.999, odds.Percent},
	}
	for _, tt := range tests {
		p, as, err := odds.ReadProbabilityText(tt.in)
		if err != nil || p != tt.want || as != tt.as {
			t.Errorf("ReadProbabilityText(%q) = %v, %q, %v; want %v, %q", tt.in, p, as, err, tt.want, tt.as)
		}
	}
	for _, tt := range []struct {
		in   string
		want error
	}{
		{"", odds.ErrSyntax},
		{"abc", odds.ErrSyntax},
		{"3/4", odds.ErrSyntax},
		{"101%", odds.ErrRange},
		{"101", odds.ErrRange},
		{"-5%", odds.ErrRange},
		{"1", odds.ErrCertain},
		{"1e-320", odds.ErrRange},
	} {
		if _, _, err := odds.ReadProbabilityText(tt.in); !errors.Is(err, tt.want) {
			t.Errorf("ReadProbabilityText(%q) error = %v, want %v", tt.in, err, tt.want)
		}
	}
}
