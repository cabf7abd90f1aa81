package mcpserver

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestCleanBase(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"https://predictions.example.org", "https://predictions.example.org", false},
		{"https://predictions.example.org/", "https://predictions.example.org", false},
		{" http://127.0.0.1:8080/ ", "http://127.0.0.1:8080", false},
		{"https://example.org/pre/?q=1#x", "https://example.org/pre", false},
		{"https://[::1]:8080", "https://[::1]:8080", false},
		{"example.org", "", true},
		{"//example.org", "", true},
		{"mailto:a@example.org", "", true},
		{"https://user:pw@example.org", "", true},
		{"https://", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		got, err := cleanBase(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("cleanBase(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrBaseURL) {
			t.Errorf("cleanBase(%q) error %v does not wrap ErrBaseURL", tt.in, err)
		}
	}
}

// FuzzCleanBase checks that a cleaned base URL is absolute, has no trailing
// slash, and cleans to itself.
func FuzzCleanBase(f *testing.F) {
	for _, s := range []string{"https://example.org/", "http://127.0.0.1:8080", "https://example.org/a/b//", "x", "https://[::1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := cleanBase(s)
		if err != nil {
			if !errors.Is(err, ErrBaseURL) {
				t.Fatalf("cleanBase(%q) error %v does not wrap ErrBaseURL", s, err)
			}
			return
		}
		if strings.HasSuffix(got, "/") {
			t.Errorf("cleanBase(%q) = %q ends in /", s, got)
		}
		if u, err := url.Parse(got); err != nil || !u.IsAbs() || u.Host == "" {
			t.Errorf("cleanBase(%q) = %q is not an absolute URL", s, got)
		}
		if again, err := cleanBase(got); err != nil || again != got {
			t.Errorf("cleanBase(%q) = %q, %v; want it unchanged", got, again, err)
		}
	})
}

func TestAcceptsJSONOnly(t *testing.T) {
	tests := []struct {
		accept []string
		want   bool
	}{
		{nil, true},
		{[]string{"application/json"}, true},
		{[]string{"application/json;q=0.9"}, true},
		{[]string{"application/*"}, true},
		{[]string{"application/json, text/event-stream"}, false},
		{[]string{"application/json", "text/event-stream"}, false},
		{[]string{"*/*"}, false},
		{[]string{"text/event-stream"}, false},
		{[]string{"text/html"}, false},
	}
	for _, tt := range tests {
		if got := acceptsJSONOnly(tt.accept); got != tt.want {
			t.Errorf("acceptsJSONOnly(%q) = %v, want %v", tt.accept, got, tt.want)
		}
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Will it rain in Paris on 2026-07-14?", "will-it-rain-in-paris-on-2026-07-14"},
		{"Élection: qui gagne ?", "élection-qui-gagne"},
		{"???", "q1"},
		{strings.Repeat("abcdefghij ", 10), "abcdefghij-abcdefghij-abcdefghij"},
	}
	for _, tt := range tests {
		if got := slug(tt.in); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n := len(slug(tt.in)); n > 40 {
			t.Errorf("slug(%q) is %d bytes long, want at most 40", tt.in, n)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"127.0.0.1:8080", true}, {"127.0.0.1", true}, {"[::1]:80", true}, {"::1", true},
		{"LOCALHOST:8080", true}, {"localhost", true},
		{"example.org", false}, {"10.0.0.1:80", false}, {"localhost.example.org", false}, {"", false},
	}
	for _, tt := range tests {
		if got := isLoopback(tt.in); got != tt.want {
			t.Errorf("isLoopback(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
