package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestRun(t *testing.T) {
	ts := exampletest.Server(t)
	for _, tc := range []struct {
		name, golden string
		args         []string
	}{
		{"default", "run.txt", nil},
		{"fractional", "fractional.txt", []string{"-value", "3/2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			args := append([]string{"-url", ts.URL + "/mcp"}, tc.args...)
			if err := run(context.Background(), args, &out); err != nil {
				t.Fatalf("run(%q): %v\n%s", args, err, out.String())
			}
			exampletest.Golden(t, tc.golden, exampletest.Normalize(out.String(), ts.URL))
		})
	}
}

// A value the tool refuses ends the program with the Problem's error and
// hint.
func TestRunToolError(t *testing.T) {
	ts := exampletest.Server(t)
	err := run(context.Background(), []string{"-url", ts.URL + "/mcp", "-value", "0"}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), `convert_odds "0": value: is a probability of 0`) {
		t.Errorf("run -value 0 = %v, want the tool's error", err)
	}
}
