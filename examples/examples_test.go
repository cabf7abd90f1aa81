// Package examples_test checks that every example still compiles, including
// any example without tests of its own. Each example's behaviour is tested
// in its own directory, by calling its run function.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every example with the go command")
	}
	gobin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go" // GOROOT unset: the go on PATH
	}
	// go build of several main packages compiles them and discards the
	// binaries; -o would write them.
	cmd := exec.Command(gobin, "build", "./...")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", err, out)
	}
}
