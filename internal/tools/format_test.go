package tools

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "day", "1 day"},
		{2, "day", "2 days"},
		{0, "reply", "0 replies"},
		{3, "key", "3 keys"},
		{2, "prediction", "2 predictions"},
		{2, "match", "2 matches"},
		{2, "class", "2 classes"},
		{2, "box", "2 boxes"},
		{269, "day", "269 days"},
		{2, "forecaster", "2 forecasters"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
