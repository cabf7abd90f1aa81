// Package examples_test checks that every example still compiles, and that
// the program in each package's doc.go compiles and prints what its comment
// says. Each example's behaviour is tested in its own directory, by calling
// its run function.
package examples_test

import (
	"os/exec"
	"testing"

	"github.com/predictions-md/predictions/examples/internal/exampletest"
)

func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every example with the go command")
	}
	// go build of several main packages compiles them and discards the
	// binaries.
	cmd := exec.Command(exampletest.GoCommand(), "build", "./...")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", err, out)
	}
}
