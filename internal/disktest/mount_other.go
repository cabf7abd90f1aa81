//go:build !linux

package disktest

import "testing"

// Mount skips the test: a tmpfs of its own needs Linux (mount_linux.go).
func Mount(tb testing.TB, size int) string {
	tb.Helper()
	tb.Skip("a full disk needs a tmpfs of its own, which needs Linux")
	return ""
}
