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

// peerClosed reports whether the peer of fd closed its side (or reset
// the connection), looking without waiting and without taking what it
// sent: recv(2) with MSG_PEEK and MSG_DONTWAIT reads 0 bytes at the end
// of the stream, EAGAIN while it is open and quiet.
func peerClosed(fd uintptr) bool {
	var b [1]byte
	for {
		n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return false
		case err != nil:
			return true
		}
		return n == 0
	}
}
