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
		{"worked example", "default.txt", nil},
		{"evidence that rules no out", "certain.txt", []string{"-prior", "0.1", "signed contract=1/0", "rumour=0.5"}},
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
		{[]string{"-prior", "0", "x=2"}, "prior"},
		{[]string{"leak"}, "write label=LR"},
		{[]string{"leak=a/b"}, "two numbers"},
		{[]string{"leak=-1"}, `evidence[0] ("leak")`},
	} {
		err := run(context.Background(), tc.args, new(bytes.Buffer))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
