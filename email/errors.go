package email

import (
	"errors"
	"strings"
)

// Sentinel errors. Callers test them with [errors.Is]; the functions of this
// package wrap them in an [*Error] that names the field, says what was wrong
// and how to fix it.
var (
	// ErrTooLarge: the message is larger than [Options.MaxBytes]. It is
	// refused, never truncated.
	ErrTooLarge = errors.New("email: message too large")
	// ErrNoText: the message has no text/plain or text/html part that is
	// not an attachment (for example only an image).
	ErrNoText = errors.New("email: message has no text part")
	// ErrMalformed: the message cannot be read as RFC 5322 and MIME: an
	// empty message, a broken header, a multipart without boundary or
	// closing boundary, nesting too deep, an undecodable body, a sender
	// address that cannot be parsed.
	ErrMalformed = errors.New("email: malformed message")
	// ErrCharset: the text part is in a character set this package does not
	// decode and [Options.CharsetReader] is nil or refused it.
	ErrCharset = errors.New("email: unsupported charset")
	// ErrInvalid: a [Notification] misses a field or has one that cannot
	// be written safely (an address with a line break, an ID with spaces).
	ErrInvalid = errors.New("email: invalid notification")
)

// Error describes what is wrong with a message or a notification. Err is
// one of the sentinel errors ([ErrTooLarge], [ErrNoText], [ErrMalformed],
// [ErrCharset], [ErrInvalid]); Problem and Hint are sentences for people,
// so an HTTP adapter can send Problem as the detail and Hint as the hint, and
// a command can print Error() for the MTA's bounce.
type Error struct {
	// Field names the part of the message: a header name ("From",
	// "Content-Type"), "body", "message" (the whole message), or a
	// Notification field name ("To", "PredictionID").
	Field string
	// Problem says what is wrong.
	Problem string
	// Hint says how to fix it.
	Hint string
	// Err is the sentinel.
	Err error
}

// Explain returns the field, the problem and the hint, for an adapter to show.
func (e *Error) Explain() (field, problem, hint string) { return e.Field, e.Problem, e.Hint }

// Error returns "email: <field>: <problem>; <hint>".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("email: ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	switch {
	case e.Problem != "":
		b.WriteString(e.Problem)
	case e.Err != nil:
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "email: "))
	default:
		b.WriteString("invalid")
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns the sentinel, for [errors.Is].
func (e *Error) Unwrap() error { return e.Err }

func malformed(field, problem, hint string) *Error {
	return &Error{Field: field, Problem: problem, Hint: hint, Err: ErrMalformed}
}

func invalid(field, problem, hint string) *Error {
	return &Error{Field: field, Problem: problem, Hint: hint, Err: ErrInvalid}
}
