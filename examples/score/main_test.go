package main

import (
	"path/filepath"
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestRun(t *testing.T) {
	exampletest.Cases(t, run, []exampletest.Case{
		{Name: "bundled sample", Golden: "default.txt", Args: nil},
		{Name: "a file with findings", Golden: "broken.txt", Args: []string{filepath.Join("testdata", "broken.md")}},
		{Name: "ten bins", Golden: "bins10.txt", Args: []string{"-bins", "10", "forecasts.md"}},
	})
}

func TestRunErrors(t *testing.T) {
	exampletest.Errors(t, run, []exampletest.ErrCase{
		{Args: []string{"no-such-file.md"}, Want: "no-such-file.md"},
		{Args: []string{"a.md", "b.md"}, Want: "at most one"},
		{Args: []string{"-bins", "-1"}, Want: "bins"},
	})
}
