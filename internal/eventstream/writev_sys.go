//go:build darwin || linux || openbsd

package eventstream

import "golang.org/x/sys/unix"

// maxIovec is how many buffers one writev(2) takes here: IOV_MAX is 1024
// on Linux, macOS and OpenBSD. The rest wait for the next write.
const maxIovec = 1024

// writev writes bufs to fd in one system call and returns how many bytes
// it wrote.
func writev(fd uintptr, bufs [][]byte) (int, error) {
	return unix.Writev(int(fd), bufs[:min(len(bufs), maxIovec)])
}
