//go:build !(darwin || linux || openbsd)

package eventstream

import "syscall"

// writev writes nothing where the program has no writev(2): a parked
// stream's goroutine writes instead.
func writev(fd uintptr, bufs [][]byte) (int, error) { return 0, syscall.EAGAIN }

// peerClosed reports nothing where the program cannot look without
// waiting: a closed stream is found at its next write.
func peerClosed(fd uintptr) bool { return false }
