package notify_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/notify"
)

// FuzzParseURL: no input panics; a refusal wraps ErrConfig and never shows
// the password; an accepted URL has a host and a port, and its String
// leaves the password out.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"smtp://u:p@h:25?from=a@b.org", "smtps://h", "smtp://[::1]:2525", "smtp://h?from=%zz", "smtp://u:pw@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := notify.ParseURL(s)
		if err != nil {
			if !errors.Is(err, notify.ErrConfig) {
				t.Errorf("ParseURL(%q) = %v, not wrapping ErrConfig", s, err)
			}
			return
		}
		if c.Host == "" || c.Port == "" {
			t.Errorf("ParseURL(%q) = %+v: no host or port", s, c)
		}
		if c.Password != "" && strings.Contains(c.String(), ":"+c.Password+"@") {
			t.Errorf("String() of %q shows the password: %s", s, c.String())
		}
	})
}
