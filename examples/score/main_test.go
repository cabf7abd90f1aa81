package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name, golden string
		args         []string
	}{
		{"bundled sample", "default.txt", nil},
		{"a file with findings", "broken.txt", []string{filepath.Join("testdata", "broken.md")}},
		{"ten bins", "bins10.txt", []string{"-bins", "10", "forecasts.md"}},
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
		{[]string{"no-such-file.md"}, "no-such-file.md"},
		{[]string{"a.md", "b.md"}, "at most one"},
		{[]string{"-bins", "-1"}, "bins"},
	} {
		err := run(context.Background(), tc.args, new(bytes.Buffer))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
