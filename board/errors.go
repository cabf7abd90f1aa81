package board

import (
	"errors"
	"fmt"

	"github.com/predictions-md/predictions/internal/database"
)

// Sentinel errors. Test for them with [errors.Is]; every error a [Store]
// method returns for a caller mistake wraps one of them.
var (
	// ErrNotFound: the prediction or agent named by an id does not exist.
	ErrNotFound = errors.New("board: not found")
	// ErrInvalid: the input is invalid. The error is a *[ValidationError]
	// naming the field; use [errors.As] for the detail.
	ErrInvalid = errors.New("board: invalid input")
	// ErrConflict: the input is valid but taken by another, such as an
	// e-mail address another agent registered. The error is a
	// *[ValidationError] naming the field.
	ErrConflict = errors.New("board: conflict")
	// ErrTaken: the id belongs to a forecaster of the other kind (an
	// agent writing under a person's id, or a person's under an
	// agent's), or a person's id asked for exists already
	// ([Store.AddPerson]). The error is a *[ValidationError] naming the
	// field, which also wraps [ErrConflict].
	ErrTaken = errors.New("board: id taken")
	// ErrClosed: the prediction is resolved or void and takes no more
	// forecasts (HTTP 409).
	ErrClosed = errors.New("board: prediction is closed")
	// ErrNoDatabase: the SQLite file (with [Options.MustExist]) or its
	// directory (without [Options.CreateDirs]) does not exist.
	ErrNoDatabase = errors.New("board: no such database")
)

// ValidationError describes one invalid input field. It wraps [ErrInvalid],
// or [ErrConflict] for a value another already holds.
type ValidationError struct {
	// Field is the input field, in its JSON spelling (agent_id, title,
	// confidence, parent_id, limit, ...).
	Field string `json:"field"`
	// Problem says what is wrong, e.g. "is 201 characters long; the maximum is 200".
	Problem string `json:"problem"`
	// Hint says how to fix it, with an example value where one helps.
	Hint string `json:"hint,omitempty"`

	err error // the sentinel; nil means ErrInvalid
}

// Error returns "board: <field> <problem> (<hint>)".
func (e *ValidationError) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("board: %s %s", e.Field, e.Problem)
	}
	return fmt.Sprintf("board: %s %s (%s)", e.Field, e.Problem, e.Hint)
}

// Explain returns the field, the problem and the hint, for an adapter to
// show (the HTTP API's Problem body reads it).
func (e *ValidationError) Explain() (field, problem, hint string) { return e.Field, e.Problem, e.Hint }

// Unwrap returns [ErrInvalid], or [ErrConflict] for a value taken.
func (e *ValidationError) Unwrap() error {
	if e.err != nil {
		return e.err
	}
	return ErrInvalid
}

// Invalid returns the error of an invalid input field, for a package
// around the board that checks its input by the board's rules and
// answers with its errors: a *ValidationError wrapping [ErrInvalid], or
// wrapping each of wraps instead when there are any (such as
// [ErrConflict] and a sentinel of the package's own).
func Invalid(field, problem, hint string, wraps ...error) *ValidationError {
	e := invalid(field, problem, hint)
	if len(wraps) > 0 {
		e.err = errors.Join(wraps...)
	}
	return e
}

func invalid(field, problem, hint string) *ValidationError {
	return &ValidationError{Field: field, Problem: problem, Hint: hint}
}

// notFound wraps ErrNotFound with the kind of thing and its id.
func notFound(what, id string) error {
	return fmt.Errorf("%w: no %s with id %q", ErrNotFound, what, id)
}

// ErrUnavailable: the database cannot be reached or does not accept
// writes now (the server is down or read-only, a connection was cut, the
// store is closed, the SQLite file is locked beyond the busy timeout or
// cannot be written, PostgreSQL gave up on a statement); the list is
// [database.ErrUnavailable]'s, which it is. It is the service's fault,
// not the input's, and retrying later may succeed; when a write returns
// it, the write was not committed. Test for it with [errors.Is]; the
// error also wraps the driver's, for the log.
var ErrUnavailable = database.ErrUnavailable

// Classify returns err wrapped with [ErrUnavailable] when it says the
// database is unavailable, else err unchanged; nil stays nil. The board's
// drivers are known there ([database.Classify]), so callers need not know
// them: adapters call it on any error a [Store] method returned.
func Classify(err error) error { return database.Classify(err) }
