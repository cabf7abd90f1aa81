package main

import (
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestRun(t *testing.T) {
	exampletest.Cases(t, run, []exampletest.Case{
		{Name: "default", Golden: "default.txt", Args: nil},
		{Name: "own values and book", Golden: "custom.txt", Args: []string{"-book", "2,2.5,3", "2.6", "-110", "2:3", "0"}},
	})
}

func TestRunErrors(t *testing.T) {
	exampletest.Errors(t, run, []exampletest.ErrCase{
		{Args: []string{"-book", "1.4,x"}, Want: `-book: odds: "x" as decimal odds: is not a number`},
		{Args: []string{"1,91"}, Want: "has a comma"},
	})
}
