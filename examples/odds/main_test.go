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
		{"default", "default.txt", nil},
		{"own values and book", "custom.txt", []string{"-book", "2,2.5,3", "2.6", "-110", "2:3", "0"}},
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
		{[]string{"-book", "1.4,x"}, `-book: odds: "x" as decimal odds: is not a number`},
		{[]string{"1,91"}, "has a comma"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), tc.args, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
