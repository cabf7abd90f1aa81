package odds

import "strings"

// Notation names a way of writing a chance: the notations of spec section
// 2.3 for input and output, plus [LogOdds] for output only. The string
// values are the names the tools use (the from parameter, read_as).
type Notation string

// The notations. [Auto] guesses the notation from the shape of the text
// (see [Parse]); [LogOdds] is an output notation only.
const (
	Auto        Notation = "auto"
	Probability Notation = "probability" // 0.4
	Percent     Notation = "percent"     // 40%
	Decimal     Notation = "decimal"     // 2.5 (returns 2.5 for 1 staked, stake included)
	Fractional  Notation = "fractional"  // 3/2 (wins 3 for 2 staked), evens = 1/1
	American    Notation = "american"    // +150 (wins 150 for 100), -150 (stake 150 to win 100)
	OddsFor     Notation = "odds_for"    // 2:3 (2 chances for, 3 against)
	LogOdds     Notation = "log_odds"    // -0.405 (natural log of p/(1-p)), output only
)

// InputNotations lists the notations [Parse] reads, in the order of spec
// section 2.3, for schemas and help texts.
var InputNotations = []Notation{Auto, Probability, Percent, Decimal, Fractional, American, OddsFor}

// ParseNotation reads a notation name such as "fractional". Case and
// surrounding spaces are ignored, and "-" or a space may stand for "_"
// ("odds-for"). The empty string means [Auto], the default of the tools.
// LogOdds is refused: it is an output notation.
//
// The error is an [*Error] wrapping [ErrNotation].
func ParseNotation(s string) (Notation, error) {
	in := strings.TrimSpace(s)
	for _, n := range InputNotations { // the usual case, without allocating
		if in == string(n) {
			return n, nil
		}
	}
	name := nameReplacer.Replace(strings.ToLower(in))
	if name == "" {
		return Auto, nil
	}
	for _, n := range InputNotations {
		if name == string(n) {
			return n, nil
		}
	}
	e := &Error{Input: in, Err: ErrNotation, Reason: "is not an odds notation",
		Hint: "use one of auto, probability, percent, decimal, fractional, american, odds_for"}
	if name == string(LogOdds) {
		e.Reason = "log-odds are given in the output but not read as input"
		e.Hint = "convert the log-odds x to a probability 1/(1+exp(-x)) and send that, or use another notation"
	}
	return "", e
}

// nameReplacer makes "-" and " " in a notation name "_".
var nameReplacer = strings.NewReplacer("-", "_", " ", "_")

// isInput reports whether Parse reads n.
func (n Notation) isInput() bool {
	for _, m := range InputNotations {
		if n == m {
			return true
		}
	}
	return false
}

// describe names the notation in a sentence: "decimal odds".
func (n Notation) describe() string {
	switch n {
	case Probability:
		return "a probability"
	case Percent:
		return "a percent"
	case Decimal:
		return "decimal odds"
	case Fractional:
		return "fractional odds"
	case American:
		return "American odds"
	case OddsFor:
		return "odds for"
	case LogOdds:
		return "log-odds"
	case Auto:
		return "odds"
	}
	return string(n)
}
