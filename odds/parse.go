package odds

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// MaxLen is the longest text, in bytes after trimming spaces, that [Parse]
// reads. The tools allow 40 characters; the package limit keeps the exact
// arithmetic small whatever the caller sends.
const MaxLen = 100

// readExponent reads the exponent of a number at s[i:], if there is one:
// e or E, an optional sign, digits. It returns the exponent (0 when there
// is none), the index after it, and false for an e without digits. An
// exponent beyond ±maxExponent is returned beyond it, but not exactly: it
// stops growing there, as the number is refused anyway.
func readExponent(s string, i int) (exp, next int, ok bool) {
	if i >= len(s) || s[i] != 'e' && s[i] != 'E' {
		return 0, i, true
	}
	i++
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if exp <= maxExponent {
			exp = exp*10 + int(s[i]-'0')
		}
	}
	if neg {
		exp = -exp
	}
	return exp, i, i > start
}

// maxExponent bounds the exponent of "1e-3"-style numbers, so that the
// exact rational of the input stays small; it covers the range of float64,
// so every number Format writes reads back.
const maxExponent = 330

// minP is the smallest probability kept: below it, 100/p (American odds)
// could overflow float64.
const minP = 1e-300

// Shared constants; never used as a receiver, so never modified.
var (
	ratOne     = big.NewRat(1, 1)
	ratHundred = big.NewRat(100, 1)
	ratHalf    = big.NewRat(1, 2)
)

// failure is what a reader reports; Parse turns it into an *Error.
type failure struct {
	err    error
	reason string
	hint   string
	p      *big.Rat // the probability (0 or 1) for ErrCertain
}

// Parse reads a chance written in notation from and returns its
// probability, keeping the exact rational value of the text (see
// [Value.Exact]). Spaces around s are ignored; s may be at most [MaxLen]
// bytes. An empty from means [Auto]; other spellings that [ParseNotation]
// reads ("Decimal") are accepted too.
//
// The shapes read in each notation (numbers are plain decimals such as 2,
// 2.5, .5 or 1e-3; exponents from -330 to +330 are allowed; a decimal comma
// or thousands separator is refused with a hint):
//
//   - [Probability]: a number strictly between 0 and 1: 0.4.
//   - [Percent]: a number strictly between 0 and 100, with or without a
//     trailing %: 40% or 40.
//   - [Decimal]: a number above 1, stake included: 2.5 (p = 1/2.5).
//   - [Fractional]: a/b, winnings a for stake b: 3/2 (p = b/(a+b));
//     "evens", "evs" or "even" for 1/1; a bare number x as x/1.
//   - [American]: +A or -A with A at least 100: +150 (p = 100/(A+100)),
//     -150 (p = A/(A+100)); -100 and +100 are p = 0.5; a number without
//     sign is positive; decimals such as -110.5 are accepted; "even" is +100;
//     the Unicode minus sign is read as "-".
//   - [OddsFor]: a:b, a chances for and b against: 2:3 (p = a/(a+b)); a
//     bare number x as x:1.
//
// A leading "+" is accepted before the number in every notation. "evens"
// is also read by Decimal (2.0), American (+100) and OddsFor (1:1).
//
// [Auto] decides by shape, in this order: a trailing % is a percent; a
// slash or evens/evs/even is fractional; a colon is odds for; a leading +
// or - is American; a number from 0 to 1 is a probability (so "0" and "1"
// are the probabilities 0 and 1, and give ErrCertain); a number above 1 is
// decimal odds. [Value.ReadAs] reports the notation used, and [Value.Note]
// warns when a whole number from 10 to 100 was read as decimal odds (the
// writer may have meant a percent).
//
// Errors are [*Error] values wrapping:
//
//   - [ErrNotation] when from is not an input notation;
//   - [ErrSyntax] for empty text, text over MaxLen, garbage, a decimal comma,
//     or a shape the notation does not read (the hint names the notation
//     the text looks like);
//   - [ErrRange] for numbers the notation does not allow: decimal odds
//     below 1, American odds strictly between -100 and +100 (and +0),
//     probabilities above 1, percents above 100, negative numbers, 0/0 and
//     0:0, exponents beyond ±330, and values so close to 0 or 1 that they
//     round to it in float64;
//   - [ErrCertain] for a probability of exactly 0 or 1: 0, 1, 0%, 100%,
//     decimal odds 1, 0/b and a/0, 0:b and a:0. With ErrCertain, and only
//     then, Parse also returns the Value read (P is 0 or 1), for callers
//     that can use a certainty.
func Parse(s string, from Notation) (Value, error) { return parse(s, from, true) }

// parse is Parse; int64s = false skips the int64 path, so that the
// tests can compare it with the big.Rat code.
func parse(s string, from Notation, int64s bool) (Value, error) {
	in := strings.TrimSpace(s)
	if from == "" {
		from = Auto
	}
	if !from.isInput() {
		n, err := ParseNotation(string(from)) // another spelling, such as "Decimal"
		if err != nil {
			return Value{}, err
		}
		from = n
	}
	if in == "" {
		return Value{}, &Error{Input: in, Notation: from, Err: ErrSyntax, Reason: "is empty", Hint: defaultHint(from)}
	}
	if len(in) > MaxLen {
		return Value{}, &Error{Input: in[:20] + "...", Notation: from, Err: ErrSyntax,
			Reason: "is longer than " + strconv.Itoa(MaxLen) + " bytes", Hint: defaultHint(from)}
	}
	if int64s {
		if v, ok := parseSmall(in, from); ok {
			return v, nil
		}
	}

	n := from
	auto := from == Auto
	if auto {
		n = shape(in)
		if n == "" {
			d, f := parseNumber(in)
			if f != nil {
				if f.hint == "" {
					f.hint = autoHint(in)
				}
				return Value{}, &Error{Input: in, Notation: Auto, Err: f.err, Reason: f.reason, Hint: f.hint}
			}
			if d.cmpPow10(0) <= 0 {
				n = Probability
			} else {
				n = Decimal
			}
		}
	}

	p, f := read(n, in, auto)
	if f != nil {
		if f.hint == "" {
			f.hint = defaultHint(n)
			if f.err == ErrSyntax && !auto {
				if g := shape(in); g != "" && g != n {
					f.hint = "it looks like " + g.describe() + ": use notation " + string(g) + " or auto"
				}
			}
		}
		e := &Error{Input: in, Notation: n, Err: f.err, Reason: f.reason, Hint: f.hint}
		if f.err == ErrCertain && f.p != nil {
			P, _ := f.p.Float64()
			return Value{P: P, ReadAs: n, Input: in, exact: f.p}, e
		}
		return Value{}, e
	}

	P, _ := p.Float64()
	if P < minP || P >= 1 {
		side, hint := "0", "use a chance of at least 1e-300"
		if P >= 1 {
			side, hint = "1", "use a chance further from certainty, such as 0.999999999"
		}
		return Value{}, &Error{Input: in, Notation: n, Err: ErrRange,
			Reason: "is so close to a probability of " + side + " that float64 arithmetic cannot tell them apart", Hint: hint}
	}
	v := Value{P: P, ReadAs: n, Input: in, exact: p}
	if auto && n == Decimal && isPercentLike(p) {
		v.Note = "read " + in + " as decimal odds (a probability of " + v.Formats().PercentText +
			"); if you meant " + in + "%, write " + in + "% or use notation percent"
	}
	return v, nil
}

// isPercentLike reports whether 1/p is a whole number from 10 to 100.
func isPercentLike(p *big.Rat) bool {
	d := new(big.Rat).Inv(p)
	return d.IsInt() && d.Num().IsInt64() && d.Num().Int64() >= 10 && d.Num().Int64() <= 100
}

// read dispatches to the reader of notation n.
func read(n Notation, in string, auto bool) (*big.Rat, *failure) {
	switch n {
	case Probability:
		return readProbability(in, auto)
	case Percent:
		return readPercent(in)
	case Decimal:
		return readDecimal(in)
	case Fractional:
		return readPair(in, "/", Fractional)
	case OddsFor:
		return readPair(in, ":", OddsFor)
	case American:
		return readAmerican(in, auto)
	}
	return nil, &failure{err: ErrNotation, reason: "is not an input notation"}
}

// shape is the notation Auto picks from the shape of in alone, or "" when
// only the number itself decides (probability or decimal).
func shape(in string) Notation {
	switch {
	case strings.HasSuffix(in, "%"):
		return Percent
	case strings.Contains(in, "/") || isEvens(in):
		return Fractional
	case strings.Contains(in, ":"):
		return OddsFor
	case strings.HasPrefix(in, "+") || strings.HasPrefix(in, "-") || strings.HasPrefix(in, "−"):
		return American
	}
	return ""
}

// isEvens reports whether in is a word for even money.
func isEvens(in string) bool {
	switch strings.ToLower(in) {
	case "evens", "evs", "even":
		return true
	}
	return false
}

func defaultHint(n Notation) string {
	switch n {
	case Probability:
		return "write a probability between 0 and 1, such as 0.4"
	case Percent:
		return "write a percent between 0 and 100, such as 40%"
	case Decimal:
		return "write decimal odds above 1, such as 2.5"
	case Fractional:
		return "write fractional odds as two numbers with a slash, such as 3/2, or evens"
	case American:
		return "write American odds of +100 or more or -100 or less, such as +150 or -200"
	case OddsFor:
		return "write odds for as two numbers with a colon, such as 2:3"
	}
	return "write odds such as 0.4, 40%, 2.5, 3/2, +150 or 2:3"
}

// autoHint is the hint for text Auto cannot read; it recognises a few
// common ways of writing odds that Auto does not accept.
func autoHint(in string) string {
	lower := strings.ToLower(in)
	if a, b, ok := strings.Cut(lower, " to "); ok {
		return "write " + strings.TrimSpace(a) + ":" + strings.TrimSpace(b) + " for odds for, or " +
			strings.TrimSpace(a) + "/" + strings.TrimSpace(b) + " for fractional odds against"
	}
	if a, b, ok := strings.Cut(lower, "-"); ok && a != "" && b != "" && isDigits(strings.TrimSpace(a)) && isDigits(strings.TrimSpace(b)) {
		return "for fractional odds write " + strings.TrimSpace(a) + "/" + strings.TrimSpace(b)
	}
	return defaultHint(Auto)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// unsignedRat is unsigned as a big.Rat, for the readers of the big.Rat code.
func unsignedRat(s string) (*big.Rat, *failure) {
	d, f := unsigned(s)
	if f != nil {
		return nil, f
	}
	return d.rat(), nil
}

func certain(p *big.Rat, reason, hint string) *failure {
	return &failure{err: ErrCertain, reason: reason, hint: hint, p: p}
}

const certainHint = "odds need a chance strictly between 0 and 1"

func readProbability(in string, auto bool) (*big.Rat, *failure) {
	if strings.HasSuffix(in, "%") {
		return nil, &failure{err: ErrSyntax, reason: "ends with %",
			hint: "write 0.4 for 40%, or read it with notation percent or auto"}
	}
	r, f := unsignedRat(in)
	if f != nil {
		return nil, f
	}
	switch r.Cmp(ratOne) {
	case 0:
		hint := certainHint + ", such as 0.999"
		if auto {
			hint = "1 is read as a probability of 1; " + hint + ", 0.01 or 1%, or decimal odds above 1"
		}
		return nil, certain(new(big.Rat).Set(ratOne), "is a probability of 1 (certain)", hint)
	case 1:
		return nil, &failure{err: ErrRange, reason: "is above 1, and a probability is between 0 and 1",
			hint: "write 0.4 for 40%, or read 40 as a percent with notation percent"}
	}
	if r.Sign() == 0 {
		return nil, certain(new(big.Rat), "is a probability of 0 (impossible)", certainHint+", such as 0.001")
	}
	return r, nil
}

func readPercent(in string) (*big.Rat, *failure) {
	t := strings.TrimSpace(strings.TrimSuffix(in, "%"))
	if strings.HasSuffix(t, "%") {
		return nil, &failure{err: ErrSyntax, reason: "has more than one %"}
	}
	r, f := unsignedRat(t)
	if f != nil {
		return nil, f
	}
	if r.Sign() == 0 {
		return nil, certain(new(big.Rat), "is a probability of 0% (impossible)", certainHint+", such as 0.1%")
	}
	switch r.Cmp(ratHundred) {
	case 0:
		return nil, certain(new(big.Rat).Set(ratOne), "is a probability of 100% (certain)", certainHint+", such as 99.9%")
	case 1:
		return nil, &failure{err: ErrRange, reason: "is above 100%"}
	}
	return r.Quo(r, ratHundred), nil
}

func readDecimal(in string) (*big.Rat, *failure) {
	if isEvens(in) {
		return new(big.Rat).Set(ratHalf), nil
	}
	r, f := unsignedRat(in)
	if f != nil {
		if f.err == ErrRange && f.reason == "is negative" {
			f.reason = "is negative, and decimal odds are above 1"
		}
		return nil, f
	}
	switch r.Cmp(ratOne) {
	case 0:
		return nil, certain(new(big.Rat).Set(ratOne),
			"decimal odds of 1 return only the stake, which is a probability of 1 (certain)",
			"use decimal odds above 1, such as 1.01")
	case -1:
		fl := &failure{err: ErrRange, reason: "is below 1, and decimal odds are above 1 (they include the stake: 2.5 returns 2.5 for 1 staked)"}
		if r.Sign() > 0 {
			fl.hint = "it looks like a probability: use notation probability or auto, or write decimal odds such as 2.5"
		}
		return nil, fl
	}
	return r.Inv(r), nil
}

// readPair reads fractional odds a/b (sep "/") or odds for a:b (sep ":").
func readPair(in, sep string, n Notation) (*big.Rat, *failure) {
	if isEvens(in) {
		return new(big.Rat).Set(ratHalf), nil
	}
	parts := strings.Split(in, sep)
	if len(parts) > 2 {
		return nil, &failure{err: ErrSyntax, reason: "has more than one " + sep}
	}
	var ab [2]*big.Rat
	ab[1] = new(big.Rat).Set(ratOne) // a bare number x is x/1 or x:1
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, &failure{err: ErrSyntax, reason: "has an empty side of " + sep}
		}
		r, f := unsignedRat(part)
		if f != nil {
			if f.reason == "is negative" {
				f.reason = "has a negative number"
			}
			return nil, f
		}
		ab[i] = r
	}
	a, b := ab[0], ab[1]
	sum := new(big.Rat).Add(a, b)
	if sum.Sign() == 0 {
		return nil, &failure{err: ErrRange, reason: "has 0 on both sides, which means no chance at all"}
	}
	if n == Fractional {
		// a/b: a won for b staked; p = b/(a+b).
		switch {
		case a.Sign() == 0:
			return nil, certain(new(big.Rat).Set(ratOne), "0/"+b.RatString()+" wins nothing, which is a probability of 1 (certain)",
				certainHint+"; write fractional odds such as 1/100")
		case b.Sign() == 0:
			return nil, certain(new(big.Rat), "has a denominator of 0: infinite odds against, which is a probability of 0 (impossible)",
				certainHint+"; write fractional odds such as 100/1")
		}
		return sum.Quo(b, sum), nil
	}
	// a:b: a chances for, b against; p = a/(a+b).
	switch {
	case a.Sign() == 0:
		return nil, certain(new(big.Rat), "0:"+b.RatString()+" gives no chance for, which is a probability of 0 (impossible)",
			certainHint+"; write odds for such as 1:100")
	case b.Sign() == 0:
		return nil, certain(new(big.Rat).Set(ratOne), a.RatString()+":0 gives no chance against, which is a probability of 1 (certain)",
			certainHint+"; write odds for such as 100:1")
	}
	return sum.Quo(a, sum), nil
}

func readAmerican(in string, auto bool) (*big.Rat, *failure) {
	if isEvens(in) {
		return new(big.Rat).Set(ratHalf), nil
	}
	rest, sign := cutSign(in)
	a, f := parseNumber(rest)
	if f != nil {
		return nil, f
	}
	r := a.rat()
	if r.Cmp(ratHundred) < 0 {
		fl := &failure{err: ErrRange,
			reason: "is between -100 and +100, and American odds are +100 or more (+150 wins 150 for 100 staked) or -100 or less (-200 stakes 200 to win 100)"}
		if auto {
			fl.hint = "a leading + or - is read as American odds; write a probability without a sign, such as 0.4, or American odds such as +150"
		}
		return nil, fl
	}
	d := new(big.Rat).Add(r, ratHundred)
	if sign < 0 {
		return d.Quo(r, d), nil // -A: p = A/(A+100)
	}
	return d.Quo(ratHundred, d), nil // +A: p = 100/(A+100)
}

// FromProbability makes a Value from a probability computed elsewhere (a
// pooled forecast, a posterior), to format it with [Value.Formats]. The
// value is not exact: fractional odds are the nearest small fraction.
//
// Errors are [*Error] values wrapping [ErrCertain] for 0 and 1 (the Value
// is returned as well, as by Parse) and [ErrRange] for NaN, numbers outside
// [0, 1] and probabilities below 1e-300.
func FromProbability(p float64) (Value, error) {
	in := strconv.FormatFloat(p, 'g', -1, 64)
	switch {
	case p == 0 || p == 1:
		return Value{P: p, ReadAs: Probability, Input: in},
			&Error{Input: in, Notation: Probability, Err: ErrCertain, Reason: "is a probability of " + in, Hint: certainHint}
	case math.IsNaN(p) || p < 0 || p > 1:
		return Value{}, &Error{Input: in, Notation: Probability, Err: ErrRange,
			Reason: "is not between 0 and 1", Hint: defaultHint(Probability)}
	case p < minP:
		return Value{}, &Error{Input: in, Notation: Probability, Err: ErrRange,
			Reason: "is too small to compute odds with", Hint: "use a probability of at least 1e-300"}
	}
	return Value{P: p, ReadAs: Probability, Input: in}, nil
}

// ReadProbability reads a lone probability given as a number by the
// rule of [ReadLone]: below 1 a fraction, above 1 (to 100) a percent, and
// exactly 1 an error, since it could mean 1% or certainty. 0 is allowed
// (callers that need odds clip or refuse it). as is [Probability] or
// [Percent]. A percent is divided by 100 exactly and rounded once.
//
// The error is an [*Error] wrapping [ErrRange] for negative numbers,
// numbers above 100, NaN and infinities, or [ErrCertain] for 1.
func ReadProbability(x float64) (p float64, as Notation, err error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, "", &Error{Input: floatText(x), Err: ErrRange, Reason: "is not a finite number", Hint: readingHint}
	}
	return ReadProbabilityText(floatText(x))
}

// ReadProbabilityText is [ReadProbability] for text: "75%" (a trailing %,
// from 0% to 100%) is a percent, and a plain number follows the rule of
// ReadProbability ("0.75" and "75" are 75%, "1" is an error). Spaces
// around s are ignored.
//
// The error is an [*Error] wrapping [ErrSyntax] for text that is not a
// number, or [ErrRange] or [ErrCertain] as in ReadProbability.
func ReadProbabilityText(s string) (p float64, as Notation, err error) {
	r, _, err := ReadLone(Sent{Text: s, Quoted: true}, "probability")
	if err != nil {
		return 0, "", err
	}
	return r.P, r.ReadAs, nil
}
