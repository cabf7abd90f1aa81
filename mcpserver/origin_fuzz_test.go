package mcpserver_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/mcpserver"
)

// FuzzParseOrigin: any text is either ErrOrigin or an origin that parses
// to itself, of scheme http or https, with a host and nothing after it.
func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"https://App.Example.org:443", "http://localhost:6274", "http://[::1]:80/", "*", "null", "file://",
		"https://a.example/x", "https://u@a.example", "http://a.example?", "http://a.example:", "HTTP://A.EXAMPLE:8080"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := mcpserver.ParseOrigin(s)
		if err != nil {
			if !errors.Is(err, mcpserver.ErrOrigin) {
				t.Fatalf("ParseOrigin(%q) error %v, want ErrOrigin", s, err)
			}
			return
		}
		if o == "*" {
			return
		}
		again, err := mcpserver.ParseOrigin(o)
		if err != nil || again != o {
			t.Fatalf("ParseOrigin(%q) = %q, which parses to %q, %v", s, o, again, err)
		}
		scheme, host, ok := strings.Cut(o, "://")
		if !ok || (scheme != "http" && scheme != "https") || host == "" || strings.ContainsAny(host, "/?#@") {
			t.Fatalf("ParseOrigin(%q) = %q: not scheme://host", s, o)
		}
	})
}
