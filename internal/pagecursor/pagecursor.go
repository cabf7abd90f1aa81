// Package pagecursor seals the position where a page of a list stops
// into an opaque cursor, and opens it again for the next page. The text
// is base64url (no padding) of the position's JSON followed by the first
// bytes of SHA-256 over a salt and the JSON, so that a cursor cut short,
// edited, or of another list (another salt) or another version of it is
// refused instead of read as another position. The checksum is no
// secret: a forged cursor of a public list can only point into that list.
//
//	text := pagecursor.Seal("feed cursor v1\x00", payload)
//	err := pagecursor.Open(text, "feed cursor v1\x00", &position) // errors.Is(err, pagecursor.ErrDamaged) ...
package pagecursor

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
)

// MaxLen bounds the length of a cursor's text, in bytes.
const MaxLen = 512

// sumLen is how many bytes of the SHA-256 checksum a cursor carries.
const sumLen = 8

// The refusals of [Open].
var (
	// ErrTooLong: the text is longer than [MaxLen].
	ErrTooLong = errors.New("pagecursor: too long")
	// ErrDamaged: the checksum does not match the position (cut short,
	// edited, or sealed with another salt).
	ErrDamaged = errors.New("pagecursor: checksum does not match")
	// ErrNotCursor: the text is not base64url of a position and its
	// checksum, or the position is not JSON of the value asked for.
	ErrNotCursor = errors.New("pagecursor: not a cursor")
)

// Seal returns the text of a cursor whose position is payload (JSON),
// checked with salt.
func Seal(salt string, payload []byte) string {
	sum := sha256.Sum256(append([]byte(salt), payload...))
	return base64.RawURLEncoding.EncodeToString(append(payload, sum[:sumLen]...))
}

// Open reads the text of a cursor sealed with salt into v, strictly: no
// unknown field, nothing after the value. A refusal is [ErrTooLong],
// [ErrDamaged] or [ErrNotCursor].
func Open(text, salt string, v any) error {
	if len(text) > MaxLen {
		return ErrTooLong
	}
	raw, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || len(raw) <= sumLen {
		return ErrNotCursor
	}
	payload, sum := raw[:len(raw)-sumLen], raw[len(raw)-sumLen:]
	want := sha256.Sum256(append([]byte(salt), payload...))
	if !bytes.Equal(sum, want[:sumLen]) {
		return ErrDamaged
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		return ErrNotCursor
	}
	return nil
}
