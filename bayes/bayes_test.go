package bayes

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var approx = cmpopts.EquateApprox(1e-12, 1e-12)

// The mammography problem (Eddy 1982; Gigerenzer & Hoffrage 1995; Yudkowsky,
// "An Intuitive Explanation of Bayes' Theorem", yudkowsky.net/rational/bayes):
// 1% of women screened have breast cancer, 80% of them test positive, 9.6%
// of the others test positive too; after a positive test the chance of
// cancer is 0.008 / (0.008 + 0.09504) = 7.76% ("80/1,030, 7.8%" rounded).
func TestUpdateMammography(t *testing.T) {
	res, err := Update(0.01, []Evidence{Pair("positive mammography", 0.8, 0.096)})
	if err != nil {
		t.Fatal(err)
	}
	post := 0.008 / (0.008 + 0.99*0.096)
	want := Result{
		Prior: 0.01, PriorOdds: 1.0 / 99,
		Steps: []Step{{Index: 0, Label: "positive mammography", From: FromPIf, Prior: 0.01, LR: new(0.8 / 0.096),
			PriorOdds: new(1.0 / 99), PosteriorOdds: new(0.8 / 0.096 / 99), Posterior: post, ChangePts: 100 * (post - 0.01)}},
		TotalLR: new(0.8 / 0.096), PosteriorOdds: new(0.8 / 0.096 / 99), Posterior: post, ChangePts: 100 * (post - 0.01),
		Notes: []string{},
	}
	if diff := cmp.Diff(want, res, approx); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got := math.Round(res.Posterior * 1e4); got != 776 {
		t.Errorf("posterior = %v, want 7.76%%", res.Posterior)
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name     string
		prior    float64
		evidence []Evidence
		// posteriors after each step; nil odds/LR pointers are checked
		// through want.
		want Result
	}{
		{
			// Odds 1 → 3 → 1.5: 75%, then 60%.
			name:     "two ratios",
			prior:    0.5,
			evidence: []Evidence{Ratio("a", 3), Ratio("b", 0.5)},
			want: Result{Prior: 0.5, PriorOdds: 1, Steps: []Step{
				{Index: 0, Label: "a", From: FromLR, Prior: 0.5, LR: new(3.0), PriorOdds: new(1.0), PosteriorOdds: new(3.0), Posterior: 0.75, ChangePts: 25},
				{Index: 1, Label: "b", From: FromLR, Prior: 0.75, LR: new(0.5), PriorOdds: new(3.0), PosteriorOdds: new(1.5), Posterior: 0.6, ChangePts: -15},
			}, TotalLR: new(1.5), PosteriorOdds: new(1.5), Posterior: 0.6, ChangePts: 10, Notes: []string{}},
		},
		{
			name:     "lr and the same pair: no note",
			prior:    0.2,
			evidence: []Evidence{{Label: "x", LR: new(2.0), PIfYes: new(0.6), PIfNo: new(0.3)}},
			want: Result{Prior: 0.2, PriorOdds: 0.25, Steps: []Step{
				{Index: 0, Label: "x", From: FromLR, Prior: 0.2, LR: new(2.0), PriorOdds: new(0.25), PosteriorOdds: new(0.5), Posterior: 1.0 / 3, ChangePts: 100 * (1.0/3 - 0.2)},
			}, TotalLR: new(2.0), PosteriorOdds: new(0.5), Posterior: 1.0 / 3, ChangePts: 100 * (1.0/3 - 0.2), Notes: []string{}},
		},
		{
			name:     "lr wins over a different pair",
			prior:    0.2,
			evidence: []Evidence{{LR: new(2.0), PIfYes: new(0.5), PIfNo: new(0.2)}},
			want: Result{Prior: 0.2, PriorOdds: 0.25, Steps: []Step{
				{Index: 0, From: FromLR, Prior: 0.2, LR: new(2.0), PriorOdds: new(0.25), PosteriorOdds: new(0.5), Posterior: 1.0 / 3, ChangePts: 100 * (1.0/3 - 0.2)},
			}, TotalLR: new(2.0), PosteriorOdds: new(0.5), Posterior: 1.0 / 3, ChangePts: 100 * (1.0/3 - 0.2),
				Notes: []string{"evidence[0]: lr = 2 used; the pair p_if_yes = 0.5, p_if_no = 0.2 (ratio 2.5) was ignored"}},
		},
		{
			name:     "lr 0 rules yes out and later evidence cannot move it",
			prior:    0.4,
			evidence: []Evidence{Ratio("alibi", 0), Ratio("motive", 5)},
			want: Result{Prior: 0.4, PriorOdds: 0.4 / 0.6, Steps: []Step{
				{Index: 0, Label: "alibi", From: FromLR, Prior: 0.4, LR: new(0.0), PriorOdds: new(0.4 / 0.6), PosteriorOdds: new(0.0), Posterior: 0, ChangePts: -40},
				{Index: 1, Label: "motive", From: FromLR, Prior: 0, LR: new(5.0), PriorOdds: new(0.0), PosteriorOdds: new(0.0), Posterior: 0, ChangePts: 0},
			}, TotalLR: new(0.0), PosteriorOdds: new(0.0), Posterior: 0, ChangePts: -40, Notes: []string{
				`evidence[0] ("alibi") rules yes out (lr = 0): the posterior is 0 from here on`,
				`evidence[1] ("motive") cannot move a posterior of 0% made certain by evidence[0]; it stays there`,
			}},
		},
		{
			name:     "p_if_no 0 makes yes certain, shown without infinities",
			prior:    0.3,
			evidence: []Evidence{Pair("dna match", 1, 0), Pair("", 0.2, 0.4)},
			want: Result{Prior: 0.3, PriorOdds: 0.3 / 0.7, Steps: []Step{
				{Index: 0, Label: "dna match", From: FromPIf, Prior: 0.3, LR: nil, PriorOdds: new(0.3 / 0.7), PosteriorOdds: nil, Posterior: 1, ChangePts: 70},
				{Index: 1, From: FromPIf, Prior: 1, LR: new(0.5), Posterior: 1},
			}, Posterior: 1, ChangePts: 70, Notes: []string{
				`evidence[0] ("dna match") rules no out (p_if_no = 0: this evidence cannot happen if the answer is no): the posterior is 1 from here on; the likelihood ratio and the odds are infinite and shown as null`,
				`evidence[1] cannot move a posterior of 100% made certain by evidence[0]; it stays there`,
			}},
		},
		{
			name:     "p_if_yes 0 rules yes out",
			prior:    0.9,
			evidence: []Evidence{Pair("", 0, 0.5)},
			want: Result{Prior: 0.9, PriorOdds: 0.9 / (1 - 0.9), Steps: []Step{
				{Index: 0, From: FromPIf, Prior: 0.9, LR: new(0.0), PriorOdds: new(0.9 / (1 - 0.9)), PosteriorOdds: new(0.0), Posterior: 0, ChangePts: -90},
			}, TotalLR: new(0.0), PosteriorOdds: new(0.0), Posterior: 0, ChangePts: -90, Notes: []string{
				"evidence[0] rules yes out (p_if_yes = 0: this evidence cannot happen if the answer is yes): the posterior is 0 from here on",
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Update(tt.prior, tt.evidence)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Update (-want +got):\n%s", diff)
			}
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("json.Marshal(result): %v", err)
			}
		})
	}
}

// Odds beyond the float64 range are shown as null with a note, and the
// log-odds arithmetic still finds its way back.
func TestUpdateOverflow(t *testing.T) {
	res, err := Update(0.5, []Evidence{Ratio("", 1e300), Ratio("", 1e300), Ratio("", 1e-300), Ratio("", 1e-300)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps[1].PosteriorOdds != nil || res.Steps[1].Posterior != 1 {
		t.Errorf("step 1 = %+v, want posterior 1 and null odds", res.Steps[1])
	}
	if math.Abs(res.Posterior-0.5) > 1e-9 {
		t.Errorf("posterior = %v, want back at 0.5", res.Posterior)
	}
	want := []string{"some likelihood ratios or odds are finite but too large for a float64; they are shown as null"}
	if diff := cmp.Diff(want, res.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// A finite likelihood ratio is shown as given, however large: only a
// product that overflows is null.
func TestUpdateLargestFinite(t *testing.T) {
	tests := []struct {
		name          string
		prior         float64
		ev            []Evidence
		lr, postOdds  *float64 // of step 0
		total         *float64
		overflowNoted bool
	}{
		{"largest lr, even prior", 0.5, []Evidence{Ratio("", math.MaxFloat64)}, ptr(math.MaxFloat64), ptr(math.MaxFloat64), ptr(math.MaxFloat64), false},
		{"largest lr, prior 0.75", 0.75, []Evidence{Ratio("", math.MaxFloat64)}, ptr(math.MaxFloat64), nil, ptr(math.MaxFloat64), true},
		{"smallest normal lr", 0.5, []Evidence{Ratio("", 0x1p-1022)}, ptr(0x1p-1022), ptr(0x1p-1022), ptr(0x1p-1022), false},
		{"pair with a huge ratio", 0.5, []Evidence{{PIfYes: ptr(1), PIfNo: ptr(0x1p-1022)}}, ptr(0x1p1022), ptr(0x1p1022), ptr(0x1p1022), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Update(tc.prior, tc.ev)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.lr, res.Steps[0].LR); diff != "" {
				t.Errorf("step 0 lr (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.postOdds, res.Steps[0].PosteriorOdds); diff != "" {
				t.Errorf("step 0 posterior odds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.total, res.TotalLR); diff != "" {
				t.Errorf("total lr (-want +got):\n%s", diff)
			}
			if got := len(res.Notes) > 0; got != tc.overflowNoted {
				t.Errorf("notes = %q, want an overflow note: %v", res.Notes, tc.overflowNoted)
			}
		})
	}
}

func TestUpdateErrors(t *testing.T) {
	tests := []struct {
		name     string
		prior    float64
		evidence []Evidence
		want     error
		index    int // -1: no *EvidenceError
		field    string
		text     string // full error text, when checked
	}{
		{"prior 0", 0, []Evidence{Ratio("", 2)}, ErrPrior, -1, "",
			"bayes: prior must be a probability strictly between 0 and 1: got 0; no evidence can move a prior of 0% or 100%: start from 0.001 or 0.999 instead"},
		{"prior 1", 1, []Evidence{Ratio("", 2)}, ErrPrior, -1, "", ""},
		{"prior as percent", 30, []Evidence{Ratio("", 2)}, ErrPrior, -1, "",
			"bayes: prior must be a probability strictly between 0 and 1: got 30; write 30% as 0.3"},
		{"prior NaN", math.NaN(), []Evidence{Ratio("", 2)}, ErrPrior, -1, "", ""},
		{"prior negative", -0.1, []Evidence{Ratio("", 2)}, ErrPrior, -1, "", ""},
		{"no evidence", 0.5, nil, ErrNoEvidence, -1, "", ""},
		{"empty piece", 0.5, []Evidence{Ratio("", 2), {Label: "rumour"}}, ErrMissing, 1, "lr",
			`bayes: evidence[1] ("rumour"): no likelihood: give lr (such as 3) or both p_if_yes and p_if_no (such as 0.8 and 0.1)`},
		{"p_if_no missing", 0.5, []Evidence{{PIfYes: new(0.3)}}, ErrMissing, 0, "p_if_no", ""},
		{"p_if_yes missing", 0.5, []Evidence{{PIfNo: new(0.3)}}, ErrMissing, 0, "p_if_yes", ""},
		{"negative lr", 0.5, []Evidence{Ratio("", -2)}, ErrRange, 0, "lr",
			"bayes: evidence[0]: lr = -2 must be a number, 0 or more (such as 3, or 0.5 for evidence against)"},
		{"NaN lr", 0.5, []Evidence{Ratio("", math.NaN())}, ErrRange, 0, "lr", ""},
		{"infinite lr", 0.5, []Evidence{Ratio("", math.Inf(1))}, ErrRange, 0, "lr", ""},
		{"p_if_yes above 1", 0.5, []Evidence{Pair("", 80, 0.1)}, ErrRange, 0, "p_if_yes",
			"bayes: evidence[0]: p_if_yes = 80 is not a probability in [0, 1]: write 80% as 0.8"},
		{"p_if_no negative", 0.5, []Evidence{Pair("", 0.8, -0.1)}, ErrRange, 0, "p_if_no", ""},
		{"bad pair next to lr is still checked", 0.5, []Evidence{{LR: new(2.0), PIfYes: new(2.0), PIfNo: new(0.5)}}, ErrRange, 0, "p_if_yes", ""},
		{"both p_if 0", 0.5, []Evidence{Pair("", 0, 0)}, ErrImpossible, 0, "p_if_no", ""},
		{"contradiction", 0.5, []Evidence{Pair("", 1, 0), Ratio("", 3), Ratio("alibi", 0)}, ErrContradiction, 2, "lr",
			`bayes: evidence[2] ("alibi") rules out what evidence[0] made certain: the two contradict each other; check both`},
		{"contradiction reversed", 0.5, []Evidence{Ratio("", 0), Pair("", 1, 0)}, ErrContradiction, 1, "p_if_no", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Update(tt.prior, tt.evidence)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Update error = %v, want %v", err, tt.want)
			}
			var ee *EvidenceError
			if errors.As(err, &ee) != (tt.index >= 0) {
				t.Fatalf("Update error %T %v: EvidenceError wanted = %v", err, err, tt.index >= 0)
			}
			if ee != nil && (ee.Index != tt.index || ee.Field != tt.field) {
				t.Errorf("EvidenceError index, field = %d, %q; want %d, %q", ee.Index, ee.Field, tt.index, tt.field)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Errorf("error text = %q\nwant %q", err.Error(), tt.text)
			}
		})
	}
}

// Applying the same evidence in any order gives the same final posterior and
// total likelihood ratio.
func TestUpdateOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 500 {
		prior := 0.001 + 0.998*r.Float64()
		ev := randomEvidence(r, 1+r.IntN(50))
		// Now and then a certainty, of one kind only so there is no
		// contradiction.
		if r.IntN(5) == 0 {
			ev[r.IntN(len(ev))] = Pair("certain", 0.5, 0)
		}
		want, err := Update(prior, ev)
		if err != nil {
			t.Fatal(err)
		}
		r.Shuffle(len(ev), func(i, j int) { ev[i], ev[j] = ev[j], ev[i] })
		got, err := Update(prior, ev)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Posterior-want.Posterior) > 1e-9 {
			t.Fatalf("trial %d: posterior %v after shuffling, %v before", trial, got.Posterior, want.Posterior)
		}
		if diff := cmp.Diff(want.TotalLR, got.TotalLR, cmpopts.EquateApprox(1e-9, 0)); diff != "" {
			t.Fatalf("trial %d: total LR changed after shuffling (-before +after):\n%s", trial, diff)
		}
	}
}

// Every posterior equals the one-shot Bayes rule p·L/(p·L + 1 − p) with
// L the product of the likelihood ratios so far.
func TestUpdateMatchesOneShot(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 200 {
		prior := 0.01 + 0.98*r.Float64()
		ev := randomEvidence(r, 1+r.IntN(10))
		res, err := Update(prior, ev)
		if err != nil {
			t.Fatal(err)
		}
		L := 1.0
		for i, e := range ev {
			if e.LR != nil {
				L *= *e.LR
			} else {
				L *= *e.PIfYes / *e.PIfNo
			}
			want := prior * L / (prior*L + 1 - prior)
			if got := res.Steps[i].Posterior; math.Abs(got-want) > 1e-12 {
				t.Fatalf("trial %d step %d: posterior %v, want %v", trial, i, got, want)
			}
		}
	}
}

func randomEvidence(r *rand.Rand, n int) []Evidence {
	ev := make([]Evidence, n)
	for i := range ev {
		if r.IntN(2) == 0 {
			ev[i] = Ratio("", math.Exp(r.NormFloat64()))
		} else {
			ev[i] = Pair("", 0.01+0.99*r.Float64(), 0.01+0.99*r.Float64())
		}
	}
	return ev
}

// FuzzUpdate: no panic; a result marshals to JSON (so it holds no NaN or
// Inf) with probabilities in [0, 1]; errors are the package's own.
func FuzzUpdate(f *testing.F) {
	f.Add(0.3, 2.0, 0.8, 0.1, true)
	f.Add(0.5, 0.0, 1.0, 0.0, false)
	f.Add(1e-300, 1e300, 1.0, 1e-320, true)
	f.Add(0.0, -1.0, math.NaN(), 2.0, false)
	f.Fuzz(func(t *testing.T, prior, lr, pYes, pNo float64, both bool) {
		ev := []Evidence{Ratio("a", lr), Pair("b", pYes, pNo), Ratio("c", lr)}
		if both {
			ev = append(ev, Evidence{LR: new(lr), PIfYes: new(pYes), PIfNo: new(pNo)})
		}
		res, err := Update(prior, ev)
		if err != nil {
			var ee *EvidenceError
			if errors.Is(err, ErrPrior) || errors.As(err, &ee) {
				return
			}
			t.Fatalf("unexpected error %T %v", err, err)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("json.Marshal: %v (%+v)", err, res)
		}
		for _, s := range res.Steps {
			if s.Posterior < 0 || s.Posterior > 1 || s.Prior < 0 || s.Prior > 1 {
				t.Fatalf("probability outside [0, 1]: %+v", s)
			}
		}
	})
}

// Baseline: one math.Log per piece, the least a log-odds update does.
func BenchmarkLogBaseline(b *testing.B) {
	lrs := make([]float64, 50)
	for i, e := range benchEvidence() {
		if e.LR != nil {
			lrs[i] = *e.LR
		} else {
			lrs[i] = *e.PIfYes / *e.PIfNo
		}
	}
	var sink float64
	for b.Loop() {
		s := 0.0
		for _, v := range lrs {
			s += math.Log(v)
		}
		sink += s
	}
	_ = sink
}

func BenchmarkUpdate50(b *testing.B) {
	ev := benchEvidence()
	for b.Loop() {
		if _, err := Update(0.3, ev); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEvidence() []Evidence {
	return randomEvidence(rand.New(rand.NewPCG(11, 12)), 50)
}

func ptr(v float64) *float64 { return &v }
