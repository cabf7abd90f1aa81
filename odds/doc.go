// Package odds reads and writes chances in the notations people and
// bookmakers use, compares two chances, and turns a bookmaker's odds on
// mutually exclusive outcomes into probabilities. It is the arithmetic
// behind the convert_odds and implied_probabilities tools and the
// probability inputs of the other tools. It imports only the standard
// library.
//
// A program that reads American odds, writes them in the other notations,
// and takes the margin out of a bookmaker's three-way market:
//
//	package main
//
//	import (
//		"fmt"
//		"log"
//
//		"github.com/predictions-md/predictions/odds"
//	)
//
//	func main() {
//		v, err := odds.Parse("+150", odds.Auto) // Auto guesses the notation
//		if err != nil {
//			log.Fatal(err) // an *odds.Error: what is wrong, and a hint
//		}
//		f := v.Formats()
//		fmt.Println(v.ReadAs, f.PercentText, f.DecimalText, f.Fractional, f.OddsFor)
//
//		book, err := odds.Implied([]float64{1.40, 4.50, 8.00}, odds.Shin)
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Printf("overround %.1f%%, probabilities %.3f\n", book.OverroundPct, book.Probabilities)
//	}
//
// It prints:
//
//	american 40% 2.5 3/2 2:3
//	overround 6.2%, probabilities [0.688 0.204 0.108]
//
// The main entry points are [Parse] (text to a [Value]), [Value.Formats]
// and [Value.Format] (a value to text), [FromProbability] (a computed
// probability to a Value), [ReadProbability] (the tools' rule for
// probability inputs), [Compare] and [Implied]. The runnable program
// examples/odds in the repository shows more.
//
// # Notations
//
// [Parse] reads probability (0.4), percent (40%), decimal odds (2.5),
// fractional odds (3/2, evens), American odds (+150, -150) and odds for
// (2:3), or guesses the notation from the shape of the text ([Auto]).
// [Value.Formats] writes a value in all of them and in natural log-odds;
// [Value.Format] writes one notation as text that Parse reads back.
//
// Parse keeps the exact rational value of its input (as a fraction of
// int64s when it fits, which is cheap, else with [math/big.Rat]), so exact
// input gives exact output: "1.91" is exactly 191/100 decimal odds, so the
// fractional odds are 91/100, not a rounded float. Values made from
// a float64 with [FromProbability] are shown as the nearest fraction with a
// small denominator, marked approximate.
//
// Conventions (DECISIONS.md): decimal odds are above 1 and include the
// stake; American odds of p >= 0.5 are negative except p = 0.5, which is
// +100, and -100 is read as p = 0.5; fractional a/b wins a for b staked
// (p = b/(a+b)); odds for a:b are a chances for and b against
// (p = a/(a+b)).
//
// # Probability inputs
//
// The one rule for reading probabilities (DECISIONS.md) lives here, so
// that the tools and the agent board share it. Decoders keep what was
// sent ([Sent]: a number's literal or a string); after decoding,
// [ReadGroup] reads one array of forecasts on one scale (a string with %
// is a percent; bare numbers strictly between 0 and 1 say fractions, above
// 1 percents, 0 and 1 follow the others, fractions when nothing else says;
// a mix is a [*ScaleError] naming the items), [ReadLone] reads a
// probability that stands alone (a bare 1 is refused as ambiguous) and
// [ReadFraction] is the board's reading (a bare number is a fraction in
// [0, 1], a string with % a percent). A number is read as the decimal it
// spells, so a percent is the same digits with the point moved two places
// and rounded once ("99.9%" is the float64 nearest 0.999, by
// strconv.ParseFloat, which rounds correctly), without math/big; positive
// numbers below 1e-300 are refused. [ReadProbability] and
// [ReadProbabilityText] apply ReadLone to one number or text.
//
// # Comparing and removing the margin
//
// [Compare] gives the odds ratio, risk ratio and difference in percentage
// points of two values. [Implied] turns decimal odds into raw implied
// probabilities, the overround and the hold, and probabilities that add up
// to 1 by the [Multiplicative] (default), [Additive], [Power] or [Shin]
// method.
//
// # Errors
//
// Every function returns an [*Error] (or, from Implied, an [*OutcomeError])
// that names the input, says what is wrong and how to fix it, and wraps a
// sentinel callers can test with [errors.Is]: [ErrSyntax], [ErrRange],
// [ErrCertain] (a probability of 0 or 1, whose odds are infinite),
// [ErrNotation], [ErrMethod], [ErrOutcomes], [ErrNegative] and
// [ErrNoConvergence].
//
// # Decisions
//
// Choices this package makes where the specification is silent:
//
//   - Numbers may use an exponent ("1e-3") from -330 to +330; a decimal
//     comma is refused with a hint, since "1,91" could be 1.91 or 191.
//   - Text is limited to [MaxLen] bytes; spaces around it (and around "/",
//     ":" and before "%") are ignored.
//   - "evens", "evs" and "even" are 1/1 (in any case).
//   - An explicit notation is strict: "40%" as a probability is a syntax
//     error whose hint names the notation it looks like. A bare number is
//     read as x/1 in fractional and x:1 in odds for, and as +x in American;
//     American odds may have decimals (-110.5).
//   - Parse returns ErrCertain together with the Value (P = 0 or 1), so
//     callers that accept certainty can use it.
//   - In Auto, a whole number from 10 to 100 is read as decimal odds as
//     the rule says, with a [Value.Note] that the writer may have meant a
//     percent.
//   - Shin's method is refused for odds without a margin (the raw
//     probabilities add up to under 100%), where its iteration diverges.
//     The additive method is refused when it would make a probability
//     negative, rather than clipping it.
//   - A value so close to 0 or 1 that float64 cannot tell it from them is
//     refused with ErrRange.
package odds
