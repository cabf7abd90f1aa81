// Package signature signs and verifies webhook deliveries as the Standard
// Webhooks specification defines them
// (https://github.com/standard-webhooks/standard-webhooks, spec/standard-webhooks.md,
// symmetric scheme): three headers, webhook-id, webhook-timestamp
// (Unix seconds) and webhook-signature, a space-separated list of
// "v1," + base64(HMAC-SHA256(secret, id + "." + timestamp + "." + body)),
// one per secret during a rotation. Secrets are shown as "whsec_" +
// base64 of 24 to 64 random bytes ([NewSecret], [ParseSecret]).
//
//	sec, err := signature.NewSecret()
//	err = signature.SetHeaders(req.Header, "msg_1", time.Now(), body, sec)       // the sender
//	err = signature.Verify(sec, req.Header, body, time.Now())                     // the receiver
//
// # Verifying
//
// [Verify] accepts a delivery when one of its v1 signatures matches
// (compared in constant time) and its timestamp is within [Tolerance] of
// now, either way, against replays. Entries of other schemes (v1a,
// asymmetric) are skipped. Every refusal is an *[Error] naming the
// header, wrapping [ErrHeader] (missing or malformed), [ErrTimestamp]
// (outside the tolerance) or [ErrSignature] (no signature matches).
//
// Sending is package webhooks's job (its SSRF-guarded client and its
// sender); this package is all a receiver needs, and imports only the
// standard library.
package signature
