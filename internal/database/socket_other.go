//go:build !unix

package database

import "net"

// socketAlive reports true: without a non-blocking read of the socket
// (socket_unix.go) a dead pooled connection is found at its first use,
// and a read is then sent to another connection (pgconn.go).
func socketAlive(net.Conn) bool { return true }
