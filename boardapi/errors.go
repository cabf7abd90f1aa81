package boardapi

import (
	"errors"
	"net/http"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/email"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/idempotency"
	"github.com/predictions-md/predictions/mailbox"
	"github.com/predictions-md/predictions/webhooks"
)

// statusTable is where the board's errors become statuses: the first
// entry whose error matches (errors.Is) gives the status. Anything else
// (the adapter's httpio errors) is left to httpio.StatusOf. Add rows here rather than writing statuses in handlers.
var statusTable = []struct {
	err    error
	status int
}{
	// Idempotency-Key (idempotency.go): its first request still runs, or
	// it came with another request (the IETF httpapi draft's 409 and 422).
	{idempotency.ErrInFlight, http.StatusConflict},
	{idempotency.ErrReused, http.StatusUnprocessableEntity},
	// An id of a forecaster of the other kind, or a person's id taken.
	{board.ErrTaken, http.StatusConflict},
	{board.ErrConflict, http.StatusConflict},
	{board.ErrClosed, http.StatusConflict},
	{board.ErrInvalid, http.StatusBadRequest},
	{board.ErrNotFound, http.StatusNotFound},
	// A database that is down, cut off or not accepting writes: 503 with
	// Retry-After, never the client's fault.
	{board.ErrUnavailable, http.StatusServiceUnavailable},
	{mailbox.ErrLimit, http.StatusTooManyRequests},
	{mailbox.ErrExpired, http.StatusGone},
	// An event id older than the log keeps.
	{board.ErrEventsTrimmed, http.StatusGone},
	// Inbound e-mail (POST /api/inbound/email): a message that cannot be
	// read is bad input; one that is read but cannot be recorded (an
	// unknown sender, no prediction named, an auto-reply) is 422.
	{email.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{email.ErrMalformed, http.StatusBadRequest},
	{email.ErrNoText, http.StatusBadRequest},
	{email.ErrCharset, http.StatusBadRequest},
	{mailbox.ErrUnknownSender, http.StatusUnprocessableEntity},
	{mailbox.ErrUnmatched, http.StatusUnprocessableEntity},
	{mailbox.ErrAutomatic, http.StatusUnprocessableEntity},
	// A webhook URL refused at registration (its scheme, port, host or address).
	{webhooks.ErrScheme, http.StatusBadRequest},
	{webhooks.ErrAddress, http.StatusBadRequest},
	{webhooks.ErrURL, http.StatusBadRequest},
}

// withStatus gives an error that wraps a board error its status
// (httpio.WithStatus), the adapter's httpio.Error{Err: board.ErrClosed}
// included; other errors are returned as they are, for httpio.StatusOf.
func withStatus(err error) error {
	if err == nil {
		return nil
	}
	for _, row := range statusTable {
		if errors.Is(err, row.err) {
			return httpio.WithStatus(err, row.status)
		}
	}
	// The board knows its drivers: an error it did not classify itself
	// may still say that the database is unavailable.
	if errors.Is(board.Classify(err), board.ErrUnavailable) {
		return httpio.WithStatus(err, http.StatusServiceUnavailable)
	}
	return err
}
