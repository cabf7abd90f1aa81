package board

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/predictions-md/predictions/internal/pagecursor"
)

// MaxCursor bounds the length of a cursor (of the feed or of the agent
// list), in bytes; the board's own cursors are about 150.
const MaxCursor = pagecursor.MaxLen

// cursorHint tells a caller what to do with a feed cursor the board
// refuses.
const cursorHint = "send next_cursor exactly as a feed page gave it, with the same sort and filters; leave cursor out to start from the first page"

// cursorSalt starts the checksum input of a feed cursor: a cursor of
// another list, of another program or of another version of this one does
// not check.
const cursorSalt = "predictions feed cursor v1\x00"

// pageLimit applies a paged list's rule to a requested limit: 0 means
// def, above max is clamped to max with a note, below 0 is a
// *[ValidationError] naming limit. The notes are never nil.
func pageLimit(limit, def, max int) (int, []string, error) {
	switch {
	case limit < 0:
		return 0, nil, invalid("limit", fmt.Sprintf("is %d; it cannot be negative", limit),
			fmt.Sprintf("send 1 to %d, or leave it out for %d", max, def))
	case limit == 0:
		return def, []string{}, nil
	case limit > max:
		return max, []string{fmt.Sprintf("limit %d is above the maximum; clamped to %d", limit, max)}, nil
	}
	return limit, []string{}, nil
}

// sealCursor returns the wire text of a cursor whose JSON is payload
// ([pagecursor.Seal]). Every list's cursor is written so, each with its
// own salt.
func sealCursor(salt string, payload []byte) string { return pagecursor.Seal(salt, payload) }

// openCursor reads the wire text s of a cursor sealed with salt into v
// ([pagecursor.Open]). A refusal is a *[ValidationError] naming cursor
// with hint: too long, not base64url, a checksum that does not match (cut
// short, edited or of another list) or JSON that is not v's.
func openCursor(s, salt, hint string, v any) error {
	switch err := pagecursor.Open(s, salt, v); {
	case err == nil:
		return nil
	case errors.Is(err, pagecursor.ErrTooLong):
		return invalid("cursor", fmt.Sprintf("is %d bytes long; the maximum is %d", len(s), MaxCursor), hint)
	case errors.Is(err, pagecursor.ErrDamaged):
		return invalid("cursor", "is damaged: its checksum does not match", hint)
	}
	return invalid("cursor", "is not a cursor of this board", hint)
}

// cursor is the position after the last prediction of a feed page: its
// sort key and id, with the sort and a tag of the filters it belongs to.
// On the wire it is sealed with [cursorSalt] ([sealCursor]), so a cursor
// cut short or edited is refused (400) instead of read as another
// position.
type cursor struct {
	Sort   Sort     `json:"s"`
	Filter string   `json:"f"`           // feedFilter.tag()
	At     string   `json:"t"`           // created_at, RFC 3339 UTC
	ID     string   `json:"i"`           // the prediction id
	Conf   *float64 `json:"c,omitempty"` // confidence, for SortConfidence
	Pop    *int64   `json:"p,omitempty"` // popularity, for SortPopular
	Close  *string  `json:"e,omitempty"` // close_at, RFC 3339 UTC, for SortClosing
}

// encode returns the cursor's text.
func (c cursor) encode() string {
	payload, _ := json.Marshal(c) // strings and numbers always marshal
	return sealCursor(cursorSalt, payload)
}

// at is the cursor's created_at as the databases store and compare it.
func (c cursor) at() string {
	t, _ := time.Parse(time.RFC3339Nano, c.At) // checked by parseCursor
	return storedTime(t)
}

// closeAt is the cursor's close_at as the databases store and compare it.
func (c cursor) closeAt() string {
	t, _ := time.Parse(time.RFC3339Nano, *c.Close) // checked by parseCursor
	return storedTime(t)
}

// storedTime formats t as bun writes a time (and so as SQLite compares
// the stored text): UTC with microseconds, trailing zeros dropped.
func storedTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.999999-07:00")
}

// parseCursor reads a cursor and checks it against the page asked for:
// the same sort and filters. Every refusal is a *[ValidationError] naming
// cursor.
func parseCursor(s string, f feedFilter) (cursor, error) {
	var c cursor
	if err := openCursor(s, cursorSalt, cursorHint, &c); err != nil {
		return cursor{}, err
	}
	if err := c.check(); err != nil {
		return cursor{}, invalid("cursor", err.Error(), cursorHint)
	}
	if c.Sort != f.sort {
		return cursor{}, invalid("cursor", fmt.Sprintf("belongs to sort=%s, not sort=%s", c.Sort, f.sort),
			fmt.Sprintf("send sort=%s with this cursor, or leave cursor out to start sort=%s from the first page", c.Sort, f.sort))
	}
	if c.Filter != f.tag() {
		return cursor{}, invalid("cursor", "belongs to other filters (domain, agent_id, status or q) than this request's",
			"send the filters of the page that gave the cursor, or leave cursor out to start from the first page")
	}
	return c, nil
}

// check reports a field of a decoded cursor that no page could have
// written.
func (c cursor) check() error {
	if _, err := parseSort(c.Sort); err != nil || c.Sort == "" {
		return fmt.Errorf("names an unknown sort")
	}
	if t, err := time.Parse(time.RFC3339Nano, c.At); err != nil || t.Year() < 1 || t.Year() > 9999 {
		return fmt.Errorf("holds an unreadable time")
	}
	if c.ID == "" || !utf8.ValidString(c.ID) || checkRef("cursor", c.ID) != nil {
		return fmt.Errorf("holds an unreadable id")
	}
	var need bool
	switch c.Sort {
	case SortConfidence:
		need = c.Conf != nil && !math.IsNaN(*c.Conf) && *c.Conf >= 0 && *c.Conf <= 1
	case SortPopular:
		need = c.Pop != nil && *c.Pop >= 0
	case SortClosing:
		need = c.Close != nil && checkTimeText(*c.Close)
	default:
		need = true
	}
	extra := (c.Conf != nil) != (c.Sort == SortConfidence) ||
		(c.Pop != nil) != (c.Sort == SortPopular) ||
		(c.Close != nil) != (c.Sort == SortClosing)
	if !need || extra {
		return fmt.Errorf("does not hold the sort key of sort=%s", c.Sort)
	}
	return nil
}

// checkTimeText reports whether s is an RFC 3339 time a cursor could
// hold.
func checkTimeText(s string) bool {
	t, err := time.Parse(time.RFC3339Nano, s)
	return err == nil && t.Year() >= 1 && t.Year() <= 9999
}

// cursorAfter is the cursor after r in the feed f.
func cursorAfter(r *predictionRow, f feedFilter) string {
	c := cursor{Sort: f.sort, Filter: f.tag(), At: r.CreatedAt.UTC().Format(time.RFC3339Nano), ID: r.ID}
	switch f.sort {
	case SortConfidence:
		c.Conf = &r.Confidence
	case SortPopular:
		p := int64(r.Popularity)
		c.Pop = &p
	case SortClosing:
		t := r.CloseAt.UTC().Format(time.RFC3339Nano)
		c.Close = &t
	}
	return c.encode()
}

// tag identifies the filters of a feed (not its sort or page): a cursor
// carries it, so that it continues only the feed it came from.
func (f feedFilter) tag() string {
	h := sha256.New()
	for _, s := range []string{f.domain, f.agent, string(f.status), f.q} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}
