package odds

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The int64 path (small.go) must give exactly what the big.Rat code gives.
// These tests run both on the same inputs: parse(s, n, false) skips the
// int64 path, and a Value it makes holds its exact probability as a
// *big.Rat, so its methods run the big.Rat code.

// bitsEqual compares floats bit for bit, so 0 and -0 differ.
var bitsEqual = cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })

// diffNumbers are the numbers of diffInputs: plain, edge cases of every
// notation, numbers that do not fit in int64 and texts that are not numbers.
var diffNumbers = []string{
	"0", "1", "1.0", "1.00", "1.01", "2", "2.5", "1.91", "0.4", ".5", "5.", "3", "7", "10", "25", "50", "100", "99", "101",
	"150", "110", "110.5", "99.9", "100.0001", "200", "0.001", "0.25", "0.3", "0.5", "0.75", "0.999", "0.123456789",
	"99.999", "9.999e2", "1e-300", "1e-299", "1e-5", "1e-9", "1e-18", "1e-19", "1e-301", "1e-330", "1e-331", "1e330",
	"1e331", "1e15", "1e17", "1e18", "1e19", "1E3", "2.5E0", "1e+2", "1e-0", "0e999", "0e5", "5e-1", "007", "0.0",
	"999999999999999999", "9223372036854775807", "9223372036854775707", "9223372036854775808",
	"4611686018427387904", "18446744073709551616", "92233720368547758.07", "0.9223372036854775807",
	"0.9999999999999999", "0.99999999999999999", "0.9999999999999999999999", "0.1234567890123456789",
	"0.12345678901234567", "0.1234567890123", "12345678901234567890123", "3.14159265358979323846264338327950288",
	"0.00000000000000000001", "1.000000000001", "100.000000001", "0.333333333333", "1.00000000000000000000",
	"123456789", "987654321", "1e0000000000000000000001",
	"1.2.3", "1e", "e5", ".", "", "abc", "1,5", "0x10", "Inf", "NaN", "1_000", "1e-", "1e+", "--1", "+",
}

// diffOthers are the other sides of the pairs a/b and a:b.
var diffOthers = []string{"1", "2", "3", "7", "100", "0", "1e-3", "999999999999999999", "3.3", "9223372036854775807"}

// diffInputs are texts in every notation built from diffNumbers, and more.
func diffInputs() []string {
	in := []string{"evens", "EVS", "Even", "evs", " even ", "3 to 2", "5-2", "1/2/3", "/2", "2/", "1:2:3", ":2",
		"40%%", "- 110", "+ 150", "−110", "100%", "99.999%", "0%", "40 %", " 7 / 4 ", "2 : 3", "+-150", "-+150",
		"1e-100/1e100", "1/1e-300", "1e-300/1", "+1e330", "0/0", "0:0", "5/0", "0/5", "5:0", "0:5", "1/3%", "+1/3",
		"1:999999999999999999", "999999999999999999:1", "999999999999999999/1", "1/999999999999999999",
		"123456789/987654321", "7:1e-10", "1e-50%", "0.99999999", "+1e50", "-1e15", "-1e16", "-9999900",
		"+100", "-100", "+99", "-99.9", "+0", "-0", "−0", "+100000", "-100000", "+1e17", "-1e17",
		// Long fractions, approximated (1/N, N/1, denominators up to 100).
		"0.99999123456789", "123456789012.5", "1/12345678901234567", "12345678901234567/3", "+123456789012345678",
		"0.000000001234567891", "0.000000512", "9223372036854775807/99", "99/9223372036854775807"}
	for _, x := range diffNumbers {
		in = append(in, x, "+"+x, "-"+x, "−"+x, x+"%", " "+x+" ")
		for _, y := range diffOthers {
			in = append(in, x+"/"+y, y+"/"+x, x+":"+y, y+":"+x)
		}
	}
	return in
}

var diffNotations = []Notation{Auto, Probability, Percent, Decimal, Fractional, American, OddsFor, "", "Decimal", "moneyline", LogOdds}

// diffRefs are the values the tests compare each input with.
var diffRefs = []string{"+150", "1.91", "1e-300", "0.9999999", "999999999999999999/1", "evens"}

// refs are diffRefs by the int64 path and by the big.Rat code.
var refs = func() (r [][2]Value) {
	for _, s := range diffRefs {
		vf, _, vb, _ := int64AndBig(s, Auto)
		r = append(r, [2]Value{vf, vb})
	}
	inexact, _ := FromProbability(0.3)
	return append(r, [2]Value{inexact, inexact})
}()

// int64AndBig returns Parse(s, n) by the int64 path (when it applies) and
// by the big.Rat code.
func int64AndBig(s string, n Notation) (vf Value, ef error, vb Value, eb error) {
	vf, ef = parse(s, n, true)
	vb, eb = parse(s, n, false)
	return
}

// checkSame fails t unless both paths give the same results for s in n.
func checkSame(t *testing.T, s string, n Notation) { checkSameOnce(t, s, n, nil) }

// derivedKey is what the results computed from the two values of an
// input depend on: the values, and whether the int64 path holds its value
// in int64s.
type derivedKey struct {
	int64s, big valueView
	small       bool
}

// checkSameOnce is checkSame; with seen, what is computed from the two
// values (Formats, Format, Decimal, Compare) is checked once per pair of
// values, since it depends on them alone (not on the text they came from).
func checkSameOnce(t *testing.T, s string, n Notation, seen map[derivedKey]bool) {
	t.Helper()
	vf, ef, vb, eb := int64AndBig(s, n)
	if diff := diffErrors(eb, ef); diff != "" {
		t.Fatalf("Parse(%q, %q) error mismatch (-big +int64):\n%s", s, n, diff)
	}
	if wb, wf := view(vb), view(vf); !same(wb, wf, wb.P, wf.P) {
		t.Fatalf("Parse(%q, %q) mismatch (-big +int64):\n%s", s, n, cmp.Diff(wb, wf, bitsEqual))
	}
	if seen != nil {
		key := derivedKey{view(vf), view(vb), vf.den != 0}
		key.int64s.Input, key.int64s.Note, key.big.Input, key.big.Note = "", "", "", ""
		if seen[key] {
			return
		}
		seen[key] = true
	}
	if fb, ff := vb.Formats(), vf.Formats(); !same(fb, ff, fb.Probability, ff.Probability, fb.Percent, ff.Percent,
		fb.Decimal, ff.Decimal, fb.American, ff.American, fb.LogOdds, ff.LogOdds) {
		t.Fatalf("Parse(%q, %q).Formats() mismatch (-big +int64):\n%s", s, n, cmp.Diff(fb, ff, bitsEqual))
	}
	for _, to := range diffNotations {
		if got, want := vf.Format(to), vb.Format(to); got != want {
			t.Fatalf("Parse(%q, %q).Format(%q) = %q, want %q", s, n, to, got, want)
		}
	}
	if got, want := vf.Decimal(), vb.Decimal(); math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("Parse(%q, %q).Decimal() = %v, want %v", s, n, got, want)
	}
	for _, r := range refs {
		if !(vb.P > 0 && vb.P < 1) { // Compare refuses it before any arithmetic
			break
		}
		rf, rb := r[0], r[1]
		for _, pair := range [][4]Value{{vf, rf, vb, rb}, {rf, vf, rb, vb}} {
			cf, errf := Compare(pair[0], pair[1])
			cb, errb := Compare(pair[2], pair[3])
			if diff := diffErrors(errb, errf); diff != "" {
				t.Fatalf("Compare(%q, %q) error mismatch (-big +int64):\n%s", pair[0].Input, pair[1].Input, diff)
			}
			if !same(cb, cf, cb.OddsRatio, cf.OddsRatio, cb.RiskRatio, cf.RiskRatio, cb.DifferencePoints, cf.DifferencePoints) {
				t.Fatalf("Compare(%q, %q) mismatch (-big +int64):\n%s", pair[0].Input, pair[1].Input, cmp.Diff(cb, cf, bitsEqual))
			}
		}
	}
}

// same reports whether a == b with their floats, given in pairs, equal bit
// for bit: a quick test before cmp.Diff, which is slow for so many inputs.
func same[T comparable](a, b T, floats ...float64) bool {
	if a != b {
		return false
	}
	for i := 0; i < len(floats); i += 2 {
		if math.Float64bits(floats[i]) != math.Float64bits(floats[i+1]) {
			return false
		}
	}
	return true
}

// valueView is a Value's observable state.
type valueView struct {
	P                   float64
	ReadAs              Notation
	Input, Note, Exact  string
	Exactly, ExactIsNil bool
}

func view(v Value) valueView {
	w := valueView{P: v.P, ReadAs: v.ReadAs, Input: v.Input, Note: v.Note, Exactly: v.isExact()}
	if e := v.Exact(); e != nil {
		w.Exact = e.String()
	} else {
		w.ExactIsNil = true
	}
	return w
}

// diffErrors compares errors by text, by the sentinels they wrap and, for
// *Error, field by field.
func diffErrors(want, got error) string {
	if want == nil || got == nil {
		if want == got {
			return ""
		}
		return cmp.Diff(want, got, cmpopts.EquateErrors())
	}
	if want.Error() != got.Error() {
		return cmp.Diff(want.Error(), got.Error())
	}
	for _, s := range []error{ErrSyntax, ErrRange, ErrCertain, ErrNotation} {
		if errors.Is(want, s) != errors.Is(got, s) {
			return "errors.Is(" + s.Error() + ") differs"
		}
	}
	var pw, pg *Error
	if errors.As(want, &pw) != errors.As(got, &pg) {
		return "errors.As(*Error) differs"
	}
	if pw != nil && *pw != *pg {
		return cmp.Diff(*pw, *pg, cmpopts.EquateErrors())
	}
	return ""
}

func TestInt64MatchesBig(t *testing.T) {
	ins := diffInputs()
	int64s := 0
	seen := map[derivedKey]bool{}
	for _, s := range ins {
		for _, n := range diffNotations {
			checkSameOnce(t, s, n, seen)
			if v, _ := Parse(s, n); v.den != 0 {
				int64s++
			}
		}
	}
	t.Logf("%d inputs in %d notations, %d parsed by the int64 path, %d pairs of values", len(ins), len(diffNotations), int64s, len(seen))
}

// TestInt64PathUsed checks that the common inputs take the int64 path: no
// allocation to parse, one string for Formats and Format.
func TestInt64PathUsed(t *testing.T) {
	for _, s := range []string{"0.4", "40%", "2.5", "3/2", "+150", "-110", "2:3", "1.91", "evens", "0.1234567890123", "1e-5"} {
		v, err := Parse(s, Auto)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := v.small(); !ok {
			t.Errorf("Parse(%q) is not held as int64s", s)
		}
		if a := testing.AllocsPerRun(10, func() { _, _ = Parse(s, Auto) }); a != 0 {
			t.Errorf("Parse(%q) allocates %v times, want 0", s, a)
		}
		if a := testing.AllocsPerRun(10, func() { _ = v.Formats() }); a != 1 {
			t.Errorf("Parse(%q).Formats() allocates %v times, want 1", s, a)
		}
		for _, n := range []Notation{Probability, Percent, Decimal, Fractional, American, OddsFor, LogOdds} {
			if a := testing.AllocsPerRun(10, func() { _ = v.Format(n) }); a > 1 {
				t.Errorf("Parse(%q).Format(%q) allocates %v times, want at most 1", s, n, a)
			}
		}
		// Compare multiplies the numbers: long ones may take the big.Rat code.
		if a := testing.AllocsPerRun(10, func() { _, _ = Compare(v, v) }); a != 0 && len(s) < 6 {
			t.Errorf("Compare(%q, itself) allocates %v times, want 0", s, a)
		}
	}
}

func TestParseNotationAllocs(t *testing.T) {
	for _, n := range InputNotations {
		in := " " + string(n)
		if a := testing.AllocsPerRun(10, func() { _, _ = ParseNotation(in) }); a != 0 {
			t.Errorf("ParseNotation(%q) allocates %v times, want 0", n, a)
		}
	}
}

// ratFloatCases are quotients around the float64 rounding boundaries.
var ratFloatCases = [][2]uint64{
	{1, 3}, {2, 3}, {1, 1}, {0, 7}, {1<<53 + 1, 1}, {1<<53 + 3, 1}, {1<<54 + 2, 1}, {1<<54 + 6, 1}, {1<<63 - 1, 1},
	{1<<64 - 1, 1}, {1, 1<<64 - 1}, {1<<64 - 1, 1<<64 - 2}, {1<<64 - 2, 1<<64 - 1}, {1<<53 + 1, 1 << 60},
	{100, 191}, {10000, 191}, {9223372036854775807, 9223372036854775707}, {3, 1<<63 + 1}, {1<<63 + 1, 3},
	{12345678901234567, 10000000000000000}, {1 << 60, 1<<53 + 1}, {(1<<53 + 1) << 10, 1 << 10},
}

func checkRatFloat(t *testing.T, a, b uint64) {
	t.Helper()
	if b == 0 {
		return
	}
	want, _ := new(big.Rat).SetFrac(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)).Float64()
	if got := ratFloat(a, b); math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("ratFloat(%d, %d) = %v, want %v", a, b, got, want)
	}
}

func TestRatFloat(t *testing.T) {
	for _, c := range ratFloatCases {
		checkRatFloat(t, c[0], c[1])
	}
}

func FuzzRatFloat(f *testing.F) {
	for _, c := range ratFloatCases {
		f.Add(c[0], c[1])
	}
	f.Fuzz(checkRatFloat)
}

// FuzzInt64MatchesBig checks that, for any text in any notation, the int64
// path gives exactly what the big.Rat code gives (see checkSame).
func FuzzInt64MatchesBig(f *testing.F) {
	for _, s := range []string{"0.4", "40%", "2.5", "3/2", "+150", "-150", "2:3", "evens", "EVS", "1.91",
		"0", "1", "1.0", "+0", "-99", "5/0", "0:5", "100%", "1e-3", "1e-300", "+1e330", ".5", "5.", "1,91",
		"3 to 2", "5-2", "−110", " 7 / 4 ", "0.9999999999999999", "1e-100/1e100", "abc", "",
		"999999999999999999/1", "0.1234567890123456789", "9223372036854775807:3", "99.999%", "1.01", "+100"} {
		for n := range len(diffNotations) {
			f.Add(s, uint8(n))
		}
	}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		checkSame(t, s, diffNotations[int(which)%len(diffNotations)])
	})
}
