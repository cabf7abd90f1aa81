package boardapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/predictions-md/predictions/board"
	"github.com/predictions-md/predictions/internal/httpio"
	"github.com/predictions-md/predictions/internal/idempotency"
)

// Idempotency keys on the board's writes, as the IETF httpapi draft "The
// Idempotency-Key HTTP Header Field" describes them: a write sent with a
// key runs once; the same request sent again with the key within
// idempotency.TTL gets the first answer back, marked by ReplayedHeader.
// The key and its answer commit in the write's own transaction (a unit of
// work, board's Store.Atomically), so a write is never run twice for one
// key, whatever fails after its commit.

const (
	// IdempotencyHeader is the request header that carries the key.
	IdempotencyHeader = "Idempotency-Key"
	// ReplayedHeader, "true", marks an answer replayed from a key.
	ReplayedHeader = "Idempotency-Replayed"
	// MaxIdempotencyKey is the longest key accepted, in bytes.
	MaxIdempotencyKey = 255
	// inFlightRetry is the Retry-After, in seconds, of a 409 for a key
	// whose first request still runs.
	inFlightRetry = 1
)

// idempotencyText is what the published descriptions say of the header.
const idempotencyText = "a unique string of 1 to 255 printable ASCII characters (such as a UUID), sent as a bare value or as a " +
	"quoted string (RFC 8941), scoped to your credential and this route, whether called over HTTP or as its MCP tool (a JSON body counts by its fields, not their order or spacing). The same request sent again with the same key within 24 h of a success writes nothing " +
	"and gets the first answer back (same status and body) with Idempotency-Replayed: true; the key with another request (method, path or body) is a 422, " +
	"and while the first request still runs a 409 with Retry-After. Only a success keeps its key: a refused write (any 4xx) stores nothing, so the same key may be sent again with the corrected request; a 503 means the write may or may not be stored: retry with the same key, which answers the stored answer if it was and writes once if not. " +
	"Send a fresh key for each new write and the same key when you retry one after a timeout, a dropped connection or a 503."

// replayHeaders are the headers of an answer that are stored and replayed.
var replayHeaders = []string{"Content-Type", "Location", "Cache-Control"}

// takesKey reports whether br accepts an Idempotency-Key: every write
// but those declared keyless, such as the key route, whose answer is a
// secret shown once that the board must not store (it keeps only the
// key's hash).
func (br *boardRoute) takesKey() bool {
	return br.method != http.MethodGet && !br.keyless
}

// idempotent wraps the handler of a write route: a request with an
// Idempotency-Key claims the key, runs once and stores its answer; the
// same request again gets that answer. Requests without the header, and
// other routes, go straight to next.
func (s *API) idempotent(br *boardRoute, next http.Handler) http.Handler {
	if !br.takesKey() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals := r.Header.Values(IdempotencyHeader)
		if len(vals) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		s.host.Handle(func(w http.ResponseWriter, r *http.Request) error {
			return s.runOnce(br, next, w, r, vals)
		}).ServeHTTP(w, r)
	})
}

// storedRoutes are the names under which servers before a route's rename
// stored its keys, by its name now: a request retried across the upgrade
// (one replica old, one new, or a restart), within idempotency.TTL, must
// still find its first answer rather than run again.
var storedRoutes = map[string]string{
	"post_prediction": "create_prediction",
	"post_forecast":   "create_forecast",
	"reply":           "create_reply",
}

// storedRoute is the route under which the keys of the route name are
// stored: its name, or the one it had when keys were first stored.
func storedRoute(name string) string {
	if old, ok := storedRoutes[name]; ok {
		return old
	}
	return name
}

// runOnce claims the key, then runs next, or replays the stored answer.
func (s *API) runOnce(br *boardRoute, next http.Handler, w http.ResponseWriter, r *http.Request, vals []string) error {
	key, err := parseIdempotencyKey(vals)
	if err != nil {
		return err
	}
	limit := int64(httpio.MaxBodyBytes)
	if br.raw != nil {
		limit = br.raw.maxBytes
	}
	if r.ContentLength > limit { // the route answers 413 at once and writes nothing: no key needed
		next.ServeHTTP(w, r)
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return &httpio.Error{Field: "body", Err: httpio.ErrBadRequest, Problem: "could not be read: " + err.Error(),
			Hint: "send the whole body with its Content-Length"}
	}
	if int64(len(body)) > limit { // the route answers 413 and writes nothing: no key needed
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		next.ServeHTTP(w, r)
		return nil
	}
	k := idempotency.Key{Scope: callerScope(r), Route: storedRoute(br.name), Key: key, RequestHash: requestHash(r, body)}
	keys := s.idem
	if keys == nil {
		return &httpio.Error{Field: IdempotencyHeader, Err: httpio.ErrBadRequest, Problem: "is not kept by this server (its board offers no database for keys)",
			Hint: "send the request without Idempotency-Key"}
	}
	if err := s.migrate(r.Context()); err != nil {
		return withStatus(board.Classify(err))
	}
	release, err := keys.Hold(k)
	if err != nil {
		return s.keyError(w, key, err)
	}
	defer release()
	var (
		ans *idempotency.Answer      // the stored answer, replayed
		rec *bufferWriter            // the write's answer
		out = errors.New("no write") // rolls back a write that did not succeed
	)
	err = s.opt.Store.Atomically(r.Context(), func(ctx context.Context) error {
		var err error
		if ans, err = keys.Claim(ctx, k); err != nil || ans != nil {
			return err
		}
		rec = &bufferWriter{header: http.Header{}} // anew when the unit runs again
		r := r.WithContext(ctx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		if rec.status/100 != 2 {
			return out
		}
		return keys.Save(ctx, k, answerOf(rec))
	})
	switch {
	case errors.Is(err, idempotency.ErrInFlight), errors.Is(err, idempotency.ErrReused):
		return s.keyError(w, key, err)
	case errors.Is(err, out) && rec.status == http.StatusServiceUnavailable,
		errors.Is(board.Classify(err), board.ErrUnavailable):
		return outcomeUnknown(key, err)
	case errors.Is(err, out):
		// A refusal (a 4xx such as a 400 naming a field, a 404 or a 409
		// for a closed question) wrote nothing and keeps no key: only a
		// success is stored, in the write's own transaction. So the key
		// table grows only as fast as the writes the rate limits allow
		// (a refusal gives its budget back), and a client that corrects
		// its request before retrying, as the IETF draft "The
		// Idempotency-Key HTTP Header Field" (Error Scenarios) asks, is
		// not told its key was reused. The draft's own 409 and 422 are
		// about the key and are answered anew each time. A retry of a
		// refusal runs again: the same refusal, or a success if what
		// refused it changed.
	case err != nil:
		return withStatus(board.Classify(err))
	case ans != nil:
		replay(w, ans)
		return nil
	case s.afterUnit != nil:
		s.afterUnit()
	}
	for h, v := range rec.header {
		w.Header()[h] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
	return nil
}

// migrate applies the pending migrations of the idempotency keys and of
// the mailbox, which a keyed write may use: inside its unit of work, on
// SQLite, they could not run (the unit holds the only write connection).
func (s *API) migrate(ctx context.Context) error {
	if err := s.idem.Migrate(ctx); err != nil {
		return err
	}
	if m, ok := s.mail.(interface{ Migrate(context.Context) error }); ok {
		return m.Migrate(ctx)
	}
	return nil
}

// outcomeUnknown is the 503 of a keyed write the database did not
// confirm: the connection may have failed after the commit was sent, so
// the write may be stored. The key commits with the write, so the retry
// with the same key is safe either way: it gets the stored answer if the
// write committed, and writes once if it did not.
func outcomeUnknown(key string, err error) error {
	return httpio.WithStatus(&httpio.Error{Field: "database", Err: err,
		Problem: "did not confirm this write (down, unreachable or not accepting writes): it may or may not be stored",
		Hint: fmt.Sprintf("retry after %d s (Retry-After) with the same Idempotency-Key %q: if the write was stored you get its answer, "+
			"if not it runs once; GET /healthz says when the database is back", httpio.UnavailableRetry, key)}, http.StatusServiceUnavailable)
}

// keyError is the Problem of a key in flight (409, with Retry-After) or
// reused with another request (422).
func (s *API) keyError(w http.ResponseWriter, key string, err error) error {
	if errors.Is(err, idempotency.ErrInFlight) {
		w.Header().Set("Retry-After", strconv.Itoa(inFlightRetry))
		return withStatus(&httpio.Error{Field: IdempotencyHeader, Err: err, Problem: fmt.Sprintf("%q is in use by a request that is still running", key),
			Hint: fmt.Sprintf("wait for that request's answer, or send this request again with the same key after %d s (Retry-After)", inFlightRetry)})
	}
	return withStatus(&httpio.Error{Field: IdempotencyHeader, Err: err, Problem: fmt.Sprintf("%q was reused with another request (method, path or body) within 24 h", key),
		Hint: "send a fresh key for each new write; reuse a key only to retry the very same request"})
}

// answerOf is the answer rec holds, with the headers that are replayed.
func answerOf(rec *bufferWriter) idempotency.Answer {
	a := idempotency.Answer{Status: rec.status, Header: map[string]string{}, Body: rec.body.Bytes()}
	for _, h := range replayHeaders {
		if v := rec.header.Get(h); v != "" {
			a.Header[h] = v
		}
	}
	return a
}

// replay writes a stored answer.
func replay(w http.ResponseWriter, a *idempotency.Answer) {
	h := w.Header()
	for k, v := range a.Header {
		h.Set(k, v)
	}
	h.Set(ReplayedHeader, "true")
	h.Set("Content-Length", strconv.Itoa(len(a.Body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
}

// callerScope is whom a key belongs to: the SHA-256 of the request's
// bearer token as the routes read it (parseBearer: the scheme in any
// case, white space around the token ignored), that is of the agent id
// (id mode), the agent's key (key mode) or the moderator token, so that
// no caller sees another's answers, one caller's spellings of its
// header share its keys, and no credential is stored. A header that is
// not a bearer (the route answers 401, which keeps no key) is hashed as
// it came. The canonical spelling, "Bearer <token>", hashes as a header
// sent so always did, so keys stored before keep their scope.
func callerScope(r *http.Request) string {
	h := r.Header.Values("Authorization")
	id := strings.Join(h, "\n")
	if token, problem := parseBearer(h); problem == "" {
		id = "Bearer " + token
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// requestHash is the fingerprint of a request that a key is bound to:
// its method, path and query, and body. A body that is a JSON object is
// hashed in one spelling (its members sorted by name, white space
// outside strings dropped), the one the MCP tools send: so a retry of one
// write through the other door (an HTTP POST and the MCP tool of its
// route, with the same credential, key and fields) finds the same key,
// and so does one whose client spaced or ordered its JSON otherwise. The
// IETF draft leaves the fingerprint to the server (Idempotency
// Fingerprint: "field value match for each field in the request
// payload").
func requestHash(r *http.Request, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.EscapedPath(), r.URL.RawQuery)
	h.Write(canonicalJSON(body))
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON is body as callRoute would marshal its fields when body
// is one JSON object, else body as it came.
func canonicalJSON(body []byte) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || fields == nil {
		return body
	}
	b, err := json.Marshal(fields) // sorted keys; each raw value compacted
	if err != nil {
		return body
	}
	return b
}

// parseIdempotencyKey reads the header's values: one value, either a
// Structured Field string (RFC 8941 §3.3.3: in double quotes, with \" and
// \\ escaped), as the draft writes it, or the bare characters, as many
// clients send them; the key is 1 to MaxIdempotencyKey printable ASCII
// characters.
func parseIdempotencyKey(vals []string) (string, error) {
	bad := func(problem string) error {
		return &httpio.Error{Field: IdempotencyHeader, Err: httpio.ErrBadRequest, Problem: problem,
			Hint: fmt.Sprintf("send one key of 1 to %d printable ASCII characters, such as Idempotency-Key: \"8e03978e-40d5-43e8-bc93-6894a57f9324\" (a fresh UUID per write)", MaxIdempotencyKey)}
	}
	if len(vals) > 1 {
		return "", bad("header is given more than once")
	}
	v := strings.Trim(vals[0], " \t")
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		var b strings.Builder
		for i := 1; i < len(v)-1; i++ {
			c := v[i]
			if c == '\\' {
				if i+1 == len(v)-1 || (v[i+1] != '"' && v[i+1] != '\\') {
					return "", bad(`is a quoted string with a backslash that escapes neither " nor \`)
				}
				i++
				c = v[i]
			} else if c == '"' {
				return "", bad(`is a quoted string with an unescaped " inside`)
			}
			b.WriteByte(c)
		}
		v = b.String()
	}
	if v == "" {
		return "", bad("is empty")
	}
	if len(v) > MaxIdempotencyKey {
		return "", bad(fmt.Sprintf("is %d characters long; the maximum is %d", len(v), MaxIdempotencyKey))
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return "", bad(fmt.Sprintf("has a character that is not printable ASCII at byte %d", i))
		}
	}
	return v, nil
}
