package exampletest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// Run is an example's main logic: flags and arguments in, output to out.
type Run func(ctx context.Context, args []string, out io.Writer) error

// Case runs an example with Args and compares its output with the golden
// file testdata/Golden.
type Case struct {
	Name, Golden string
	Args         []string
}

// Cases runs each case as a subtest.
func Cases(t *testing.T, run Run, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(context.Background(), tc.Args, &out); err != nil {
				t.Fatalf("run(%q): %v", tc.Args, err)
			}
			Golden(t, tc.Golden, out.String())
		})
	}
}

// ErrCase runs an example with Args and expects an error containing Want.
type ErrCase struct {
	Args []string
	Want string
}

// Errors checks each case's error.
func Errors(t *testing.T, run Run, cases []ErrCase) {
	t.Helper()
	for _, tc := range cases {
		err := run(context.Background(), tc.Args, new(bytes.Buffer))
		if err == nil || !strings.Contains(err.Error(), tc.Want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tc.Args, err, tc.Want)
		}
	}
}
