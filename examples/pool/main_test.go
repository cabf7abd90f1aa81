package main

import (
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestRun(t *testing.T) {
	exampletest.Cases(t, run, []exampletest.Case{
		{Name: "sample team disagrees", Golden: "default.txt", Args: nil},
		{Name: "agreement under a custom threshold", Golden: "agree.txt", Args: []string{"-disagree", "10", "a=0.40", "b=45%", "c=47"}},
		{Name: "certainty is clipped with a note", Golden: "certain.txt", Args: []string{"a=100%", "b=80%"}},
	})
}

func TestRunErrors(t *testing.T) {
	exampletest.Errors(t, run, []exampletest.ErrCase{
		{Args: []string{"scout"}, Want: "write who=probability"},
		{Args: []string{"a=x"}, Want: "is not a number"},
		{Args: []string{"-disagree", "-1", "a=0.5"}, Want: "disagree"},
	})
}
