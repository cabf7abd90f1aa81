package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunBadFlags: a flag's bad value exits 2 with a message naming it,
// before anything is built or started.
func TestRunBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-real-questions", "1"}, "-real-questions 1: the real-size board needs at least 2 questions"},
		{[]string{"-scenarios", "("}, "-scenarios: "},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), tc.args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("run(%q) = %d, %q; want 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}
