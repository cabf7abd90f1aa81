package boardapi

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/mailbox"
)

// TestStatusOf: the board's errors get their status from the board's
// table, wrapped or inside the adapter's own errors; the adapter's errors
// and anything else keep httpio's.
func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, http.StatusOK},
		{httpio.ErrUnauthorized, http.StatusUnauthorized},
		{&httpio.Error{Field: "Authorization", Err: httpio.ErrForbidden}, http.StatusForbidden},
		{&board.ValidationError{Field: "title"}, http.StatusBadRequest},
		{fmt.Errorf("x: %w", board.ErrNotFound), http.StatusNotFound},
		{&httpio.Error{Field: "id", Err: board.ErrClosed}, http.StatusConflict},
		{fmt.Errorf("x: %w", board.Invalid("agent_id", "is a person's id on this board", "choose another agent id", board.ErrTaken)), http.StatusConflict},
		{board.ErrUnavailable, http.StatusServiceUnavailable},
		{mailbox.ErrExpired, http.StatusGone},
		{email.ErrTooLarge, http.StatusRequestEntityTooLarge},
		{mailbox.ErrUnknownSender, http.StatusUnprocessableEntity},
		{errors.New("something else"), http.StatusInternalServerError},
	} {
		if got := httpio.StatusOf(withStatus(tc.err)); got != tc.want {
			t.Errorf("StatusOf(withStatus(%v)) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
