package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name, golden string
		args         []string
	}{
		{"sample team disagrees", "default.txt", nil},
		{"agreement under a custom threshold", "agree.txt", []string{"-disagree", "10", "a=0.40", "b=45%", "c=47"}},
		{"certainty is clipped with a note", "certain.txt", []string{"a=100%", "b=80%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(context.Background(), tc.args, &out); err != nil {
				t.Fatalf("run(%q): %v", tc.args, err)
			}
			exampletest.Golden(t, tc.golden, out.String())
		})
	}
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scout"}, "write who=probability"},
		{[]string{"a=x"}, "is not a number"},
		{[]string{"-disagree", "-1", "a=0.5"}, "disagree"},
	} {
		err := run(context.Background(), tc.args, new(bytes.Buffer))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
