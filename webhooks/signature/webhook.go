package signature

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery, as the specification names them.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Tolerance is how far a delivery's timestamp may be from the receiver's
// clock, either way (the reference implementations' five minutes).
const Tolerance = 5 * time.Minute

// SecretPrefix starts a secret as shown to people.
const SecretPrefix = "whsec_"

// Secret lengths in bytes: the specification asks for at least 24
// random bytes and at most 64; [NewSecret] makes 32.
const (
	MinSecret = 24
	MaxSecret = 64
)

// Sentinel errors, each wrapped in an *[Error].
var (
	// ErrHeader: a header or the secret is missing or malformed.
	ErrHeader = errors.New("webhook: missing or malformed")
	// ErrTimestamp: webhook-timestamp is further from now than Tolerance.
	ErrTimestamp = errors.New("webhook: timestamp outside the tolerance")
	// ErrSignature: no v1 signature of webhook-signature matches.
	ErrSignature = errors.New("webhook: no matching signature")
)

// Error is a refusal: the header (or "secret", "id") at fault, the
// problem and a hint, in sentences for people.
type Error struct {
	Field, Problem, Hint string
	Err                  error // ErrHeader, ErrTimestamp or ErrSignature
}

// Error returns "webhook: <field> <problem> (<hint>)".
func (e *Error) Error() string {
	return fmt.Sprintf("webhook: %s %s (%s)", e.Field, e.Problem, e.Hint)
}

// Explain returns the field, the problem and the hint, for an adapter to show.
func (e *Error) Explain() (field, problem, hint string) { return e.Field, e.Problem, e.Hint }

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// Secret is an endpoint's signing key, the raw bytes.
type Secret []byte

// NewSecret returns 32 random bytes.
func NewSecret() (Secret, error) {
	s := make(Secret, 32)
	if _, err := rand.Read(s); err != nil {
		return nil, fmt.Errorf("webhook: generating a secret: %w", err)
	}
	return s, nil
}

// String is the secret as shown once to its owner: "whsec_" + base64.
func (s Secret) String() string { return SecretPrefix + base64.StdEncoding.EncodeToString(s) }

// ParseSecret reads a secret as [Secret.String] writes it; the prefix
// may be left out, as the reference implementations accept.
//
// Errors: an *[Error] on secret wrapping [ErrHeader] when s is not
// standard base64 of MinSecret to MaxSecret bytes.
func ParseSecret(s string) (Secret, error) {
	const hint = `give the secret as shown when the endpoint was registered, such as "whsec_" followed by base64`
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
	if err != nil {
		return nil, &Error{Field: "secret", Problem: "is not base64 after whsec_", Hint: hint, Err: ErrHeader}
	}
	if len(b) < MinSecret || len(b) > MaxSecret {
		return nil, &Error{Field: "secret", Problem: fmt.Sprintf("holds %d bytes; a secret holds %d to %d", len(b), MinSecret, MaxSecret), Hint: hint, Err: ErrHeader}
	}
	return b, nil
}

// checkID refuses an id the receiver could confuse with the rest of the
// signed content: the specification asks that it hold no ".".
func checkID(id string) error {
	if id == "" || len(id) > 256 || strings.ContainsAny(id, ". \t\r\n") {
		return &Error{Field: HeaderID, Problem: fmt.Sprintf("%q is not a message id", id),
			Hint: "use 1 to 256 characters without dots or spaces, such as msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", Err: ErrHeader}
	}
	return nil
}

// signature is base64(HMAC-SHA256(secret, id.timestamp.body)).
func signature(secret Secret, id string, unix int64, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write(strconv.AppendInt(nil, unix, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Sign returns the webhook-signature of body sent as message id at ts
// (in whole seconds): one "v1,<base64>" per secret, in order, separated
// by spaces (several during a rotation).
//
// Errors: an *[Error] wrapping [ErrHeader] when id is empty or holds a
// dot or a space, or no secret is given.
func Sign(id string, ts time.Time, body []byte, secrets ...Secret) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	if len(secrets) == 0 {
		return "", &Error{Field: "secret", Problem: "is missing", Hint: "sign with the endpoint's secret", Err: ErrHeader}
	}
	var b strings.Builder
	for i, s := range secrets {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("v1,")
		b.WriteString(base64.StdEncoding.EncodeToString(signature(s, id, ts.Unix(), body)))
	}
	return b.String(), nil
}

// SetHeaders sets the three headers of a delivery of body as message id
// at ts on h. Errors: those of [Sign].
func SetHeaders(h http.Header, id string, ts time.Time, body []byte, secrets ...Secret) error {
	sig, err := Sign(id, ts, body, secrets...)
	if err != nil {
		return err
	}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	return nil
}

// Verify checks a delivery of body with headers h against secret, at
// now: see [VerifyHeaders].
func Verify(secret Secret, h http.Header, body []byte, now time.Time) error {
	return VerifyHeaders(secret, h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature), body, now)
}

// VerifyHeaders checks a delivery of body from the values of its three
// headers against secret, at now: the timestamp is whole Unix seconds
// within [Tolerance] of now, and one of the space-separated v1
// signatures matches (constant-time); entries of other versions are
// skipped.
//
// Errors: an *[Error] naming the header, wrapping [ErrHeader] (missing
// or malformed), [ErrTimestamp] or [ErrSignature].
func VerifyHeaders(secret Secret, id, timestamp, sig string, body []byte, now time.Time) error {
	for _, h := range []struct{ name, value string }{{HeaderID, id}, {HeaderTimestamp, timestamp}, {HeaderSignature, sig}} {
		if h.value == "" {
			return &Error{Field: h.name, Problem: "is missing", Hint: "a Standard Webhooks delivery carries webhook-id, webhook-timestamp and webhook-signature", Err: ErrHeader}
		}
	}
	if len(secret) == 0 {
		return &Error{Field: "secret", Problem: "is empty", Hint: "verify with the endpoint's secret ([ParseSecret])", Err: ErrHeader}
	}
	unix, err := parseTimestamp(timestamp)
	if err != nil {
		return err
	}
	ts := time.Unix(unix, 0)
	if d := now.Sub(ts); d > Tolerance || d < -Tolerance {
		return &Error{Field: HeaderTimestamp, Err: ErrTimestamp,
			Problem: fmt.Sprintf("%s is %s from now; at most %s is accepted", ts.UTC().Format(time.RFC3339), d.Abs().Round(time.Second), Tolerance),
			Hint:    "a delivery is verified when it arrives; check the receiver's clock (NTP), and never accept a replayed delivery"}
	}
	want := signature(secret, id, unix, body)
	got := make([]byte, 0, sha256.Size)
	v1 := 0
	for entry := range strings.SplitSeq(sig, " ") {
		version, b64, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		v1++
		got, err = base64.StdEncoding.AppendDecode(got[:0], []byte(b64))
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	problem := "has no v1 signature that matches the body"
	if v1 == 0 {
		problem = `has no v1 signature ("v1," followed by base64)`
	}
	return &Error{Field: HeaderSignature, Problem: problem,
		Hint: "verify the body exactly as received, before parsing it, with the endpoint's current secret", Err: ErrSignature}
}

// parseTimestamp reads whole Unix seconds: decimal digits, at most 19.
func parseTimestamp(s string) (int64, error) {
	bad := &Error{Field: HeaderTimestamp, Problem: fmt.Sprintf("%.40q is not whole Unix seconds", s),
		Hint: "send the time of the attempt as an integer, such as 1674087231", Err: ErrHeader}
	if len(s) > 19 {
		return 0, bad
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, bad
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, bad
	}
	return n, nil
}
