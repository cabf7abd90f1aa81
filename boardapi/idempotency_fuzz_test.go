package boardapi

import (
	"errors"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/internal/httpio"
)

// FuzzIdempotencyKey: parseIdempotencyKey never panics; a key it accepts
// is 1 to 255 printable ASCII characters and reads back the same when
// sent quoted (RFC 8941 string); what it refuses is a 400 naming the
// header.
func FuzzIdempotencyKey(f *testing.F) {
	for _, s := range []string{"8e03978e-40d5-43e8-bc93-6894a57f9324", `"8e03978e"`, `"a\"b"`, `"a\x"`, `""`, "", `"`, "clé", strings.Repeat("k", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		key, err := parseIdempotencyKey([]string{v})
		if err != nil {
			var he *httpio.Error
			if !errors.As(err, &he) || he.Field != IdempotencyHeader || !errors.Is(err, httpio.ErrBadRequest) {
				t.Fatalf("parseIdempotencyKey(%q) error = %#v, want a 400 naming %s", v, err, IdempotencyHeader)
			}
			return
		}
		if len(key) < 1 || len(key) > MaxIdempotencyKey {
			t.Fatalf("parseIdempotencyKey(%q) = %q: length %d", v, key, len(key))
		}
		for i := 0; i < len(key); i++ {
			if key[i] < 0x20 || key[i] > 0x7e {
				t.Fatalf("parseIdempotencyKey(%q) = %q: byte %d is not printable ASCII", v, key, i)
			}
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
		if back, err := parseIdempotencyKey([]string{quoted}); err != nil || back != key {
			t.Fatalf("parseIdempotencyKey(%s) = %q, %v; want %q", quoted, back, err, key)
		}
	})
}
