// Package webhook signs and verifies webhook deliveries as the Standard
// Webhooks specification defines them
// (https://github.com/standard-webhooks/standard-webhooks, spec/standard-webhooks.md,
// symmetric scheme): three headers, webhook-id, webhook-timestamp
// (Unix seconds) and webhook-signature, a space-separated list of
// "v1," + base64(HMAC-SHA256(secret, id + "." + timestamp + "." + body)),
// one per secret during a rotation. Secrets are shown as "whsec_" +
// base64 of 24 to 64 random bytes ([NewSecret], [ParseSecret]). It
// imports only the standard library.
//
//	sec, err := webhook.NewSecret()
//	err = webhook.SetHeaders(req.Header, "msg_1", time.Now(), body, sec)       // the sender
//	err = webhook.Verify(sec, req.Header, body, time.Now())                     // the receiver
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
// # Sending
//
// [NewClient] is the http.Client of deliveries, guarded against
// server-side request forgery: each connection is checked after DNS
// resolution (so a name that resolves, or later re-resolves, to a
// refused address is refused too) and refused unless the address is
// public unicast ([Allowed]; [ClientOptions.AllowPrivate] opens the
// operator's own networks); only https is spoken
// ([ClientOptions.AllowHTTPLoopback] lets http reach loopback for
// development); no redirect is followed and no proxy is used; each
// delivery is bounded by [DefaultTimeout]. [Post] reads at most
// [MaxAnswer] bytes of an answer.
package webhook
