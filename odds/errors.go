package odds

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Callers test them with [errors.Is]; the functions of this
// package wrap them in an [*Error] (or an [*OutcomeError]) that says what
// exactly was wrong and how to fix it.
var (
	// ErrSyntax: the text has no shape any notation can read (empty,
	// garbage, a decimal comma, two slashes, a notation mismatch).
	ErrSyntax = errors.New("odds: invalid syntax")
	// ErrRange: the text is well formed but the number is outside what
	// the notation allows (decimal odds below 1, American odds between
	// -100 and +100, a probability above 1, a percent above 100, a
	// negative number, an exponent beyond ±330, a probability that rounds
	// to 0 or 1 in float64).
	ErrRange = errors.New("odds: value out of range")
	// ErrCertain: the value is a probability of exactly 0 or 1 (0%, 100%,
	// decimal odds 1, 0/5, 5/0, 0:5, 5:0), whose odds are infinite.
	ErrCertain = errors.New("odds: probability is 0 or 1, so the odds are infinite")
	// ErrNotation: the notation name is not one of [Notation]'s constants,
	// or it is an output-only notation ([LogOdds]) given for input.
	ErrNotation = errors.New("odds: unknown notation")
	// ErrMethod: the method name is not one of [Method]'s constants.
	ErrMethod = errors.New("odds: unknown method")
	// ErrOutcomes: [Implied] needs at least 2 outcomes.
	ErrOutcomes = errors.New("odds: need at least 2 outcomes")
	// ErrNegative: the additive method gives an outcome a probability
	// below 0 (it happens with long shots in a book with a large margin).
	ErrNegative = errors.New("odds: the method gives a negative probability")
	// ErrNoConvergence: Shin's fixed-point iteration did not settle.
	ErrNoConvergence = errors.New("odds: Shin's method did not converge")
)

// Error describes a value, notation name or method name that could not be
// read, in the manner of [strconv.NumError]. Err is one of the sentinel
// errors; Reason and Hint are sentences for people (an HTTP adapter can send
// Reason as the problem and Hint as its hint).
type Error struct {
	// Input is the text as given, with surrounding spaces removed (for
	// [ReadProbability] and [Implied], the number formatted with 'g').
	Input string
	// Notation is the notation the input was read as: the one asked for,
	// or the one guessed by [Auto]. It is Auto when no guess was possible
	// and empty for notation and method names.
	Notation Notation
	// Err is the sentinel: ErrSyntax, ErrRange, ErrCertain, ErrNotation,
	// ErrMethod or ErrNegative.
	Err error
	// Reason says what is wrong with Input.
	Reason string
	// Hint says how to fix it, with an example.
	Hint string
}

// Error returns `odds: "<input>" as <notation>: <reason>; <hint>`.
func (e *Error) Error() string { return "odds: " + e.detail() }

// detail is the message without the package prefix.
func (e *Error) detail() string {
	var b strings.Builder
	b.WriteString(strconv.Quote(e.Input))
	if e.Notation != "" && e.Notation != Auto {
		b.WriteString(" as ")
		b.WriteString(e.Notation.describe())
	}
	b.WriteString(": ")
	if e.Reason != "" {
		b.WriteString(e.Reason)
	} else if e.Err != nil {
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "odds: "))
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

// OutcomeError is an error about one outcome of [Implied]. Err is an
// [*Error] wrapping ErrRange, ErrCertain or ErrNegative, so both
// errors.As(err, new(*Error)) and errors.Is(err, ErrRange) work through it.
type OutcomeError struct {
	// Index is the outcome's position in the slice given to Implied,
	// counted from 0 (the message counts from 1).
	Index int
	// Err is the detail.
	Err error
}

// Error returns `odds: outcome <n>: "<input>" as decimal odds: <reason>; <hint>`,
// counting outcomes from 1.
func (e *OutcomeError) Error() string {
	msg := e.Err.Error()
	var pe *Error
	if errors.As(e.Err, &pe) {
		msg = pe.detail()
	}
	return "odds: outcome " + strconv.Itoa(e.Index+1) + ": " + strings.TrimPrefix(msg, "odds: ")
}

// Unwrap returns the detail.
func (e *OutcomeError) Unwrap() error { return e.Err }
