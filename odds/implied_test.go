package odds_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/predictions-md/predictions/odds"
)

// The three football matches (home, draw, away) of the README of the R
// package implied (github.com/opisthokonta/implied, README.md, early
// version with printed output; the same odds open its vignette
// "Introduction to the implied package").
var impliedREADMEOdds = [][]float64{
	{4.20, 3.70, 1.95},
	{2.45, 3.70, 2.90},
	{2.05, 3.20, 3.80},
}

func TestImpliedMultiplicativeR(t *testing.T) {
	// res1$probabilities and res1$margin printed in that README (7 digits).
	wantP := [][]float64{
		{0.2331556, 0.2646631, 0.5021813},
		{0.3988848, 0.2641264, 0.3369888},
		{0.4586948, 0.2938514, 0.2474538},
	}
	wantMargin := []float64{0.02118602, 0.02326112, 0.06346277}
	for i, d := range impliedREADMEOdds {
		b, err := odds.Implied(d, odds.Multiplicative)
		if err != nil {
			t.Fatalf("Implied(%v): %v", d, err)
		}
		if diff := cmp.Diff(wantP[i], b.Probabilities, cmpopts.EquateApprox(0, 5e-8)); diff != "" {
			t.Errorf("Implied(%v).Probabilities (-want +got):\n%s", d, diff)
		}
		if got := b.OverroundPct / 100; math.Abs(got-wantMargin[i]) > 5e-9 {
			t.Errorf("Implied(%v).OverroundPct = %v, want %v%%", d, b.OverroundPct, 100*wantMargin[i])
		}
	}
}

func TestImpliedShinR(t *testing.T) {
	// res2$probabilities and res2$zvalues from the same README. R found z
	// with a root finder whose default tolerance is looser than our 1e-12
	// fixed point, so its figures agree to about 1e-5; TestImpliedShinPython
	// and TestImpliedProperties pin the method more tightly.
	wantP := [][]float64{
		{0.2315716, 0.2635742, 0.5048542},
		{0.4000221, 0.2629271, 0.3370508},
		{0.4645882, 0.2919788, 0.2434331},
	}
	wantZ := []float64{0.01061048, 0.01163552, 0.03182353}
	for i, d := range impliedREADMEOdds {
		b, err := odds.Implied(d, odds.Shin)
		if err != nil {
			t.Fatalf("Implied(%v, Shin): %v", d, err)
		}
		if diff := cmp.Diff(wantP[i], b.Probabilities, cmpopts.EquateApprox(0, 3e-6)); diff != "" {
			t.Errorf("Implied(%v, Shin).Probabilities (-want +got):\n%s", d, diff)
		}
		if math.Abs(b.Z-wantZ[i]) > 2e-5 {
			t.Errorf("Implied(%v, Shin).Z = %v, want %v", d, b.Z, wantZ[i])
		}
	}
}

func TestImpliedPowerR(t *testing.T) {
	// The power method of the same README: p_i = r_i^(1/n), res4$exponents
	// printing n, which is 1/k for our Exponent k. Agreement to about 1e-5
	// (2e-5 for n) for the same reason as Shin; TestImpliedProperties
	// checks that our k makes the r_i^k add up to 1.
	wantP := [][]float64{
		{0.2311414, 0.2630644, 0.5057942},
		{0.4003156, 0.2627189, 0.3369655},
		{0.4667139, 0.2908985, 0.2423876},
	}
	wantN := []float64{0.9797664, 0.9788115, 0.9419744}
	for i, d := range impliedREADMEOdds {
		b, err := odds.Implied(d, odds.Power)
		if err != nil {
			t.Fatalf("Implied(%v, Power): %v", d, err)
		}
		if diff := cmp.Diff(wantP[i], b.Probabilities, cmpopts.EquateApprox(0, 3e-6)); diff != "" {
			t.Errorf("Implied(%v, Power).Probabilities (-want +got):\n%s", d, diff)
		}
		if got := 1 / b.Exponent; math.Abs(got-wantN[i]) > 3e-5 {
			t.Errorf("1/Implied(%v, Power).Exponent = %v, want %v", d, got, wantN[i])
		}
	}
}

func TestImpliedShinPython(t *testing.T) {
	// README of the Python package shin (github.com/mberk/shin):
	// calculate_implied_probabilities([2.6, 2.4, 4.3]) gives
	// [0.37299406033208965, 0.4047794109200184, 0.2222265287474275],
	// 425 iterations, z 0.01694251276407055 (the same fixed point, stopping
	// at a change in z of 1e-12; a later version prints 426 iterations);
	// and for two outcomes [1.5, 2.74] it gives
	// [0.6508515815085157, 0.3491484184914841], 0 iterations (closed form),
	// z 0.03172728540646625.
	tests := []struct {
		decimals   []float64
		want       []float64
		z          float64
		iterations int
	}{
		{[]float64{2.6, 2.4, 4.3}, []float64{0.37299406033208965, 0.4047794109200184, 0.2222265287474275}, 0.01694251276407055, 425},
		{[]float64{1.5, 2.74}, []float64{0.6508515815085157, 0.3491484184914841}, 0.03172728540646625, 0},
	}
	for _, tt := range tests {
		b, err := odds.Implied(tt.decimals, odds.Shin)
		if err != nil {
			t.Fatalf("Implied(%v, Shin): %v", tt.decimals, err)
		}
		if diff := cmp.Diff(tt.want, b.Probabilities, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("Implied(%v, Shin).Probabilities (-want +got):\n%s", tt.decimals, diff)
		}
		if math.Abs(b.Z-tt.z) > 1e-10 {
			t.Errorf("Implied(%v, Shin).Z = %v, want %v", tt.decimals, b.Z, tt.z)
		}
		// The Python package iterates a fixed point (425 steps, z good to
		// about 5e-13); bisection takes one step per bit of z.
		if b.Iterations < 1 || b.Iterations > 1100 {
			t.Errorf("Implied(%v, Shin).Iterations = %d, want 1 to 1,100 bisection steps (Python: %d fixed-point steps)", tt.decimals, b.Iterations, tt.iterations)
		}
	}
}

func TestImpliedTwoOutcomesShinIsAdditive(t *testing.T) {
	// With two outcomes Shin's method equals the additive method (shin
	// README; Clarke, Kovalchik & Ingram 2017).
	for _, d := range [][]float64{{1.5, 2.74}, {1.9, 1.9}, {1.05, 11}} {
		s, err1 := odds.Implied(d, odds.Shin)
		a, err2 := odds.Implied(d, odds.Additive)
		if err1 != nil || err2 != nil {
			t.Fatalf("Implied(%v): %v, %v", d, err1, err2)
		}
		if diff := cmp.Diff(a.Probabilities, s.Probabilities, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("Implied(%v): Shin differs from additive (-additive +shin):\n%s", d, diff)
		}
	}
}

// TestImpliedProperties checks on random books that each method's result
// satisfies the method's defining equations, computed here independently.
func TestImpliedProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 2 + rng.IntN(29)
		margin := 1 + 0.15*rng.Float64()
		weights := make([]float64, n)
		var total float64
		for i := range weights {
			weights[i] = math.Exp(3 * rng.NormFloat64())
			total += weights[i]
		}
		d := make([]float64, n)
		r := make([]float64, n)
		var sum float64
		for i := range d {
			d[i] = 1 / (weights[i] / total * margin)
			if d[i] <= 1.0001 {
				d[i] = 1.0001
			}
			r[i] = 1 / d[i]
			sum += r[i]
		}
		for _, m := range odds.Methods {
			b, err := odds.Implied(d, m)
			if m == odds.Additive && errors.Is(err, odds.ErrNegative) {
				continue // long shots in a big margin; tested below
			}
			if err != nil {
				t.Fatalf("trial %d: Implied(%v, %v): %v", trial, d, m, err)
			}
			var total float64
			for _, p := range b.Probabilities {
				if p < 0 || p > 1 || math.IsNaN(p) {
					t.Fatalf("trial %d, %v: probability %v outside [0, 1]", trial, m, p)
				}
				total += p
			}
			if math.Abs(total-1) > 1e-12 {
				t.Errorf("trial %d, %v: probabilities add up to %v", trial, m, total)
			}
			if math.Abs(b.Sum-sum) > 1e-12 || math.Abs(b.OverroundPct-100*(sum-1)) > 1e-9 || math.Abs(b.HoldPct-100*(1-1/sum)) > 1e-9 {
				t.Errorf("trial %d, %v: Sum %v, overround %v, hold %v; want %v, %v, %v", trial, m, b.Sum, b.OverroundPct, b.HoldPct, sum, 100*(sum-1), 100*(1-1/sum))
			}
			for i, p := range b.Probabilities {
				var want float64
				switch m {
				case odds.Multiplicative:
					want = r[i] / sum
				case odds.Additive:
					want = r[i] - (sum-1)/float64(n)
				case odds.Power:
					want = math.Pow(r[i], b.Exponent)
				case odds.Shin:
					// Shin's formula for the reported z (Jullien & Salanié 1994).
					z := b.Z
					want = (math.Sqrt(z*z+4*(1-z)*r[i]*r[i]/sum) - z) / (2 * (1 - z))
				}
				if math.Abs(p-want) > 1e-9 {
					t.Errorf("trial %d, %v, outcome %d: p = %v, want %v", trial, m, i, p, want)
				}
			}
			if m == odds.Shin && (b.Z < 0 || b.Z >= 1 || (n > 2 && b.Iterations == 0)) {
				t.Errorf("trial %d: Shin z = %v after %d iterations", trial, b.Z, b.Iterations)
			}
			if m == odds.Power && b.Exponent < 1 {
				t.Errorf("trial %d: power exponent %v < 1 for a margin", trial, b.Exponent)
			}
		}
	}
}

func TestImpliedUnderround(t *testing.T) {
	// 3.0, 3.0 and 3.5 add up to 95.24%: no margin.
	d := []float64{3, 3, 3.5}
	b, err := odds.Implied(d, odds.Multiplicative)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.35, 0.35, 0.3} // (1/3, 1/3, 2/7) scaled by 21/20
	if diff := cmp.Diff(want, b.Probabilities, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
		t.Errorf("Implied(%v) (-want +got):\n%s", d, diff)
	}
	if b.OverroundPct >= 0 || len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "95.24%") {
		t.Errorf("Implied(%v): overround %v, notes %q; want a negative overround and a note", d, b.OverroundPct, b.Notes)
	}
	p, err := odds.Implied(d, odds.Power)
	if err != nil || p.Exponent >= 1 {
		t.Errorf("Implied(%v, Power): exponent %v, %v; want below 1", d, p.Exponent, err)
	}
	if _, err := odds.Implied(d, odds.Shin); !errors.Is(err, odds.ErrNoConvergence) || !strings.Contains(err.Error(), "margin") {
		t.Errorf("Implied(%v, Shin) error = %v, want ErrNoConvergence naming the missing margin", d, err)
	}
}

func TestImpliedErrors(t *testing.T) {
	tests := []struct {
		name     string
		decimals []float64
		method   odds.Method
		want     error
		index    int // outcome index for *OutcomeError, -1 otherwise
	}{
		{"none", nil, odds.Multiplicative, odds.ErrOutcomes, -1},
		{"one", []float64{1.5}, odds.Multiplicative, odds.ErrOutcomes, -1},
		{"decimal 1", []float64{2, 1}, odds.Multiplicative, odds.ErrCertain, 1},
		{"infinite", []float64{math.Inf(1), 2}, odds.Multiplicative, odds.ErrCertain, 0},
		{"below 1", []float64{2, 3, 0.5}, odds.Power, odds.ErrRange, 2},
		{"zero", []float64{0, 3}, odds.Shin, odds.ErrRange, 0},
		{"negative", []float64{2, -3}, odds.Shin, odds.ErrRange, 1},
		{"NaN", []float64{2, math.NaN()}, odds.Multiplicative, odds.ErrRange, 1},
		{"bad method", []float64{2, 2}, odds.Method(9), odds.ErrMethod, -1},
		// Clarke, Kovalchik & Ingram (2017), as quoted in the vignette of the
		// R package implied: 1/c(0.870, 0.2, 0.1, 0.05, 0.02, 0.01) makes the
		// additive method negative for the long shots (0.02 and 0.01 are
		// below the equal share 0.25/6 of the margin); the first is index 4.
		{"additive negative", []float64{1 / 0.870, 1 / 0.2, 1 / 0.1, 1 / 0.05, 1 / 0.02, 1 / 0.01}, odds.Additive, odds.ErrNegative, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := odds.Implied(tt.decimals, tt.method)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Implied(%v, %v) error = %v, want %v", tt.decimals, tt.method, err, tt.want)
			}
			var oe *odds.OutcomeError
			if got := errors.As(err, &oe); got != (tt.index >= 0) {
				t.Fatalf("Implied(%v) error %v: *OutcomeError %v, want %v", tt.decimals, err, got, tt.index >= 0)
			}
			if oe != nil {
				var pe *odds.Error
				if oe.Index != tt.index || !errors.As(err, &pe) || pe.Hint == "" {
					t.Errorf("Implied(%v) error %v: index %d, want %d, with a detailed *Error", tt.decimals, err, oe.Index, tt.index)
				}
				if want := "odds: outcome "; !strings.HasPrefix(err.Error(), want) {
					t.Errorf("error %q does not start with %q", err, want)
				}
			}
		})
	}
}

func TestImpliedShinWideBook(t *testing.T) {
	// 30 outcomes at decimal odds 2, 5, 8, ..., 89: a large margin, as in
	// a race; the fixed point is reached in a few hundred steps at most.
	d := make([]float64, 30)
	for i := range d {
		d[i] = 2 + 3*float64(i)
	}
	b, err := odds.Implied(d, odds.Shin)
	if err != nil {
		t.Fatalf("Implied(30 outcomes, Shin): %v", err)
	}
	if b.Iterations == 0 || b.Iterations > 1000 || b.Z <= 0 {
		t.Errorf("Implied(30 outcomes, Shin): z %v after %d iterations", b.Z, b.Iterations)
	}
}

func TestParseMethod(t *testing.T) {
	tests := []struct {
		in   string
		want odds.Method
	}{
		{"", odds.Multiplicative},
		{"multiplicative", odds.Multiplicative},
		{"basic", odds.Multiplicative},
		{"Additive", odds.Additive},
		{" power ", odds.Power},
		{"logarithmic", odds.Power},
		{"SHIN", odds.Shin},
	}
	for _, tt := range tests {
		got, err := odds.ParseMethod(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseMethod(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := odds.ParseMethod("wpo"); !errors.Is(err, odds.ErrMethod) {
		t.Errorf("ParseMethod(%q) error = %v, want ErrMethod", "wpo", err)
	}
	for _, m := range odds.Methods {
		if back, err := odds.ParseMethod(m.String()); err != nil || back != m {
			t.Errorf("ParseMethod(%q) = %v, %v, want %v", m.String(), back, err, m)
		}
	}
}

func TestBookJSON(t *testing.T) {
	b, err := odds.Implied([]float64{2.6, 2.4, 4.3}, odds.Shin)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"method":"shin"`, `"raw":[`, `"overround_pct":`, `"hold_pct":`, `"probabilities":[`, `"z":`, `"iterations":58`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("json.Marshal(Book) = %s, want it to contain %s", data, key)
		}
	}
	var back struct{ Method odds.Method }
	if err := json.Unmarshal(data, &back); err != nil || back.Method != odds.Shin {
		t.Errorf("json.Unmarshal method = %v, %v, want shin", back.Method, err)
	}
	if _, err := json.Marshal(odds.Method(7)); err == nil {
		t.Errorf("json.Marshal(Method(7)) succeeded, want an error")
	}
}
