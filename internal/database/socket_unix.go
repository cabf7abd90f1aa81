//go:build unix

package database

import (
	"net"
	"syscall"
)

// socketAlive reports whether an idle connection is still open: a read
// that would block says so; the end of the stream or bytes nobody asked
// for (a server's last message before it closed) say that it is dead. It
// reads without waiting, on the socket beneath TLS, as
// go-sql-driver/mysql's connCheck does. A connection it cannot look into
// counts as alive.
func socketAlive(nc net.Conn) bool {
	if t, ok := nc.(interface{ NetConn() net.Conn }); ok { // *tls.Conn
		nc = t.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := true
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, err := syscall.Read(int(fd), b[:])
		switch {
		case n > 0, n == 0 && err == nil: // unasked bytes, or the end of the stream
			alive = false
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK: // nothing to read: open
		case err != nil:
			alive = false
		}
		return true // done; never wait for the socket to be readable
	})
	return err == nil && alive
}
