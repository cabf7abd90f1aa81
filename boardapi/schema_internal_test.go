package boardapi

import (
	"regexp"
	"testing"
)

// TestTextPattern: the published pattern of a text field takes what
// board's checkText takes (white space trimmed from a single line, line
// breaks and tabs in a multiline text, no other control character, some
// text in a required field) and refuses the rest.
func TestTextPattern(t *testing.T) {
	tests := []struct {
		s                   string
		required, multiline bool
		want                bool
	}{
		{"Rain in Paris", true, false, true},
		{"  Rain \t", true, false, true},
		{"Rain\nParis", true, false, false},
		{"a\tb", true, false, false},
		{"   ", true, false, false},
		{"", false, false, true},
		{"a\x00", false, false, false},
		{"a\u0085b", false, false, false},
		{"line one\nline two\ttab", true, true, true},
		{"\n\n", true, true, false},
		{"esc\x1b", true, true, false},
		{"", false, true, true},
		{"Zoë ✓", true, false, true},
	}
	for _, tc := range tests {
		re := regexp.MustCompile(textPattern(tc.required, tc.multiline))
		if got := re.MatchString(tc.s); got != tc.want {
			t.Errorf("textPattern(%v, %v) matches %q = %v, want %v", tc.required, tc.multiline, tc.s, got, tc.want)
		}
	}
}
