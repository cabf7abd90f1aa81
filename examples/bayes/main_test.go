package main

import (
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestRun(t *testing.T) {
	exampletest.Cases(t, run, []exampletest.Case{
		{Name: "worked example", Golden: "default.txt", Args: nil},
		{Name: "evidence that rules no out", Golden: "certain.txt", Args: []string{"-prior", "0.1", "signed contract=1/0", "rumour=0.5"}},
	})
}

func TestRunErrors(t *testing.T) {
	exampletest.Errors(t, run, []exampletest.ErrCase{
		{Args: []string{"-prior", "0", "x=2"}, Want: "prior"},
		{Args: []string{"leak"}, Want: "write label=LR"},
		{Args: []string{"leak=a/b"}, Want: "two numbers"},
		{Args: []string{"leak=-1"}, Want: `evidence[0] ("leak")`},
	})
}
