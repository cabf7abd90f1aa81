// Package disktest gives tests a small file system of their own that
// they can fill up, to see what a full disk does to a program: a tmpfs
// mounted on a temporary directory. Mounting needs Linux and the right to
// mount (root, or CAP_SYS_ADMIN); elsewhere the test is skipped. Root may
// write to a file whatever its mode, so a full disk is how a test run as
// root makes writes fail.
//
//	dir := disktest.Mount(t, 8<<20)
//	// open a database in dir ...
//	free := disktest.Fill(t, dir)
//	// every write that needs a new block fails with ENOSPC; free() ends it
package disktest

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Fill writes a file in dir until the file system is full and returns a
// function that removes it. It fails the test on any error but ENOSPC.
func Fill(tb testing.TB, dir string) (free func()) {
	tb.Helper()
	f, err := os.CreateTemp(dir, "filler-*")
	if err != nil {
		tb.Fatal(err)
	}
	name := f.Name()
	buf := make([]byte, 64<<10)
	for err == nil {
		_, err = f.Write(buf)
	}
	if !errors.Is(err, syscall.ENOSPC) { // a short write fills the last free block first
		f.Close()
		tb.Fatalf("filling %s: %v", dir, err)
	}
	if err := f.Close(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		tb.Fatal(err)
	}
	return func() {
		if err := os.Remove(name); err != nil {
			tb.Errorf("freeing %s: %v", filepath.Base(name), err)
		}
	}
}
