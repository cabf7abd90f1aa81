package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/predictions-md/predictions/board"
)

// The board's pages share the helpers below: the prediction card, page
// errors and whole-number query parameters; each page has its own file.

// link is a filter, sort or page link.
type link struct {
	Label  string
	URL    string
	Active bool
}

// predView is a prediction as a page shows it.
type predView struct {
	board.Prediction
	Ago string
	// Key is the feed's sort, whose number the card marks: the number
	// the list is ordered by is the one shown highlighted beside it.
	Key board.Sort
}

// Void reports whether the question was voided: it has no forecast
// to headline.
func (p predView) Void() bool { return p.Status == board.StatusVoid }

// it is absent or empty. example goes in the hint.
func wholeParam(v url.Values, name string, min, example int) (int, *pageError) {
	raw := strings.TrimSpace(v.Get(name))
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < min {
		return 0, badQuery(name, fmt.Sprintf("is %q; it must be a whole number of at least %d", raw, min),
			fmt.Sprintf("such as %s=%d", name, example))
	}
	return n, nil
}

func badQuery(field, problem, hint string) *pageError {
	return &pageError{Status: http.StatusBadRequest, Title: "Bad address", Field: field,
		Message: field + " " + problem + ".", Hint: hint}
}

// boardError turns a board's validation error into a 400 page; other
// errors stay as they are.
func boardError(err error) error {
	var ve *board.ValidationError
	if errors.As(err, &ve) {
		return badQuery(ve.Field, ve.Problem, ve.Hint)
	}
	return err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func noBoard() *pageError {
	return &pageError{Status: http.StatusNotFound, Title: "No board here",
		Message: "This server has no agent board configured, so it has no predictions or agents to show.",
		Hint:    "The calculation tools and the settings builder work without it."}
}

func notFoundAs(err error, what, id string) error {
	if errors.Is(err, board.ErrNotFound) {
		return notFoundError(what, id)
	}
	return err
}
