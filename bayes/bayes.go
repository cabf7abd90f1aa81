package bayes

import (
	"errors"
	"fmt"
	"math"
)

// Evidence is one piece of evidence: either LR, or the pair PIfYes and
// PIfNo. nil means not given. When LR and the pair are both given, LR wins.
type Evidence struct {
	// Label names the evidence in steps and notes; optional.
	Label string `json:"label,omitempty"`
	// LR is the likelihood ratio P(E|yes)/P(E|no), 0 or more.
	LR *float64 `json:"lr,omitempty"`
	// PIfYes is P(E|yes), the chance of the evidence if the answer is yes.
	PIfYes *float64 `json:"p_if_yes,omitempty"`
	// PIfNo is P(E|no), the chance of the evidence if the answer is no.
	PIfNo *float64 `json:"p_if_no,omitempty"`
}

// Ratio is evidence given as a likelihood ratio.
func Ratio(label string, lr float64) Evidence {
	return Evidence{Label: label, LR: &lr}
}

// Pair is evidence given as P(E|yes) and P(E|no).
func Pair(label string, pIfYes, pIfNo float64) Evidence {
	return Evidence{Label: label, PIfYes: &pIfYes, PIfNo: &pIfNo}
}

// Where a step's likelihood ratio came from ([Step.From]).
const (
	FromLR  = "lr"   // the piece's lr
	FromPIf = "p_if" // p_if_yes / p_if_no
)

// Step is one application of Bayes' rule. Pointer fields are nil when the
// value is infinite (see the package documentation); no field is NaN or
// infinite.
type Step struct {
	// Index is the 0-based position of the evidence.
	Index int    `json:"index"`
	Label string `json:"label"`
	// From is [FromLR] or [FromPIf].
	From string `json:"from"`
	// Prior is the probability before this piece.
	Prior float64 `json:"prior"`
	// LR is the likelihood ratio used; nil when infinite.
	LR *float64 `json:"lr"`
	// PriorOdds and PosteriorOdds are odds for yes (p/(1−p)); nil when
	// infinite.
	PriorOdds     *float64 `json:"prior_odds"`
	PosteriorOdds *float64 `json:"posterior_odds"`
	// Posterior is the probability after this piece.
	Posterior float64 `json:"posterior"`
	// ChangePts is Posterior − Prior in percentage points.
	ChangePts float64 `json:"change_pts"`
}

// Result is the whole update.
type Result struct {
	Prior     float64 `json:"prior"`
	PriorOdds float64 `json:"prior_odds"`
	Steps     []Step  `json:"steps"`
	// TotalLR is the product of all likelihood ratios; nil when infinite.
	TotalLR *float64 `json:"total_lr"`
	// PosteriorOdds is nil when infinite (yes is certain).
	PosteriorOdds *float64 `json:"posterior_odds"`
	Posterior     float64  `json:"posterior"`
	// ChangePts is Posterior − Prior in percentage points.
	ChangePts float64 `json:"change_pts"`
	// Notes say which pairs were ignored, which evidence made the answer
	// certain and which values are shown as null. Never nil.
	Notes []string `json:"notes"`
}

// Errors returned by [Update]; test with errors.Is.
var (
	ErrPrior         = errors.New("bayes: prior must be a probability strictly between 0 and 1")
	ErrNoEvidence    = errors.New("bayes: no evidence: give at least one piece (lr, or p_if_yes and p_if_no)")
	ErrMissing       = errors.New("bayes: evidence has no likelihood")
	ErrRange         = errors.New("bayes: evidence value out of range")
	ErrImpossible    = errors.New("bayes: p_if_yes and p_if_no are both 0")
	ErrContradiction = errors.New("bayes: evidence rules out both yes and no")
)

// EvidenceError reports a bad piece of evidence. Index is its 0-based
// position; Field is the JSON name of the field at fault ("lr", "p_if_yes",
// "p_if_no"); Value is that field's value when it has one. Err is
// [ErrMissing], [ErrRange], [ErrImpossible] or [ErrContradiction].
type EvidenceError struct {
	Index int
	Label string
	Field string
	Value float64
	// Other is the index of the earlier piece a contradiction is with.
	Other int
	Err   error
}

// Error names the piece of evidence, says what is wrong and how to fix it.
func (e *EvidenceError) Error() string {
	at := fmt.Sprintf("bayes: evidence[%d]%s", e.Index, labelSuffix(e.Label))
	switch {
	case errors.Is(e.Err, ErrMissing) && e.Field == "lr":
		return at + ": no likelihood: give lr (such as 3) or both p_if_yes and p_if_no (such as 0.8 and 0.1)"
	case errors.Is(e.Err, ErrMissing):
		return fmt.Sprintf("%s: %s is missing: give both p_if_yes and p_if_no (such as 0.8 and 0.1), or lr", at, e.Field)
	case errors.Is(e.Err, ErrRange) && e.Field == "lr" && math.IsInf(e.Value, 1):
		return at + ": lr is infinite: for evidence that cannot happen if the answer is no, give p_if_yes above 0 and p_if_no = 0"
	case errors.Is(e.Err, ErrRange) && e.Value > 0 && e.Value < minNormal:
		return fmt.Sprintf("%s: %s = %v is a subnormal number, which loses digits in products and logarithms: send 0 for evidence that rules the answer out, or a number of at least 1e-300", at, e.Field, e.Value)
	case errors.Is(e.Err, ErrRange) && e.Field == "lr":
		return fmt.Sprintf("%s: lr = %v must be a number, 0 or more (such as 3, or 0.5 for evidence against)", at, e.Value)
	case errors.Is(e.Err, ErrRange):
		return fmt.Sprintf("%s: %s = %v is not a probability in [0, 1]: write 80%% as 0.8", at, e.Field, e.Value)
	case errors.Is(e.Err, ErrImpossible):
		return at + ": p_if_yes and p_if_no are both 0, so the evidence could not have happened either way: check the numbers"
	case errors.Is(e.Err, ErrContradiction):
		return fmt.Sprintf("%s rules out what evidence[%d] made certain: the two contradict each other; check both", at, e.Other)
	}
	return fmt.Sprintf("%s: %s: %v", at, e.Field, e.Err)
}

// Unwrap returns Err, so that errors.Is(err, ErrRange) and the like hold.
func (e *EvidenceError) Unwrap() error { return e.Err }

// agreeTol is the relative difference within which lr and the ratio of the
// pair count as the same.
const agreeTol = 1e-3

// piece is a validated piece of evidence.
type piece struct {
	logLR float64 // may be ±Inf
	// ratio is the likelihood ratio as given (lr) or as the pair's
	// quotient; +Inf when the quotient overflows or p_if_no is 0.
	ratio float64
	from  string
}

// product is a·b, or exp(logSum) when a·b overflows or underflows on the
// way (a previous factor already did): a product of the numbers given is
// exact to the last digit, where exp of a sum of logarithms is not (the
// exp of log(1.7976931348623157e308) rounds to +Inf).
func product(a, b, logSum float64) float64 {
	if v := a * b; !math.IsInf(v, 0) && !math.IsNaN(v) && (v != 0 || a == 0 || b == 0) {
		return v
	}
	return math.Exp(logSum)
}

// minNormal is the smallest normal float64. Evidence below it (a
// subnormal lr such as 5e-324) is refused with ErrRange rather than
// flushed: subnormals keep few digits, and Go's parser rounds some of them
// badly (Go issue 56600).
const minNormal = 0x1p-1022

// Update applies the evidence to the prior in order. Errors: [ErrPrior]
// (wrapped), [ErrNoEvidence], [*EvidenceError] wrapping [ErrMissing],
// [ErrRange] (also for a subnormal lr, p_if_yes or p_if_no), [ErrImpossible]
// or [ErrContradiction].
func Update(prior float64, evidence []Evidence) (Result, error) {
	return UpdateOdds(prior, prior/(1-prior), evidence)
}

// UpdateOdds is [Update] for a prior whose odds were computed from its
// exact value (as odds.Reading.Odds does for parsed text): the update
// runs on those odds, so a prior of 0.999999999999, whose float64 has lost
// the last digits of 1 - p, keeps them (with lr 1e-12 the posterior is
// 0.49999999999975). priorOdds must equal prior/(1-prior) up to rounding.
func UpdateOdds(prior, priorOdds float64, evidence []Evidence) (Result, error) {
	switch {
	case prior == 0 || prior == 1:
		return Result{}, fmt.Errorf("%w: got %v; no evidence can move a prior of 0%% or 100%%: start from 0.001 or 0.999 instead", ErrPrior, prior)
	case math.IsNaN(prior) || prior < 0 || prior > 1:
		return Result{}, fmt.Errorf("%w: got %v; write 30%% as 0.3", ErrPrior, prior)
	}
	if len(evidence) == 0 {
		return Result{}, ErrNoEvidence
	}

	if !(priorOdds > 0) || math.IsInf(priorOdds, 1) {
		return Result{}, fmt.Errorf("%w: prior odds %v are not a positive finite number", ErrPrior, priorOdds)
	}
	res := Result{Prior: prior, PriorOdds: priorOdds, Steps: make([]Step, len(evidence)), Notes: []string{}}
	pieces := make([]piece, len(evidence))
	for i, ev := range evidence {
		p, note, err := check(i, ev)
		if err != nil {
			return Result{}, err
		}
		pieces[i] = p
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
	}

	// finite returns a pointer to v, or nil when v is infinite; its second
	// result is true when v overflowed although the exact value is finite
	// (inf false). One backing array holds the values: three per step and
	// two totals.
	vals := make([]float64, 0, 3*len(pieces)+2)
	finite := func(v float64, inf bool) (*float64, bool) {
		if math.IsInf(v, 0) {
			return nil, !inf
		}
		vals = append(vals, v)
		return &vals[len(vals)-1], false
	}

	lo := math.Log(priorOdds)
	odds := priorOdds // = exp(lo), from the numbers given
	p := prior
	sumLog, total := 0.0, 1.0 // the log of the total likelihood ratio and the ratio
	certainAt := -1           // index of the piece that made the posterior 0 or 1
	overflow := false
	for i, pc := range pieces {
		ev := evidence[i]
		next := lo + pc.logLR
		if math.IsNaN(next) { // +Inf + -Inf
			f := "lr"
			if pc.from == FromPIf {
				f = "p_if_no"
				if pc.logLR < 0 {
					f = "p_if_yes"
				}
			}
			return Result{}, &EvidenceError{Index: i, Label: ev.Label, Field: f, Other: certainAt, Err: ErrContradiction}
		}
		sumLog += pc.logLR
		total = product(total, pc.ratio, sumLog)
		nextOdds := product(odds, pc.ratio, next)
		post := logistic(next)
		st := Step{Index: i, Label: ev.Label, From: pc.from, Prior: p, Posterior: post, ChangePts: 100 * (post - p)}
		var o bool
		st.LR, o = finite(pc.ratio, math.IsInf(pc.logLR, 1))
		overflow = overflow || o
		st.PriorOdds, o = finite(odds, math.IsInf(lo, 1))
		overflow = overflow || o
		st.PosteriorOdds, o = finite(nextOdds, math.IsInf(next, 1))
		overflow = overflow || o
		res.Steps[i] = st

		at := func() string { return fmt.Sprintf("evidence[%d]%s", i, labelSuffix(ev.Label)) }
		switch {
		case math.IsInf(lo, 0):
			res.Notes = append(res.Notes, fmt.Sprintf("%s cannot move a posterior of %v%% made certain by evidence[%d]; it stays there", at(), 100*p, certainAt))
		case math.IsInf(pc.logLR, -1):
			certainAt = i
			res.Notes = append(res.Notes, fmt.Sprintf("%s rules yes out (%s): the posterior is 0 from here on", at(), why(pc, false)))
		case math.IsInf(pc.logLR, 1):
			certainAt = i
			res.Notes = append(res.Notes, fmt.Sprintf("%s rules no out (%s): the posterior is 1 from here on; the likelihood ratio and the odds are infinite and shown as null", at(), why(pc, true)))
		}
		lo, odds, p = next, nextOdds, post
	}
	res.Posterior = p
	res.ChangePts = 100 * (p - prior)
	var o bool
	res.TotalLR, o = finite(total, math.IsInf(sumLog, 1))
	overflow = overflow || o
	res.PosteriorOdds, o = finite(odds, math.IsInf(lo, 1))
	overflow = overflow || o
	if overflow {
		res.Notes = append(res.Notes, "some likelihood ratios or odds are finite but too large for a float64; they are shown as null")
	}
	return res, nil
}

// check validates one piece and returns its log likelihood ratio, and a
// note when the pair is ignored.
func check(i int, ev Evidence) (piece, string, error) {
	bad := func(field string, v float64, err error) (piece, string, error) {
		return piece{}, "", &EvidenceError{Index: i, Label: ev.Label, Field: field, Value: v, Err: err}
	}
	if ev.LR != nil {
		if v := *ev.LR; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 0 && v < minNormal {
			return bad("lr", v, ErrRange)
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"p_if_yes", ev.PIfYes}, {"p_if_no", ev.PIfNo}} {
		if f.v != nil && (math.IsNaN(*f.v) || *f.v < 0 || *f.v > 1 || *f.v > 0 && *f.v < minNormal) {
			return bad(f.name, *f.v, ErrRange)
		}
	}
	pair := ev.PIfYes != nil && ev.PIfNo != nil
	if pair && *ev.PIfYes == 0 && *ev.PIfNo == 0 {
		return bad("p_if_no", 0, ErrImpossible)
	}
	var pairLog float64
	if pair {
		// Difference of logs: the ratio itself may overflow (1 / 1e-320).
		pairLog = math.Log(*ev.PIfYes) - math.Log(*ev.PIfNo)
	}
	if ev.LR == nil {
		switch {
		case pair:
			return piece{logLR: pairLog, ratio: *ev.PIfYes / *ev.PIfNo, from: FromPIf}, "", nil
		case ev.PIfYes != nil:
			return bad("p_if_no", 0, ErrMissing)
		case ev.PIfNo != nil:
			return bad("p_if_yes", 0, ErrMissing)
		}
		return bad("lr", 0, ErrMissing)
	}
	pc := piece{logLR: math.Log(*ev.LR), ratio: *ev.LR, from: FromLR}
	if !pair && ev.PIfYes == nil && ev.PIfNo == nil || pair && sameRatio(pc.logLR, pairLog) {
		return pc, "", nil
	}
	at := fmt.Sprintf("evidence[%d]%s", i, labelSuffix(ev.Label))
	switch {
	case pair:
		return pc, fmt.Sprintf("%s: lr = %v used; the pair p_if_yes = %v, p_if_no = %v (ratio %s) was ignored", at, *ev.LR, *ev.PIfYes, *ev.PIfNo, ratioText(pairLog)), nil
	case ev.PIfYes != nil:
		return pc, fmt.Sprintf("%s: lr = %v used; p_if_yes = %v was ignored", at, *ev.LR, *ev.PIfYes), nil
	case ev.PIfNo != nil:
		return pc, fmt.Sprintf("%s: lr = %v used; p_if_no = %v was ignored", at, *ev.LR, *ev.PIfNo), nil
	}
	return pc, "", nil
}

// sameRatio reports whether two log ratios agree within agreeTol relative.
func sameRatio(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= math.Log1p(agreeTol)
}

func ratioText(logLR float64) string {
	if math.IsInf(logLR, 1) {
		return "infinite"
	}
	return fmt.Sprintf("%.4g", math.Exp(logLR))
}

// why explains a certainty in terms of the fields the user gave.
func why(pc piece, yes bool) string {
	switch {
	case pc.from == FromLR:
		return "lr = 0"
	case yes:
		return "p_if_no = 0: this evidence cannot happen if the answer is no"
	}
	return "p_if_yes = 0: this evidence cannot happen if the answer is yes"
}

func labelSuffix(label string) string {
	if label == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", label)
}

// logistic maps log-odds to a probability; ±Inf give 1 and 0.
func logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
