package disktest

import (
	"fmt"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new temporary directory and
// returns the directory; it is unmounted when the test ends (after the
// cleanups registered later, such as closing a database in it). The test
// is skipped when mounting is not allowed.
func Mount(tb testing.TB, size int) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		tb.Skipf("a full disk needs a tmpfs of its own, and mounting one failed (%v): run as root, or with CAP_SYS_ADMIN", err)
	}
	tb.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}
