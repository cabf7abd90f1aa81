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

func TestBayesSummary(t *testing.T) {
	for _, tc := range []struct {
		change float64
		want   string
	}{
		{0, "From a prior of 50%, 1 piece of evidence left the forecast at 50%."},
		{0.04, "From a prior of 50%, 1 piece of evidence moved the forecast by less than 0.1 points, to 50%."},
		{-0.049, "From a prior of 50%, 1 piece of evidence moved the forecast by less than 0.1 points, to 50%."},
		{0.06, "From a prior of 50%, 1 piece of evidence moved the forecast to 50% (+0.1 points)."},
		{-12.34, "From a prior of 50%, 1 piece of evidence moved the forecast to 50% (-12.3 points)."},
	} {
		if got := bayesSummary("50%", "1 piece of evidence", "50%", tc.change); got != tc.want {
			t.Errorf("bayesSummary(change %v) = %q, want %q", tc.change, got, tc.want)
		}
	}
}
